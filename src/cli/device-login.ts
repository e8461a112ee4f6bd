import { OAuthClientError, requestTokens, startDeviceAuthorization, type ClientAuth, type DeviceAuthorization, type TokenSet } from './oauth-client';

/**
 * `engage login --device` (RFC 8628, issue 23): for a server without a browser. Asks the device
 * authorization endpoint for codes, shows where to enter the user code, and polls the token
 * endpoint at the interval the server asks for (5 s more after each slow_down), until the user
 * approved, denied, or the code expired.
 */
export async function deviceLogin(opts: {
  deviceEndpoint: string;
  tokenEndpoint: string;
  auth: ClientAuth;
  scope: string;
  /** RFC 8707: the API the grant is for (engage login --api engage); absent: the client's default. */
  resource?: string;
  /** Told once the codes are known: where to go and what to enter. */
  show: (d: DeviceAuthorization) => void;
  timeoutS: number;
  sleep?: (ms: number) => Promise<void>;
}): Promise<TokenSet> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const d = await startDeviceAuthorization(opts.deviceEndpoint, opts.auth, opts.scope, opts.resource);
  opts.show(d);
  let interval = Math.max(1, d.interval ?? 5);
  const deadline = Date.now() + Math.min(d.expires_in, opts.timeoutS) * 1000;
  for (;;) {
    await sleep(interval * 1000);
    if (Date.now() > deadline) throw new Error(`no approval within ${Math.min(d.expires_in, opts.timeoutS)} s: run engage login --device again`);
    try {
      return await requestTokens(opts.tokenEndpoint, opts.auth, { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: d.device_code });
    } catch (e) {
      if (!(e instanceof OAuthClientError)) throw e;
      if (e.error === 'authorization_pending') continue;
      if (e.error === 'slow_down') {
        interval += 5;
        continue;
      }
      if (e.error === 'access_denied') throw new Error('the sign-in was denied in the browser');
      if (e.error === 'expired_token') throw new Error('the code expired before it was approved: run engage login --device again');
      throw e;
    }
  }
}

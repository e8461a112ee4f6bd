import { Option, type Command } from 'commander';
import { action, output, readStdin } from '../cli';
import {
  credentialsPath,
  findSignIn,
  normaliseUrl,
  OPERATOR_APIS,
  removeSignIn,
  saveSignIn,
  withCredentialsLock,
  type OperatorApi,
  type StoredSignIn,
} from '../../src/cli/credentials-file';
import {
  controlIssuerOf,
  discover,
  exchangeCode,
  OAuthClientError,
  openBrowser,
  pkcePair,
  randomState,
  refresh,
  revoke,
  identityOf,
  startLoopbackReceiver,
  type ClientAuth,
  type TokenSet,
} from '../../src/cli/oauth-client';
import { CLI_CLIENT_ID, CLI_IDENTITY_SCOPES, engageAdminResourceUri } from '../../src/identity/operators/control';
import { ENGAGE_ADMIN_SCOPES } from '../../src/platform/operator-apis';
import { deviceLogin } from '../../src/cli/device-login';

/** `engage token` refreshes an access token that expires within this many seconds. */
const REFRESH_MARGIN_S = 60;

const nowS = () => Math.floor(Date.now() / 1000);
const authOf = (s: Pick<StoredSignIn, 'clientId' | 'clientSecret'>): ClientAuth => ({ clientId: s.clientId, clientSecret: s.clientSecret });
/**
 * `--api`: which administration API the sign-in is for (issue 24). A grant is bound to one
 * resource (RFC 8707), so each API is its own sign-in, stored beside the other.
 */
const apiOption = () =>
  new Option('--api <api>', 'the administration API: identity (the management API, /t/control/identity/admin) or engage (the engagement administration API, /t/control/engage/admin)')
    .choices([...OPERATOR_APIS])
    .default('identity');

/** What `engage login --api engage` asks for: the ID token's claims, a refresh token and the four engagement scopes. */
const CLI_ENGAGE_SCOPES = ['openid', 'email', 'offline_access', ...ENGAGE_ADMIN_SCOPES];
const defaultScopes = (api: OperatorApi) => (api === 'engage' ? CLI_ENGAGE_SCOPES : CLI_IDENTITY_SCOPES).join(' ');
/** The identity sign-in names no resource (engage-cli's default resource is the management API): unchanged since issue 11. */
const resourceFor = (api: OperatorApi, issuer: string) => (api === 'engage' ? engageAdminResourceUri(issuer) : undefined);
const apiOf = (s: StoredSignIn): OperatorApi => s.api ?? 'identity';
/** `--api engage` in the commands an error message suggests; nothing for the identity API (the default). */
const apiFlag = (s: StoredSignIn) => (apiOf(s) === 'identity' ? '' : ` --api ${apiOf(s)}`);
/** The identity API's JSON stays as before issue 24; the others name their API. */
const apiField = (s: StoredSignIn) => (apiOf(s) === 'identity' ? {} : { api: apiOf(s) });

const summary = (s: StoredSignIn) => ({
  url: s.url,
  ...apiField(s),
  issuer: s.issuer,
  clientId: s.clientId,
  subject: s.subject,
  email: s.email ?? null,
  scope: s.scope,
  accessTokenExpiresAt: new Date(s.accessTokenExpiresAt * 1000).toISOString(),
  credentialsFile: credentialsPath(),
});

/** Who signed in: the email (the `email` scope; a client given --scope without it has none) and the subject. */
const operatorOf = (s: StoredSignIn) => (s.email ? `${s.email} (subject ${s.subject ?? 'unknown'})` : (s.subject ?? 'unknown subject'));

/** Refreshes and stores the sign-in (under the credentials lock). */
async function refreshed(s: StoredSignIn): Promise<StoredSignIn> {
  if (!s.refreshToken) throw new Error(`the access token has expired and there is no refresh token: run engage login --url ${s.url}${apiFlag(s)}`);
  let tokens;
  try {
    // RFC 8707: the grant's own resource again (the engagement sign-in's; none for identity's).
    tokens = await refresh(s.tokenEndpoint, authOf(s), s.refreshToken, s.resource);
  } catch (e) {
    if (e instanceof OAuthClientError && e.error === 'invalid_grant') throw new Error(`the sign-in to ${s.url} has ended (${e.message}): run engage login --url ${s.url}${apiFlag(s)}`);
    throw e;
  }
  // Refresh tokens rotate at every use (RFC 9700 §4.14.2): store the new one at once.
  const next: StoredSignIn = {
    ...s,
    accessToken: tokens.access_token,
    accessTokenExpiresAt: nowS() + tokens.expires_in,
    refreshToken: tokens.refresh_token ?? s.refreshToken,
    scope: tokens.scope ?? s.scope,
  };
  saveSignIn(next);
  return next;
}

/**
 * Operator sign-in for the CLI (issue 11 point 5): these commands talk to a running server over
 * HTTP, never to the database, so they take no --data-dir.
 */
export function registerLogin(program: Command): void {
  program
    .command('login')
    .description('sign in to a server through the browser (OAuth 2.0 code flow with PKCE, loopback redirect; --device: RFC 8628 device flow) and store the tokens')
    .requiredOption('--url <url>', "the server's public URL, e.g. https://engage.example.com")
    .option('--client-id <id>', `client of the control tenant to sign in with (default ${CLI_CLIENT_ID})`)
    .option('--client-secret-stdin', 'read a confidential client secret from standard input (unattended automation, README)')
    .addOption(apiOption())
    .option('--scope <scope>', 'space-separated scopes to request (default for engage-cli: openid email offline_access and the API\'s scopes: the five identity.admin ones, or with --api engage the four engage.admin ones; required with --client-id)')
    .option('--port <port>', 'loopback port to listen on (default: an ephemeral port)')
    .option('--timeout <seconds>', 'how long to wait for the browser sign-in', '300')
    .option('--no-browser', 'print the URL only; do not try to open a browser')
    .option('--device', 'for a server without a browser (RFC 8628): print a URL and a code to enter on any other device, then wait for the approval')
    .option('--json', 'print machine-readable JSON (with --device, first a line with the URL and the code)')
    .action(
      action(async (opts: { url: string; api: OperatorApi; clientId?: string; clientSecretStdin?: boolean; scope?: string; port?: string; timeout: string; browser: boolean; device?: boolean; json?: boolean }) => {
        const url = normaliseUrl(opts.url);
        const timeoutS = Number(opts.timeout);
        if (!Number.isInteger(timeoutS) || timeoutS < 1 || timeoutS > 3600) throw new Error('--timeout must be a whole number of seconds from 1 to 3600');
        const port = opts.port === undefined ? undefined : Number(opts.port);
        if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) throw new Error('--port must be a port number from 1 to 65535');
        // Another client's registered scopes are unknown here: the operator names what the job needs.
        if (opts.clientId && opts.clientId !== CLI_CLIENT_ID && !opts.scope) throw new Error('--scope is required with --client-id (the scopes registered for that client, e.g. "openid offline_access identity.admin.read")');
        const clientSecret = opts.clientSecretStdin ? (await readStdin()).replace(/\r?\n$/, '') : undefined;
        if (opts.clientSecretStdin && !clientSecret) throw new Error('--client-secret-stdin: standard input was empty');
        const auth: ClientAuth = { clientId: opts.clientId ?? CLI_CLIENT_ID, clientSecret };

        const issuer = controlIssuerOf(url);
        const resource = resourceFor(opts.api, issuer);
        const scope = opts.scope ?? defaultScopes(opts.api);
        const md = await discover(issuer);
        const store = async (tokens: TokenSet) => {
          const signIn: StoredSignIn = {
            url,
            ...(opts.api === 'identity' ? {} : { api: opts.api }),
            ...(resource === undefined ? {} : { resource }),
            issuer,
            clientId: auth.clientId,
            ...(clientSecret ? { clientSecret } : {}),
            tokenEndpoint: md.token_endpoint,
            revocationEndpoint: md.revocation_endpoint,
            accessToken: tokens.access_token,
            accessTokenExpiresAt: nowS() + tokens.expires_in,
            refreshToken: tokens.refresh_token ?? null,
            scope: tokens.scope ?? '',
            ...identityOf(tokens.id_token),
          };
          await withCredentialsLock(async () => saveSignIn(signIn));
          if (opts.json) output(true, summary(signIn));
          else process.stdout.write(`Signed in to ${url}${opts.api === 'identity' ? '' : ` (the ${opts.api} API)`} as ${operatorOf(signIn)}; tokens stored in ${credentialsPath()}\n`);
        };
        if (opts.device) {
          if (opts.port !== undefined) throw new Error('--port is for the browser sign-in, not --device');
          if (!md.device_authorization_endpoint) throw new Error(`${issuer} offers no device authorization (no client of its tenant is registered for the device grant)`);
          const tokens = await deviceLogin({
            deviceEndpoint: md.device_authorization_endpoint,
            tokenEndpoint: md.token_endpoint,
            auth,
            scope,
            resource,
            timeoutS,
            show: (d) => {
              // --json: one JSON line first (a wrapper can show it), then the summary line.
              if (opts.json) process.stdout.write(JSON.stringify({ verificationUri: d.verification_uri, verificationUriComplete: d.verification_uri_complete ?? null, userCode: d.user_code, expiresIn: d.expires_in }) + '\n');
              else process.stderr.write(`On any device, open\n\n  ${d.verification_uri}\n\nand enter the code  ${d.user_code}\n\n${d.verification_uri_complete ? `(or open ${d.verification_uri_complete})\n` : ''}Waiting for the approval (up to ${Math.min(d.expires_in, timeoutS)} s)...\n`);
            },
          });
          await store(tokens);
          return;
        }
        const { verifier, challenge } = pkcePair();
        const state = randomState();
        const receiver = await startLoopbackReceiver({ state, issuer, port, timeoutMs: timeoutS * 1000 });
        try {
          const authorize = new URL(md.authorization_endpoint);
          authorize.search = new URLSearchParams({
            response_type: 'code',
            client_id: auth.clientId,
            redirect_uri: receiver.redirectUri,
            scope,
            state,
            code_challenge: challenge,
            code_challenge_method: 'S256',
            // RFC 8707 §2.1: the grant is for this API alone.
            ...(resource === undefined ? {} : { resource }),
          }).toString();
          // The URL goes to stderr, so --json leaves stdout one document.
          process.stderr.write(`Sign in to ${url} in your browser:\n\n  ${authorize.href}\n\n`);
          if (opts.browser && openBrowser(authorize.href)) process.stderr.write('(a browser was opened; if not, open the URL above)\n');
          process.stderr.write(`Waiting for the sign-in (up to ${timeoutS} s)...\n`);
          const code = await receiver.code;
          await store(await exchangeCode(md, auth, code, receiver.redirectUri, verifier, resource));
        } finally {
          receiver.close();
        }
      }),
    );

  program
    .command('token')
    .description('print a fresh access token for scripts (refreshed when it expires within 60 s)')
    .option('--url <url>', 'the server (default: the only one signed in to, or ENGAGE_URL)')
    .addOption(apiOption())
    .option('--json', 'print machine-readable JSON')
    .action(
      action(async (opts: { url?: string; api: OperatorApi; json?: boolean }) => {
        let s = findSignIn(opts.url, process.env, opts.api);
        const expiring = (x: StoredSignIn) => x.accessTokenExpiresAt - nowS() <= REFRESH_MARGIN_S;
        if (expiring(s)) {
          s = await withCredentialsLock(async () => {
            // Another run may have refreshed while this one waited for the lock.
            const current = findSignIn(s.url, process.env, opts.api);
            return expiring(current) ? refreshed(current) : current;
          });
        }
        if (opts.json) output(true, { url: s.url, ...apiField(s), accessToken: s.accessToken, expiresAt: new Date(s.accessTokenExpiresAt * 1000).toISOString(), scope: s.scope });
        else process.stdout.write(`${s.accessToken}\n`);
      }),
    );

  program
    .command('logout')
    .description('revoke the stored refresh token (RFC 7009) and delete the stored tokens')
    .option('--url <url>', 'the server (default: the only one signed in to, or ENGAGE_URL)')
    .addOption(apiOption())
    .addOption(new Option('--json', 'print machine-readable JSON'))
    .action(
      action(async (opts: { url?: string; api: OperatorApi; json?: boolean }) => {
        const s = findSignIn(opts.url, process.env, opts.api);
        let failure: string | undefined;
        try {
          // A refresh token ends its whole grant, the access tokens too (oauth/revocation.ts).
          if (s.refreshToken) await revoke(s.revocationEndpoint, authOf(s), s.refreshToken, 'refresh_token');
          else await revoke(s.revocationEndpoint, authOf(s), s.accessToken, 'access_token');
        } catch (e) {
          failure = (e as Error).message;
        }
        // The local tokens go either way: a sign-out must not leave them behind.
        await withCredentialsLock(async () => removeSignIn(s.url, process.env, opts.api));
        if (failure) throw new Error(`the stored tokens for ${s.url}${apiFlag(s)} were deleted, but revoking them failed: ${failure}`);
        if (opts.json) output(true, { url: s.url, ...apiField(s), revoked: true });
        else process.stdout.write(`Signed out of ${s.url}${opts.api === 'identity' ? '' : ` (the ${opts.api} API)`}\n`);
      }),
    );
}

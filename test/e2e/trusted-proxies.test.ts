/**
 * Behind a reverse proxy every request comes from the proxy's address. With
 * `--trusted-proxies 1` the sign-in throttle counts the address the proxy saw (the last
 * X-Forwarded-For entry), so one client spraying passwords does not lock everyone else out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormDriver } from '../conformance/form-driver';
import { PASSWORD, seedThroughCli } from '../conformance/engage-process';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';

const CALLBACK = 'com.example.app:/oauth/callback';
const IP_FREE_FAILURES = 20; // src/identity/sessions/throttle.ts

let sandbox: Sandbox;
let server: RunningServer;

beforeAll(async () => {
  sandbox = await createSandbox({ prefix: 'engage-proxy-' });
  server = await sandbox.serve({ args: ['--trusted-proxies', '1'] });
  await seedThroughCli({ dataDir: sandbox.dataDir, url: server.url, cli: (a, stdin) => sandbox.cli(a, { stdin }), cliJson: (a, stdin) => sandbox.cliJson(a, { stdin }), stop: async () => {} }, CALLBACK);
}, 60_000);
afterAll(() => sandbox?.cleanup());

/** A browser behind the proxy: every request carries the X-Forwarded-For the proxy would add. */
function browserAt(address: string): FormDriver {
  return new FormDriver((url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-forwarded-for': `203.0.113.9, ${address}` } }), server.url);
}

async function loginPage(d: FormDriver): Promise<string> {
  const q = new URLSearchParams({
    client_id: 'app', redirect_uri: CALLBACK, response_type: 'code', scope: 'openid', state: 's',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
  });
  const res = await d.get(`/t/acme/oauth2/authorize?${q}`);
  expect(res.status).toBe(200);
  return res.text();
}

describe('serve --trusted-proxies 1', () => {
  it('throttles the address the proxy saw, not the proxy', async () => {
    const sprayer = browserAt('198.51.100.7');
    let page = await loginPage(sprayer);
    for (let i = 0; i < IP_FREE_FAILURES; i++) {
      const res = await sprayer.submit(page, { email: `user${i}@example.com`, password: 'wrong password' });
      expect(res.status).toBe(400);
      page = await res.text();
    }
    expect((await sprayer.submit(page, { email: 'alice@example.com', password: PASSWORD })).status).toBe(429);

    // Another client behind the same proxy (and the same leftmost, client-supplied entry) signs in.
    const other = browserAt('198.51.100.8');
    const res = await other.submit(await loginPage(other), { email: 'alice@example.com', password: PASSWORD });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).searchParams.get('code')).toBeTruthy();
  }, 120_000);
});

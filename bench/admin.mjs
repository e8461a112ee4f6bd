/**
 * Management API read: a page of 100 users (GET {control_issuer}/identity/admin/tenants/{id}/users?size=100)
 * with an operator's bearer token, so every request verifies the token, checks its live state,
 * the scope and the operator's live directory permission, then reads 101 rows. Peak
 * (autocannon, closed loop) and the latency at half the peak, paced (bench/lib/paced.mjs).
 * Run:  node --import tsx bench/admin.mjs
 *
 * Env: BENCH_DURATION (10), BENCH_CONNECTIONS (32), BENCH_ENGAGE (command for the server, default
 * "node --import tsx cmd/engage.ts"; e.g. "dist/engage"), BENCH_USERS (users in the tenant, 1000).
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { paced } from './lib/paced.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const USERS = Number(process.env.BENCH_USERS ?? 1000);
const PORT = 9741;
const CALLBACK = 'https://app.example.com/cb';

const { openAppStore } = await import('../src/open-store.ts');
const { SYSTEM_ACTOR } = await import('../src/identity/audit.ts');
const { loadConfig } = await import('../src/platform/config.ts');
const { systemClock } = await import('../src/platform/clock.ts');
const { silentLogger } = await import('../src/platform/logger.ts');
const { createServices } = await import('../src/services.ts');
const { s256 } = await import('../src/platform/crypto.ts');
const { ADMIN_AUDIENCE, ADMIN_ROOT, ADMIN_SCOPES } = await import('../src/identity/admin/schemas.ts');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dataDir = mkdtempSync(path.join(tmpdir(), 'engage-bench-admin-'));
const masterKey = randomBytes(32).toString('base64');
const origin = `http://127.0.0.1:${PORT}`;
const env = { ...process.env, ENGAGE_DATA_DIR: dataDir, ENGAGE_MASTER_KEY: masterKey, ENGAGE_PUBLIC_URL: origin, ENGAGE_LOG_LEVEL: 'warn', ENGAGE_ACCESS_TOKEN_TTL: '3600' };
const config = loadConfig({ env });
const { store } = await openAppStore(config, { logger: silentLogger });
const services = createServices({ config, store, clock: systemClock, logger: silentLogger, masterKey: Buffer.from(masterKey, 'base64') });

// The control tenant's management resource, a client, an operator with every permission.
const control = await services.tenants.ensureControl();
const uri = control.issuer + ADMIN_ROOT;
const scopes = Object.values(ADMIN_SCOPES);
if (!(await services.resources.findByUri(control.id, uri))) await services.resources.create(control.id, { uri, audience: ADMIN_AUDIENCE, scopes }, SYSTEM_ACTOR);
await services.clients.create(control.id, {
  clientId: 'bench-admin', displayName: 'Bench', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
  redirectUris: [CALLBACK], scopes, defaultResource: uri,
}, SYSTEM_ACTOR);
const operator = await services.users.create(control.id, { email: 'operator@example.com', emailVerified: true }, SYSTEM_ACTOR);
await services.directory.grantAdministrator(control.id, operator.subject, scopes, SYSTEM_ACTOR);
const tenant = await services.tenants.create({ slug: 'bench' }, SYSTEM_ACTOR);
for (let i = 0; i < USERS; i++) await services.users.create(tenant.id, { email: `user${i}@example.com`, emailVerified: i % 2 === 0 }, SYSTEM_ACTOR);
const verifier = randomBytes(32).toString('base64url');
const code = await services.oauth.issueAuthorizationCode({
  tenantId: control.id, clientId: 'bench-admin', userId: operator.id, redirectUri: CALLBACK, codeChallenge: s256(verifier), scope: scopes, resource: uri, nonce: null,
  authTime: Math.floor(Date.now() / 1000),
});
await store.close();

const cmd = (process.env.BENCH_ENGAGE ?? `${process.execPath} --import tsx cmd/engage.ts`).split(' ');
const server = spawn(cmd[0], [...cmd.slice(1), 'serve', '--port', String(PORT)], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${origin}/readyz`)).ok) break;
  } catch {
    /* not yet */
  }
  if (i > 300) throw new Error('engage did not start');
  await sleep(100);
}
const tokenRes = await fetch(`${origin}/t/control/oauth2/token`, {
  method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: CALLBACK, client_id: 'bench-admin' }).toString(),
});
if (tokenRes.status !== 200) throw new Error(`token: ${tokenRes.status} ${await tokenRes.text()}`);
const { access_token } = await tokenRes.json();
const headers = { authorization: `Bearer ${access_token}` };
const pathname = `/t/control${ADMIN_ROOT}/tenants/${tenant.id}/users?size=100`;
const check = await fetch(origin + pathname, { headers });
const page = await check.json();
if (check.status !== 200 || page.items.length !== 100) throw new Error(`page: ${check.status} ${JSON.stringify(page).slice(0, 200)}`);

const cannon = (o) => new Promise((resolve, reject) => autocannon({ connections: CONNECTIONS, duration: DURATION, url: origin + pathname, headers, ...o }, (e, r) => (e ? reject(e) : resolve(r))));
const CLOCK_TICKS = 100;
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
};
await cannon({ duration: 2 });
const before = cpuMs(server.pid);
const r = await cannon({});
const secs = (new Date(r.finish) - new Date(r.start)) / 1000;
const peak = { rps: Math.round(r.requests.total / secs), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts, cpuUsPerRequest: Math.round(((cpuMs(server.pid) - before) * 1000) / r.requests.total) };
const half = await paced({ origin, rate: Math.max(1, Math.floor(peak.rps / 2)), duration: DURATION, plan: { kind: 'static', method: 'GET', path: pathname, headers } });
console.log(JSON.stringify({ route: 'GET /identity/admin/tenants/{id}/users?size=100', users: USERS, peak, halfPeakPaced: half }, null, 2));
server.kill('SIGTERM');
await new Promise((res) => server.once('exit', res));
rmSync(dataDir, { recursive: true, force: true });

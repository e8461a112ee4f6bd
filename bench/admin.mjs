/**
 * Management API read: a page of 100 users (GET {control_issuer}/identity/admin/tenants/{id}/users?size=100)
 * with an operator's bearer token, so every request verifies the token, checks its live state,
 * the scope and the operator's live directory permission, then reads 101 rows. Peak
 * (autocannon, closed loop) and the latency at half the peak, paced (bench/lib/paced.mjs).
 * Run:  node --import tsx bench/admin.mjs
 *
 * Env: BENCH_DURATION (10), BENCH_CONNECTIONS (32), BENCH_ENGAGE (command for the server, default
 * "node --import tsx cmd/engage.ts"; e.g. "dist/engage"), BENCH_USERS (users in the tenant, 1000).
 *
 * `--surface engage` (issue 24): the engagement administration API's installations list
 * instead, GET {control_issuer}/engage/admin/environments/{env}/installations?size=100&after=…
 * (a keyset page: no offset, no count) on an environment of `--installations` (1,000,000)
 * installations, seeded with one INSERT … SELECT from a recursive CTE on the database that
 * `--bin … init` made. Its operator holds engage.admin.read. Two more environments, of 1,000
 * and 25,000 installations, give the cost of a page of a smaller environment among the big
 * one's rows (each of the two plans of profiles/store.ts at its worst near the threshold).
 * Run:  node --import tsx bench/admin.mjs --surface engage --bin /tmp/engage
 */
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { paced } from './lib/paced.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: { surface: { type: 'string', default: 'identity' }, bin: { type: 'string' }, installations: { type: 'string', default: '1000000' } },
});
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
if (args.bin) execFileSync(args.bin, ['init'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
const { store, sql } = await openAppStore(config, { logger: silentLogger });
const services = createServices({ config, store, clock: systemClock, logger: silentLogger, masterKey: Buffer.from(masterKey, 'base64') });


if (args.surface === 'engage') {
  await benchEngage();
  process.exit(0);
}

/**
 * Seeds `n` installations of one app of the environment directly in the database: one
 * INSERT … SELECT over a recursive CTE (random version-4 ids; unique credential digests).
 */
async function seedInstallations(environmentId, appId, n) {
  const uuid = `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;
  const now = new Date().toISOString();
  await sql.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${Number(n)})
     INSERT INTO installations (id, environment_id, app_id, platform, locale, timezone, sdk_version, app_version, credential_digest, revocation_digest, recovery_digest,
       generation, profile_id, binding_state, push_token, push_token_ms, created_at, updated_at)
     SELECT ${uuid}, ?, ?, 'IOS', 'en', 'UTC', '1.0.0', '1.0', hex(randomblob(32)), hex(randomblob(32)), hex(randomblob(32)),
       0, ${uuid}, 'ANONYMOUS', CASE WHEN i % 2 = 0 THEN hex(randomblob(32)) END, 0, ?, ? FROM n`,
    [environmentId, appId, now, now],
  );
}

/** User and system CPU of a process so far, in ms (/proc/<pid>/stat, 100 ticks a second). */
function processCpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

async function benchEngage() {
  const cpuMs = processCpuMs;
  const { ENGAGE_ADMIN_API } = await import('../src/platform/operator-apis.ts');
  const control = await services.tenants.ensureControl();
  const uri = control.issuer + ENGAGE_ADMIN_API.root;
  const { read } = ENGAGE_ADMIN_API.scopes;
  await services.clients.create(control.id, {
    clientId: 'bench-engage-admin', displayName: 'Bench', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
    redirectUris: [CALLBACK], scopes: [read], defaultResource: uri,
  }, SYSTEM_ACTOR);
  const operator = await services.users.create(control.id, { email: 'operator@example.com', emailVerified: true }, SYSTEM_ACTOR);
  await services.directory.grantAdministrator(control.id, operator.subject, [read], SYSTEM_ACTOR);
  const environments = services.engage.environments;
  const big = await environments.create({ name: 'bench' }, SYSTEM_ACTOR);
  const small = await environments.create({ name: 'small' }, SYSTEM_ACTOR);
  const bigApp = await environments.createApp({ environment: big.id, platform: 'IOS', name: 'bench-ios' }, SYSTEM_ACTOR);
  const smallApp = await environments.createApp({ environment: small.id, platform: 'IOS', name: 'small-ios' }, SYSTEM_ACTOR);
  const medium = await environments.create({ name: 'medium' }, SYSTEM_ACTOR);
  const mediumApp = await environments.createApp({ environment: medium.id, platform: 'IOS', name: 'medium-ios' }, SYSTEM_ACTOR);
  const N = Number(args.installations);
  let t = Date.now();
  await seedInstallations(big.id, bigApp.id, N);
  await seedInstallations(small.id, smallApp.id, 1000);
  await seedInstallations(medium.id, mediumApp.id, 25_000);
  const seedSeconds = (Date.now() - t) / 1000;
  const count = (await sql.get('SELECT COUNT(*) AS n FROM installations WHERE environment_id = ?', [big.id])).n;
  // A page from the middle of the environment (a keyset seek costs the same anywhere).
  const middle = (await sql.get('SELECT id FROM installations WHERE environment_id = ? ORDER BY id LIMIT 1 OFFSET ?', [big.id, Math.floor(N / 2)])).id;
  const verifier = randomBytes(32).toString('base64url');
  const code = await services.oauth.issueAuthorizationCode({
    tenantId: control.id, clientId: 'bench-engage-admin', userId: operator.id, redirectUri: CALLBACK, codeChallenge: s256(verifier), scope: [read], resource: uri, nonce: null,
    authTime: Math.floor(Date.now() / 1000),
  });
  await store.close();

  const server = spawn(args.bin ?? process.execPath, args.bin ? ['serve', '--port', String(PORT)] : ['--import', 'tsx', 'cmd/engage.ts', 'serve', '--port', String(PORT)], {
    cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${origin}/readyz`)).ok) break;
    } catch {
      /* not yet */
    }
    if (i > 600) throw new Error('engage did not start');
    await sleep(100);
  }
  const tokenRes = await fetch(`${origin}/t/control/oauth2/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: CALLBACK, client_id: 'bench-engage-admin' }).toString(),
  });
  if (tokenRes.status !== 200) throw new Error(`token: ${tokenRes.status} ${await tokenRes.text()}`);
  const headers = { authorization: `Bearer ${(await tokenRes.json()).access_token}` };
  const pagePath = (env, after) => `/t/control${ENGAGE_ADMIN_API.root}/environments/${env}/installations?size=100${after ? `&after=${after}` : ''}`;
  const pathname = pagePath('bench', middle);
  for (const p of [pagePath('bench'), pathname, pagePath('small'), pagePath('medium')]) {
    const res = await fetch(origin + p, { headers });
    const body = await res.json();
    if (res.status !== 200 || body.items.length !== 100 || !body.hasMore) throw new Error(`page: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
  }
  // Sequential latency of single pages: the big environment, and the small one among the big one's rows.
  const single = async (p, n = 50) => {
    const ms = [];
    for (let i = 0; i < n; i++) {
      t = performance.now();
      await (await fetch(origin + p, { headers })).arrayBuffer();
      ms.push(performance.now() - t);
    }
    ms.sort((x, y) => x - y);
    return { medianMs: +ms[Math.floor(n / 2)].toFixed(2), maxMs: +ms[n - 1].toFixed(2) };
  };
  const sequential = { big: await single(pathname), small1000: await single(pagePath('small')), medium25000: await single(pagePath('medium')) };

  const cannon = (o) => new Promise((resolve, reject) => autocannon({ connections: CONNECTIONS, duration: DURATION, url: origin + pathname, headers, ...o }, (e, r) => (e ? reject(e) : resolve(r))));
  await cannon({ duration: 2 });
  const cpuBefore = cpuMs(server.pid);
  const r = await cannon({});
  const secs = (new Date(r.finish) - new Date(r.start)) / 1000;
  const peak = {
    pagesPerSecond: Math.round(r.requests.total / secs), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts,
    // The server's CPU per page: steadier than latencies on a shared machine.
    cpuUsPerPage: Math.round(((cpuMs(server.pid) - cpuBefore) * 1000) / r.requests.total),
  };
  const half = await paced({ origin, rate: Math.max(1, Math.floor(peak.pagesPerSecond / 2)), duration: DURATION, plan: { kind: 'static', method: 'GET', path: pathname, headers } });
  const { loadavg } = await import('node:os');
  console.log(JSON.stringify({
    route: 'GET /engage/admin/environments/{env}/installations?size=100&after={id}', installations: count, seedSeconds, sequential, peak, halfPeakPaced: half,
    loadAverage: loadavg().map((x) => +x.toFixed(2)),
  }, null, 2));
  server.kill('SIGTERM');
  await new Promise((res) => server.once('exit', res));
  rmSync(dataDir, { recursive: true, force: true });
}

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

const cmd = args.bin ? [args.bin] : (process.env.BENCH_ENGAGE ?? `${process.execPath} --import tsx cmd/engage.ts`).split(' ');
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

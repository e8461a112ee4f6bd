/**
 * A directory read with the live permission check (issue 11 "Performance"): throughput and
 * latency of `GET {issuer}/identity/directory/roles?size=20` with a bearer token, and what the
 * permission check costs. Run:  node --import tsx bench/directory.mjs [--database-url postgres://…]
 *
 * 1. Over HTTP against `engage serve`: a closed-loop peak (autocannon, BENCH_CONNECTIONS
 *    connections, BENCH_DURATION seconds) with the server's CPU time per request (/proc), then
 *    an open-loop paced run at half the peak (bench/lib/paced.mjs) for p50/p99.
 * 2. In process, the check itself N times in a row: the cached answer (what a request pays:
 *    a lookup while the directory version stands still) and the indexed four-table join the cache
 *    saves; each also as a share of the server's CPU time per request of step 1.
 *
 * Env: BENCH_DURATION (10), BENCH_CONNECTIONS (32), BENCH_N (20000, calls per round of step 2),
 * BENCH_ENGAGE (server command, default "node --import tsx cmd/engage.ts"; e.g. "dist/engage").
 * Numbers measured while /work/BENCH_LOCK exists or the machine is busy are not final.
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
const N = Number(process.env.BENCH_N ?? 20000);
const PORT = 9741;
const CALLBACK = 'https://app.example.com/cb';

const { openAppStore } = await import('../src/open-store.ts');
const { SYSTEM_ACTOR } = await import('../src/identity/audit.ts');
const { loadConfig } = await import('../src/platform/config.ts');
const { systemClock } = await import('../src/platform/clock.ts');
const { silentLogger } = await import('../src/platform/logger.ts');
const { createServices } = await import('../src/services.ts');
const { createApp } = await import('../src/app.ts');
const { s256 } = await import('../src/platform/crypto.ts');
const { directoryUrl } = await import('../src/identity/directory/routes.ts');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dataDir = mkdtempSync(path.join(tmpdir(), 'engage-bench-directory-'));
const masterKey = randomBytes(32).toString('base64');
const origin = `http://127.0.0.1:${PORT}`;
const argUrl = process.argv.indexOf('--database-url');
const DATABASE_URL = argUrl > 0 ? process.argv[argUrl + 1] : process.env.BENCH_DATABASE_URL;
const env = { ...process.env, ENGAGE_DATA_DIR: dataDir, ENGAGE_MASTER_KEY: masterKey, ENGAGE_PUBLIC_URL: origin, ENGAGE_LOG_LEVEL: 'warn', ...(DATABASE_URL ? { ENGAGE_DATABASE_URL: DATABASE_URL } : {}) };
const config = loadConfig({ env });
const { store } = await openAppStore(config, { logger: silentLogger });
const services = createServices({ config, store, clock: systemClock, logger: silentLogger, masterKey: Buffer.from(masterKey, 'base64') });
await services.tenants.ensureControl();

// A tenant with a directory resource, a client, an administrator, 40 roles and some assignments.
const tenant = await services.tenants.create({ slug: 'bench' }, SYSTEM_ACTOR);
const url = directoryUrl(tenant.issuer);
await services.resources.create(tenant.id, { uri: url, audience: url, scopes: ['directory.read', 'directory.manage'] }, SYSTEM_ACTOR);
await services.clients.create(tenant.id, {
  clientId: 'console', displayName: 'Console', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
  redirectUris: [CALLBACK], scopes: ['openid', 'directory.read', 'directory.manage'], defaultResource: url,
}, SYSTEM_ACTOR);
const admin = await services.users.create(tenant.id, { email: 'admin@example.com', emailVerified: true }, SYSTEM_ACTOR);
const actor = { subject: 'bench', clientId: null };
await services.directory.grantAdministrator(tenant.id, admin.subject, ['directory.read', 'directory.manage'], actor);
for (let i = 0; i < 40; i++) await services.directory.createRole(tenant.id, { key: `role-${String(i).padStart(2, '0')}`, displayName: `Role ${i}`, scope: 'TENANT' }, actor);
for (let i = 0; i < 200; i++) {
  const u = await services.users.create(tenant.id, { email: `u${i}@example.com`, emailVerified: true }, SYSTEM_ACTOR);
  await services.directory.assignRole(tenant.id, { roleKey: `role-${String(i % 40).padStart(2, '0')}`, subject: u.subject, scope: 'TENANT', organizationId: null, teamId: null }, actor);
}
const verifier = randomBytes(32).toString('base64url');
const code = await services.oauth.issueAuthorizationCode({
  tenantId: tenant.id, clientId: 'console', userId: admin.id, redirectUri: CALLBACK, codeChallenge: s256(verifier), scope: ['directory.read'], resource: url, nonce: null, authTime: Math.floor(Date.now() / 1000),
});
const app = createApp({ config, clock: systemClock, logger: silentLogger, services });
const tokenRes = await app.request(`${tenant.issuer}/oauth2/token`, {
  method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: CALLBACK, client_id: 'console' }).toString(),
});
const { access_token: token } = await tokenRes.json();
const READ = `${url}/roles?size=20`;
const headers = { authorization: `Bearer ${token}` };
const check = await app.request(READ, { headers });
if (check.status !== 200) throw new Error(`directory read: ${check.status} ${await check.text()}`);

// ---- 2. in process: the check itself, N calls in a row, as a request makes it: the cached answer
// (the request's read snapshot already read the versions for the tenant lookup, so the directory
// version costs nothing more), and the indexed join the cache saves (every call a query).
async function perCall(fn) {
  for (let i = 0; i < 2000; i++) await fn();
  const samples = [];
  for (let round = 0; round < 7; round++) {
    store.shareReadsThisTurn();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) if (!(await fn())) throw new Error('permission missing');
    samples.push(Number(process.hrtime.bigint() - t0) / 1000 / N);
    await sleep(10);
  }
  return samples.sort((x, y) => x - y)[3];
}
const cached = await perCall(() => services.directory.hasPermission(tenant.id, admin.subject, 'directory.read'));
const query = await perCall(() => store.directory.hasPermission(tenant.id, admin.subject, 'directory.read'));

// ---- 1. over HTTP
function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}
const cmd = (process.env.BENCH_ENGAGE ?? `${process.execPath} --import tsx cmd/engage.ts`).split(' ');
const server = spawn(cmd[0], [...cmd.slice(1), 'serve', '--port', String(PORT)], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
try {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${origin}/readyz`)).ok) break;
    } catch {
      /* starting */
    }
    await sleep(100);
  }
  const cannon = (o) => new Promise((res, rej) => autocannon({ url: READ, headers, connections: CONNECTIONS, duration: DURATION, ...o }, (e, r) => (e ? rej(e) : res(r))));
  await cannon({ duration: 2 });
  const before = cpuMs(server.pid);
  const peak = await cannon({});
  const cpuUs = ((cpuMs(server.pid) - before) * 1000) / peak.requests.total;
  const rps = Math.round(peak.requests.total / DURATION);
  await sleep(1000);
  const u = new URL(READ);
  const half = await paced({ origin: u.origin, rate: Math.max(1, Math.floor(rps / 2)), duration: DURATION, plan: { kind: 'static', method: 'GET', path: u.pathname + u.search, headers } });
  const us = (x) => `${x.toFixed(1)} µs`;
  console.log(JSON.stringify({
    engine: DATABASE_URL ? 'postgres' : 'sqlite',
    http: { peakRps: rps, peakNon2xx: peak.non2xx, serverCpuPerRequest: us(cpuUs), halfPeak: { rate: half.rate, p50ms: half.p50, p99ms: half.p99, non2xx: half.non2xx, errors: half.errors } },
    check: {
      cachedPerCall: us(cached), queryPerCall: us(query),
      cachedShareOfServerCpu: `${((cached / cpuUs) * 100).toFixed(1)}%`, queryShareOfServerCpu: `${((query / cpuUs) * 100).toFixed(1)}%`,
    },
  }, null, 2));
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}

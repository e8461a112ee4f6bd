/**
 * OAuth throughput and latency: engage against node-oidc-provider (bench/oidc-provider-peer.mjs),
 * same machine, same run, same flows. Run:  node --import tsx bench/oauth.mjs
 *
 * Each peak run also reports the server's CPU time per request (/proc), steadier than req/s on
 * a machine shared with the load generator.
 *
 * Flows (public client, PKCE, resource indicator → RS256 JWT access tokens):
 *   refresh     grant_type=refresh_token; every answer = RS256 ID token + JWT access token +
 *               rotated refresh token (engage: rotation committed to SQLite before the 200)
 *   code        grant_type=authorization_code on pre-seeded codes; same three tokens
 *   introspect  POST /introspect with a resource-server Basic credential
 *   userinfo    GET userinfo with a bearer token
 * For each: peak (autocannon, BENCH_CONNECTIONS connections, BENCH_DURATION seconds), then a
 * fixed rate of half the peak (autocannon overallRate) for latency.
 *
 * Env: BENCH_DURATION (10), BENCH_CONNECTIONS (32), BENCH_ENGAGE (command for the server, default
 * "node --import tsx cmd/engage.ts"; e.g. "dist/engage"), BENCH_ONLY (comma list of flows), BENCH_SERVERS
 * (comma list of engage,oidc-provider),
 * BENCH_SIGN_INLINE=1 (also measure engage refresh with signing on the event loop),
 * BENCH_ACCESS_LOG=compare (issue 23: the cost of the access log. Two engage processes on the same
 * database, both at log level info writing to a file, one with --no-access-log; they are the
 * servers measured, flow by flow, in the same run; the peer is not measured).
 */
import autocannon from 'autocannon';
import { fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { paced as pacedRun } from './lib/paced.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ONLY = process.env.BENCH_ONLY?.split(',');
/** The servers measured (BENCH_SERVERS=engage skips the peer's runs, for a same-run comparison of two engage builds). */
const ACCESS_COMPARE = process.env.BENCH_ACCESS_LOG === 'compare';
const QUIET = 'engage --no-access-log';
const SERVERS = ACCESS_COMPARE ? ['engage', QUIET] : (process.env.BENCH_SERVERS?.split(',') ?? ['engage', 'oidc-provider']);
const API = 'https://api.example.com';
const CALLBACK = 'https://app.example.com/cb';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const ENGAGE_PORT = 9731;
const PEER_PORT = 9732;
const QUIET_PORT = 9733;

const { openAppStore } = await import('../src/open-store.ts');
const { SYSTEM_ACTOR } = await import('../src/identity/audit.ts');
const { loadConfig } = await import('../src/platform/config.ts');
const { systemClock } = await import('../src/platform/clock.ts');
const { silentLogger } = await import('../src/platform/logger.ts');
const { createServices } = await import('../src/services.ts');
const { s256 } = await import('../src/platform/crypto.ts');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const basic = (id, secret) => 'Basic ' + Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64');
const form = (o) => new URLSearchParams(o).toString();

// ---------------------------------------------------------------- engage
const dataDir = mkdtempSync(path.join(tmpdir(), 'engage-bench-'));
const masterKey = randomBytes(32).toString('base64');
const engageUrl = `http://127.0.0.1:${ENGAGE_PORT}`;
// --database-url postgres://… (or BENCH_DATABASE_URL): engage on PostgreSQL (an empty database).
const argUrl = process.argv.indexOf('--database-url');
const DATABASE_URL = argUrl > 0 ? process.argv[argUrl + 1] : process.env.BENCH_DATABASE_URL;
const env = {
  ...process.env, ENGAGE_DATA_DIR: dataDir, ENGAGE_MASTER_KEY: masterKey, ENGAGE_PUBLIC_URL: engageUrl,
  ENGAGE_LOG_LEVEL: ACCESS_COMPARE ? 'info' : 'warn', ENGAGE_AUTHORIZATION_CODE_TTL: '600', ...(DATABASE_URL ? { ENGAGE_DATABASE_URL: DATABASE_URL } : {}),
};
const config = loadConfig({ env });
const { store } = await openAppStore(config, { logger: silentLogger });
const services = createServices({ config, store, clock: systemClock, logger: silentLogger, masterKey: Buffer.from(masterKey, 'base64') });
await services.tenants.ensureControl();
const tenant = await services.tenants.create({ slug: 'bench' }, SYSTEM_ACTOR);
await services.resources.create(tenant.id, { uri: API, audience: 'urn:example:api', scopes: ['api.read'] }, SYSTEM_ACTOR);
await services.clients.create(tenant.id, {
  clientId: 'mobile', displayName: 'Bench', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
  redirectUris: [CALLBACK], scopes: ['openid', 'email', 'offline_access', 'api.read'], defaultResource: API,
}, SYSTEM_ACTOR);
const user = await services.users.create(tenant.id, { email: 'ada@example.com', emailVerified: true, password: 'correct horse battery' }, SYSTEM_ACTOR);
const cred = await services.credentials.issue(tenant.id, API, SYSTEM_ACTOR);

async function engageCodes(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const verifier = randomBytes(32).toString('base64url');
    const code = await services.oauth.issueAuthorizationCode({
      tenantId: tenant.id, clientId: 'mobile', userId: user.id, redirectUri: CALLBACK, codeChallenge: s256(verifier),
      scope: ['openid', 'email', 'offline_access', 'api.read'], resource: API, nonce: 'n-0S6_WzA2Mj', authTime: Math.floor(Date.now() / 1000),
    });
    out.push({ code, verifier });
  }
  return out;
}

/** With `logFile`, the server's output goes to that file (as under a service manager), not to the terminal. */
function startEngage(extraEnv = {}, port = ENGAGE_PORT, logFile) {
  const cmd = (process.env.BENCH_ENGAGE ?? `${process.execPath} --import tsx cmd/engage.ts`).split(' ');
  const fd = logFile ? openSync(logFile, 'a') : undefined;
  const out = fd ?? 'inherit';
  const child = spawn(cmd[0], [...cmd.slice(1), 'serve', '--port', String(port)], { cwd: ROOT, env: { ...env, ...extraEnv }, stdio: ['ignore', out, out] });
  if (fd !== undefined) closeSync(fd);
  return child;
}
const logFiles = { engage: path.join(dataDir, 'engage.log'), [QUIET]: path.join(dataDir, 'engage-no-access-log.log') };

async function waitFor(url) {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not yet */
    }
    await sleep(100);
  }
  throw new Error(`server at ${url} did not start`);
}

// ---------------------------------------------------------------- peer
const peer = fork(path.join(ROOT, 'bench/oidc-provider-peer.mjs'), {
  env: { ...process.env, PEER_PORT: String(PEER_PORT) },
  execArgv: [...process.execArgv, '--expose-gc'],
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
let seq = 0;
const askPeer = (m) =>
  new Promise((resolve) => {
    const id = ++seq;
    const h = (x) => {
      if (x.id === id) {
        peer.off('message', h);
        resolve(x);
      }
    };
    peer.on('message', h);
    peer.send({ ...m, id });
  });
const peerUrl = `http://127.0.0.1:${PEER_PORT}`;

// Both this process and the peer hold hundreds of MB of seeded codes and tokens. Left alone,
// V8 collects that garbage (on both cores) at moments of its choosing, such as the first idle
// seconds of the other server's latency run; it is collected before each run instead.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc');
async function quiesce() {
  collectGarbage();
  await askPeer({ cmd: 'gc' });
  await sleep(200);
}
/** The paced latency run, started on a quiet machine. */
async function paced(opts) {
  await quiesce();
  return pacedRun(opts);
}

// ---------------------------------------------------------------- targets
const targets = {
  engage: {
    token: `${engageUrl}/t/bench/oauth2/token`,
    introspect: `${engageUrl}/t/bench/oauth2/introspect`,
    userinfo: `${engageUrl}/t/bench/oauth2/userinfo`,
    rsAuth: basic(cred.credentialId, cred.credentialSecret),
    codes: (n) => engageCodes(n),
    resourceParam: {},
  },
  [QUIET]: {
    token: `http://127.0.0.1:${QUIET_PORT}/t/bench/oauth2/token`,
    introspect: `http://127.0.0.1:${QUIET_PORT}/t/bench/oauth2/introspect`,
    userinfo: `http://127.0.0.1:${QUIET_PORT}/t/bench/oauth2/userinfo`,
    rsAuth: basic(cred.credentialId, cred.credentialSecret),
    codes: (n) => engageCodes(n),
    resourceParam: {},
  },
  'oidc-provider': {
    token: `${peerUrl}/token`,
    introspect: `${peerUrl}/token/introspection`,
    userinfo: `${peerUrl}/me`,
    rsAuth: basic('rs', 'rs-secret-'.padEnd(43, 'x')),
    codes: async (n, withResource = true) => {
      const out = [];
      for (let i = 0; i < n; i += 2000) out.push(...(await askPeer({ cmd: 'codes', n: Math.min(2000, n - i), withResource })).codes);
      return out;
    },
    resourceParam: { resource: API },
  },
};

async function exchangeAll(t, codes, extra = t.resourceParam) {
  const out = [];
  for (const c of codes) {
    const res = await fetch(t.token, { method: 'POST', headers: FORM, body: form({ grant_type: 'authorization_code', client_id: 'mobile', code: c.code, code_verifier: c.verifier, redirect_uri: CALLBACK, ...extra }) });
    if (res.status !== 200) throw new Error(`seed exchange failed: ${res.status} ${await res.text()}`);
    out.push(await res.json());
  }
  return out;
}

function cannon(opts) {
  return new Promise((resolve, reject) => {
    const o = { connections: CONNECTIONS, duration: DURATION, ...opts };
    for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
    autocannon(o, (err, r) => (err ? reject(err) : resolve(r)));
  });
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
const CLOCK_TICKS = 100; // USER_HZ on Linux

/**
 * The closed-loop peak run, with the server's CPU time per request: unlike req/s, it does not
 * depend on how much of the machine the load generator and the other programs left to the server.
 */
async function peakRun(opts) {
  const before = cpuMs(serverPid);
  const peak = summarize(await cannon(opts));
  peak.cpuUs = Math.round(((cpuMs(serverPid) - before) * 1000) / peak.total);
  return peak;
}

function summarize(r) {
  const secs = (new Date(r.finish) - new Date(r.start)) / 1000;
  return { rps: Math.round(r.requests.total / secs), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts, total: r.requests.total };
}

/** A request that takes a refresh token from the pool and puts the rotated one back. */
function refreshRequests(t, pool) {
  return [{
    method: 'POST', path: new URL(t.token).pathname, headers: FORM,
    setupRequest: (req) => ({ ...req, body: form({ grant_type: 'refresh_token', client_id: 'mobile', refresh_token: pool.shift() }) }),
    onResponse: (status, body) => {
      if (status === 200) pool.push(JSON.parse(body).refresh_token);
    },
  }];
}

function codeRequests(t, codes) {
  let i = 0;
  return [{
    method: 'POST', path: new URL(t.token).pathname, headers: FORM,
    setupRequest: (req) => {
      const c = codes[i++ % codes.length];
      return { ...req, body: form({ grant_type: 'authorization_code', client_id: 'mobile', code: c.code, code_verifier: c.verifier, redirect_uri: CALLBACK, ...t.resourceParam }) };
    },
  }];
}

/** Warm-up, closed-loop peak, then half the peak with autocannon's rate and paced, for one fixed request. */
async function staticLoad(req) {
  await cannon({ ...req, duration: 2 });
  const peak = await peakRun(req);
  const rate = Math.max(1, Math.floor(peak.rps / 2));
  const half = summarize(await cannon({ ...req, overallRate: rate }));
  const u = new URL(req.url);
  const even = await paced({ origin: u.origin, rate, duration: DURATION, plan: { kind: 'static', method: req.method, path: u.pathname, headers: req.headers, body: req.body } });
  return { peak, half, even };
}

const FLOWS = {
  async refresh(name, t) {
    const seed = await exchangeAll(t, await t.codes(CONNECTIONS * 3));
    const pool = seed.map((x) => x.refresh_token);
    await cannon({ url: t.token, requests: refreshRequests(t, pool), duration: 2 });
    const peak = await peakRun({ url: t.token, requests: refreshRequests(t, pool) });
    const half = summarize(await cannon({ url: t.token, requests: refreshRequests(t, pool), overallRate: Math.max(1, Math.floor(peak.rps / 2)) }));
    // autocannon builds requests ahead and drops them at the end: a fresh pool for the paced run.
    const pool2 = (await exchangeAll(t, await t.codes(CONNECTIONS * 3))).map((x) => x.refresh_token);
    const even = await paced({
      origin: new URL(t.token).origin, rate: Math.max(1, Math.floor(peak.rps / 2)), duration: DURATION,
      plan: { kind: 'refresh', path: new URL(t.token).pathname, headers: FORM, clientId: 'mobile', pool: pool2 },
    });
    return { peak, half, even };
  },
  async code(name, t, peakHint) {
    // Enough codes for the whole run at a generous upper bound, consumed once each (`amount`).
    const n = Math.ceil((peakHint ?? 3000) * DURATION * 1.3);
    const codes = await t.codes(n);
    const peak = await peakRun({ url: t.token, requests: codeRequests(t, codes), amount: codes.length, duration: undefined });
    const codes2 = await t.codes(Math.ceil((peak.rps / 2) * DURATION * 1.2) + CONNECTIONS); // autocannon overshoots its rate a little
    const half = summarize(await cannon({ url: t.token, requests: codeRequests(t, codes2), overallRate: Math.max(1, Math.floor(peak.rps / 2)) }));
    const codes3 = await t.codes(Math.ceil(peak.rps / 2) * DURATION + CONNECTIONS);
    const even = await paced({
      origin: new URL(t.token).origin, rate: Math.max(1, Math.floor(peak.rps / 2)), duration: DURATION,
      plan: {
        kind: 'list', method: 'POST', path: new URL(t.token).pathname, headers: FORM,
        bodies: codes3.map((c) => form({ grant_type: 'authorization_code', client_id: 'mobile', code: c.code, code_verifier: c.verifier, redirect_uri: CALLBACK, ...t.resourceParam })),
      },
    });
    return { peak, half, even };
  },
  async introspect(name, t) {
    // oidc-provider introspects only the tokens it stores: its JWT access tokens are not
    // introspectable, so the peer gets an opaque token (no resource); engage its JWT.
    const [tok] = name.startsWith('engage') ? await exchangeAll(t, await t.codes(1)) : await exchangeAll(t, await t.codes(1, false), {});
    const req = { url: t.introspect, method: 'POST', headers: { ...FORM, authorization: t.rsAuth }, body: form({ token: tok.access_token }) };
    const check = await fetch(req.url, { method: 'POST', headers: req.headers, body: req.body }).then((r) => r.json());
    if (check.active !== true) throw new Error(`${name}: token not active at introspection`);
    return staticLoad(req);
  },
  async userinfo(name, t) {
    // oidc-provider's userinfo accepts only its opaque (non-resource) access tokens.
    const [tok] = name.startsWith('engage') ? await exchangeAll(t, await t.codes(1)) : await exchangeAll(t, await t.codes(1, false), {});
    const req = { url: t.userinfo, method: 'GET', headers: { authorization: `Bearer ${tok.access_token}` } };
    if ((await fetch(req.url, { headers: req.headers })).status !== 200) throw new Error(`${name}: userinfo rejected the token`);
    return staticLoad(req);
  },
};

// ---------------------------------------------------------------- run
const results = [];
let engage = startEngage({}, ENGAGE_PORT, ACCESS_COMPARE ? logFiles.engage : undefined);
const quiet = ACCESS_COMPARE ? startEngage({ ENGAGE_ACCESS_LOG: 'false' }, QUIET_PORT, logFiles[QUIET]) : undefined;
/** The process whose CPU time peakRun measures: the server under test. */
let serverPid;
try {
  await waitFor(`${engageUrl}/healthz`);
  if (quiet) await waitFor(`http://127.0.0.1:${QUIET_PORT}/healthz`);
  await new Promise((r) => peer.once('message', r));
  for (const [i, flow] of Object.keys(FLOWS).entries()) {
    if (ONLY && !ONLY.includes(flow)) continue;
    // Comparing two engage processes: which goes first alternates from flow to flow.
    for (const name of ACCESS_COMPARE && i % 2 ? [...SERVERS].reverse() : SERVERS) {
      await quiesce();
      serverPid = name === 'engage' ? engage.pid : name === QUIET ? quiet.pid : peer.pid;
      const r = await FLOWS[flow](name, targets[name], results.find((x) => x.flow === 'refresh' && x.name === name)?.peak.rps);
      results.push({ flow, name, ...r });
      console.error(`${flow.padEnd(10)} ${name.padEnd(14)} peak ${r.peak.rps}/s (${r.peak.cpuUs} µs CPU/req) p50 ${r.peak.p50} ms p99 ${r.peak.p99} ms | at ${Math.floor(r.peak.rps / 2)}/s: autocannon p50 ${r.half.p50} ms p99 ${r.half.p99} ms, paced p50 ${r.even.p50} ms p99 ${r.even.p99} ms (non-2xx ${r.peak.non2xx + r.half.non2xx + r.even.non2xx}, errors ${r.peak.errors + r.half.errors + r.even.errors}, skipped ${r.even.skipped})`);
    }
  }
  if (process.env.BENCH_SIGN_INLINE === '1' && (!ONLY || ONLY.includes('refresh'))) {
    engage.kill('SIGTERM');
    await sleep(500);
    engage = startEngage({ ENGAGE_SIGN_INLINE: '1' });
    serverPid = engage.pid;
    await waitFor(`${engageUrl}/healthz`);
    const r = await FLOWS.refresh('engage', targets.engage);
    results.push({ flow: 'refresh (signing on the event loop)', name: 'engage', ...r });
    console.error(`refresh, inline signing: peak ${r.peak.rps}/s p99 ${r.peak.p99} ms | half p99 ${r.half.p99} ms`);
  }
} finally {
  engage.kill('SIGTERM');
  quiet?.kill('SIGTERM');
  peer.send({ cmd: 'stop' });
  await store.close();
  await sleep(300);
  if (ACCESS_COMPARE) {
    for (const [name, file] of Object.entries(logFiles)) {
      const text = readFileSync(file, 'utf8');
      const lines = text.split('\n').filter((l) => l.includes('"msg":"request"')).length;
      console.log(`${name}: ${lines} access lines, ${statSync(file).size} bytes of log`);
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
}

console.log(`\n${cpus().length} × ${cpus()[0].model}, Node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s per run\n`);
console.log('| flow | server | peak req/s | server CPU µs/req | p50 ms | p99 ms | half-peak rate | autocannon rate p50 / p99 ms | paced p50 / p99 ms | non-2xx |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  const even = r.even ? `${r.even.p50} / ${r.even.p99}` : '-';
  console.log(`| ${r.flow} | ${r.name} | ${r.peak.rps} | ${r.peak.cpuUs} | ${r.peak.p50} | ${r.peak.p99} | ${Math.floor(r.peak.rps / 2)}/s | ${r.half.p50} / ${r.half.p99} | ${even} | ${r.peak.non2xx + r.half.non2xx + (r.even?.non2xx ?? 0)} |`);
}
for (const flow of [...new Set(results.map((r) => r.flow))]) {
  const e = results.find((r) => r.flow === flow && r.name === 'engage');
  const p = results.find((r) => r.flow === flow && r.name === 'oidc-provider');
  if (e && p) console.log(`${flow}: engage / oidc-provider = ${(e.peak.rps / p.peak.rps).toFixed(2)}×`);
  const q = results.find((r) => r.flow === flow && r.name === QUIET);
  if (e && q) console.log(`${flow}: access log on / off = ${(e.peak.rps / q.peak.rps).toFixed(2)}× peak req/s, ${e.peak.cpuUs - q.peak.cpuUs} µs CPU/req`);
}

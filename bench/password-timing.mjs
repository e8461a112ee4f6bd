/**
 * The time of a wrong password (issue 21 point 4): `users.verifyPassword` in process, for an
 * unknown email, a native account and an imported account not yet re-hashed (bcrypt of cost 10,
 * Auth0's), in a tenant holding imported hashes; and for an unknown email and a native account
 * in a tenant holding none. Rounds interleave the cases so the machine's drift hits them alike.
 * "before" emulates the code before the change from the same derivations: an unknown email was
 * one argon2id verification, an imported account its bcrypt and then a dummy argon2id.
 *
 * Run:  node --import tsx bench/password-timing.mjs [--rounds 40] [--database-url postgres://…]
 * Numbers measured while /work/BENCH_LOCK exists or the machine is busy are not final.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '40' }, 'database-url': { type: 'string' } } });
const ROUNDS = Number(args.rounds);

const { openAppStore } = await import('../src/open-store.ts');
const { SYSTEM_ACTOR } = await import('../src/identity/audit.ts');
const { loadConfig } = await import('../src/platform/config.ts');
const { systemClock } = await import('../src/platform/clock.ts');
const { silentLogger } = await import('../src/platform/logger.ts');
const { createServices } = await import('../src/services.ts');
const { loadArgon2 } = await import('../src/platform/native.ts');
const { verifyImportedHash } = await import('../src/identity/transfer/hashes/index.ts');
const { PASSWORD_HASH_OPTIONS } = await import('../src/identity/users/service.ts');

const dataDir = mkdtempSync(path.join(tmpdir(), 'engage-bench-password-'));
const masterKey = randomBytes(32);
const config = loadConfig({ flags: { dataDir, publicUrl: 'http://127.0.0.1:9', databaseUrl: args['database-url'] } });
const { store } = await openAppStore(config, { logger: silentLogger });
const services = createServices({ config, store, clock: systemClock, logger: silentLogger, masterKey });
await services.tenants.ensureControl();

const ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const bcrypt10 = () => '$2b$10$' + Array.from(randomBytes(53), (b) => ALPHABET[b % 64]).join('');

const imports = await services.tenants.create({ slug: 'imports' }, SYSTEM_ACTOR);
const plain = await services.tenants.create({ slug: 'plain' }, SYSTEM_ACTOR);
for (const t of [imports, plain]) await services.users.create(t.id, { email: 'native@example.com', password: 'the native password' }, SYSTEM_ACTOR);
const records = Array.from({ length: 100 }, (_, i) => ({ position: i, record: { externalId: `a${i}`, email: `imported${i}@example.com`, emailVerified: true, active: true, password: { hash: bcrypt10() } } }));
await services.transfer.importer.importBatch(imports.id, 'auth0', 'CREATE_ONLY', records, { existing: 'fail' });

const dummy = await loadArgon2().hash('a dummy password', PASSWORD_HASH_OPTIONS);
const sample = records[0].record.password.hash;
const cases = {
  'imports: unknown email': () => services.users.verifyPassword(imports.id, 'nobody@example.com', 'a guess'),
  'imports: native account': () => services.users.verifyPassword(imports.id, 'native@example.com', 'a guess'),
  'imports: imported account (bcrypt 10)': () => services.users.verifyPassword(imports.id, 'imported1@example.com', 'a guess'),
  'no imports: unknown email': () => services.users.verifyPassword(plain.id, 'nobody@example.com', 'a guess'),
  'no imports: native account': () => services.users.verifyPassword(plain.id, 'native@example.com', 'a guess'),
  'before: unknown email (argon2id)': () => loadArgon2().verify(dummy, 'a guess'),
  'before: imported account (bcrypt 10, then argon2id)': async () => {
    await verifyImportedHash(sample, 'a guess');
    await loadArgon2().verify(dummy, 'a guess');
  },
};

const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (const run of Object.values(cases)) await run(); // warm up
for (let i = 0; i < ROUNDS; i++) {
  for (const [name, run] of Object.entries(cases)) {
    const t0 = performance.now();
    await run();
    times[name].push(performance.now() - t0);
  }
}

const at = (xs, q) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))];
console.log(`engine ${args['database-url'] ? 'postgres' : 'sqlite'}, ${ROUNDS} rounds; ms per wrong password`);
console.log('| case | p10 | median | p90 |');
console.log('|---|---|---|---|');
for (const [name, xs] of Object.entries(times)) {
  xs.sort((a, b) => a - b);
  console.log(`| ${name} | ${at(xs, 0.1).toFixed(1)} | ${at(xs, 0.5).toFixed(1)} | ${at(xs, 0.9).toFixed(1)} |`);
}
await store.close();
rmSync(dataDir, { recursive: true, force: true });

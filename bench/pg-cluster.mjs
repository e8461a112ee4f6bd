// A throwaway PostgreSQL cluster for the benchmarks (the tests' helper, test/helpers/pg-cluster.ts,
// with PostgreSQL's default durability: fsync and synchronous commit on, as in production):
// prints its URL and a fresh database's URL, stops and removes itself on SIGTERM or SIGINT.
// Usage: node --import tsx bench/pg-cluster.mjs & ... ; kill %1
const { startPgCluster } = await import('../test/helpers/pg-cluster.ts');
const pg = (await import('pg')).default;

const cluster = await startPgCluster({ durable: true });
const names = (process.argv[2] ?? 'bench').split(',');
const admin = new pg.Client({ connectionString: cluster.url });
await admin.connect();
for (const name of names) await admin.query(`CREATE DATABASE ${name}`);
await admin.end();
for (const name of names) {
  const u = new URL(cluster.url);
  u.pathname = `/${name}`;
  console.log(u.toString());
}
const stop = async () => {
  await cluster.stop();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
setInterval(() => {}, 1 << 30);

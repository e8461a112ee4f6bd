import pg from 'pg';
import { randomBytes, createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
const url = process.argv[2];
const variant = process.argv[3] ?? 'both';
const pool = new pg.Pool({ connectionString: url, max: 20 });
const pgCpu = () => { let t = 0; for (const p of readdirSync('/proc')) { if (!/^\d+$/.test(p)) continue; try { const s = readFileSync(`/proc/${p}/stat`, 'utf8'); if (!s.includes('(postgres)')) continue; const f = s.slice(s.lastIndexOf(')') + 2).split(' '); t += +f[11] + +f[12]; } catch {} } return t * 10000; };
const { rows } = await pool.query(`SELECT token_digest, tenant_id, grant_id, client_id, scope FROM refresh_tokens WHERE rotated_at IS NULL AND revoked_at IS NULL`);
const toks = rows.map((r) => r.token_digest);
const base = rows[0];
const find = `SELECT t.token_digest AS "tokenDigest", t.tenant_id AS "tenantId", t.grant_id AS "grantId", t.client_id AS "clientId", t.scope,
      t.expires_at AS "expiresAt", t.created_at AS "createdAt", t.rotated_at AS "rotatedAt", t.replaced_by AS "replacedBy", t.revoked_at AS "revokedAt",
      g.revoked_at AS "grantRevokedAt", g.expires_at AS "grantExpiresAt", g.resource, g.auth_time AS "authTime", g.user_id AS "userId",
      u.subject, u.email, u.email_verified AS "emailVerified", u.status AS "userStatus"
    FROM refresh_tokens t JOIN grants g ON g.id = t.grant_id JOIN users u ON u.id = g.user_id
    WHERE t.tenant_id = $1 AND t.token_digest = $2`;
const cte = `WITH r AS (
      UPDATE refresh_tokens SET rotated_at = $1, replaced_by = $2
      WHERE tenant_id = $3 AND token_digest = $4 AND rotated_at IS NULL AND revoked_at IS NULL RETURNING grant_id, client_id, scope
    )
    INSERT INTO refresh_tokens (token_digest, tenant_id, grant_id, client_id, scope, expires_at, created_at)
    SELECT $2, $3, grant_id, client_id, scope, $5::bigint, $1::bigint FROM r`;
const m = new Map(rows.map((r) => [r.token_digest, r]));
async function op(d: string, n: string) {
  if (variant !== 'cte') await pool.query({ name: 'f', text: find, values: [base.tenant_id, d] });
  const now = Math.floor(Date.now() / 1000);
  return (await pool.query({ name: 'c', text: cte, values: [now, n, base.tenant_id, d, now + 86400 * 30] })).rowCount === 1;
}
for (let k = 0; k < 2; k++) {
  let done = 0; const end = Date.now() + 4000;
  const t0 = process.cpuUsage(); const p0 = pgCpu();
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (Date.now() < end) { const d = toks.shift()!; if (!d) { await new Promise((r) => setTimeout(r, 1)); continue; } const n = randomBytes(32).toString('hex'); if (!(await op(d, n))) throw new Error('x'); toks.push(n); done++; }
  }));
  const cu = process.cpuUsage(t0);
  console.log(variant, done / 4, 'per s; node µs/op', Math.round((cu.user + cu.system) / done), 'pg µs/op', Math.round((pgCpu() - p0) / done));
}
await pool.end();

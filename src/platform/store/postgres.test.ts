import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from '../../../test/helpers/pg-cluster';
import { createPostgresSql, isConnectionLost, openPostgres, parseDatabaseUrl, redactUrl, scrubError, translatePlaceholders, type Pg } from './postgres';

describe('placeholders', () => {
  it('numbers ? in order and each distinct @name once', () => {
    expect(translatePlaceholders('SELECT * FROM t WHERE a = ? AND b = ?').text).toBe('SELECT * FROM t WHERE a = $1 AND b = $2');
    const t = translatePlaceholders('UPDATE t SET o = @owner WHERE n = @name AND (o IS NULL OR o = @owner)');
    expect(t.text).toBe('UPDATE t SET o = $1 WHERE n = $2 AND (o IS NULL OR o = $1)');
    expect(t.names).toEqual(['owner', 'name']);
  });

  it('leaves literals, quoted identifiers and comments alone', () => {
    const t = translatePlaceholders(`SELECT '?', 'it''s @x ?', "a?b" -- what? @y\nFROM t WHERE x = ?`);
    expect(t.text).toBe(`SELECT '?', 'it''s @x ?', "a?b" -- what? @y\nFROM t WHERE x = $1`);
    expect(t.count).toBe(1);
  });

  it('refuses mixed forms', () => {
    expect(() => translatePlaceholders('SELECT ? , @a')).toThrow(/mixes/);
  });

  it('names each statement after its text: the same name for the same text only', () => {
    const a = translatePlaceholders('SELECT * FROM t WHERE a = ?');
    expect(a.name).toMatch(/^engage_[A-Za-z0-9_-]{20}$/);
    expect(translatePlaceholders('SELECT * FROM t WHERE a = ?').name).toBe(a.name);
    expect(translatePlaceholders('SELECT * FROM t WHERE b = ?').name).not.toBe(a.name);
  });
});

describe('errors', () => {
  it('scrubs a password, plain or URL-encoded, out of message and stack', () => {
    const e = new Error('failed for postgres://u:p@ss w0rd@h and p%40ss%20w0rd');
    scrubError(e, 'p@ss w0rd');
    expect(e.message).toBe('failed for postgres://u:***@h and ***');
    expect(e.stack).not.toContain('w0rd');
    expect(scrubError('text', 'x')).toBe('text');
  });

  it('tells a lost connection from a failed statement', () => {
    expect(isConnectionLost(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isConnectionLost(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLost(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isConnectionLost(new Error('x', { cause: Object.assign(new Error('y'), { code: '08006' }) }))).toBe(true);
    expect(isConnectionLost(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isConnectionLost(new Error('boom'))).toBe(false);
    expect(isConnectionLost(undefined, { _queryable: false })).toBe(true);
  });
});

describe('database URLs', () => {
  it('redacts the password', () => {
    expect(redactUrl('postgres://u:s3cret@h:5432/db?sslmode=require')).toBe('postgres://u:***@h:5432/db?sslmode=require');
    expect(redactUrl('postgres://u:s3cret@h/db?password=s3cret')).not.toContain('s3cret');
    expect(redactUrl('postgres://u:s3c ret@[bad/db')).not.toContain('s3c ret');
  });

  it('rejects other schemes and non-URLs without echoing the password', () => {
    expect(() => parseDatabaseUrl('mysql://u:s3cret@h/db')).toThrow(/postgres:\/\//);
    for (const bad of ['mysql://u:s3cret@h/db', 'postgres://u:s3cret@[::1/db', 'not a url s3cret']) {
      try {
        parseDatabaseUrl(bad);
        expect.unreachable();
      } catch (e) {
        expect(inspect(e)).not.toContain('s3cret');
      }
    }
  });
});

const skip = pgUnavailableReason();
if (skip) console.warn(skip);

describe.skipIf(skip !== undefined)('createPostgresSql', () => {
  let db: TestDatabase;
  let pg: Pg;
  beforeAll(async () => {
    db = await createTestDatabase();
    pg = openPostgres(db.url, { max: 4 });
    await pg.query('CREATE TABLE t (id bigint PRIMARY KEY, name text, n bigint, x numeric)');
  }, 60_000);
  afterAll(async () => {
    await pg?.end({ timeout: 5 });
    await db?.drop();
  });

  it('runs both placeholder forms, counts affected rows, reads numbers and nulls', async () => {
    const sql = createPostgresSql(pg);
    expect(sql.dialect).toBe('postgres');
    expect(await sql.run('INSERT INTO t (id, name, n) VALUES (?, ?, ?), (?, ?, ?)', [1, 'a', 1_700_000_000_000, 2, null, 0])).toBe(2);
    expect(await sql.run('INSERT INTO t (id, name, n) VALUES (@id, @name, @n) ON CONFLICT (id) DO NOTHING', { id: 1, name: 'z', n: 1 })).toBe(0);
    expect(await sql.run('UPDATE t SET x = @x WHERE id = @id OR id = @id + 1', { id: 1, x: 2.5 })).toBe(2);
    expect(await sql.get('SELECT id, name, n, x FROM t WHERE id = ?', [1])).toEqual({ id: 1, name: 'a', n: 1_700_000_000_000, x: 2.5 });
    expect(await sql.get('SELECT name FROM t WHERE id = @id', { id: 2 })).toEqual({ name: null });
    expect(await sql.get('SELECT count(*) AS "count", sum(n) AS "total" FROM t')).toEqual({ count: 2, total: 1_700_000_000_000 });
    expect(await sql.get('SELECT id FROM t WHERE id = ?', [99])).toBeUndefined();
    expect(await sql.all<{ id: number }>('SELECT id FROM t ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await sql.run('DELETE FROM t WHERE id = ANY(?)', [[1, 2]])).toBe(2);
  });

  it('refuses a missing named parameter or a wrong count', async () => {
    const sql = createPostgresSql(pg);
    await expect(sql.get('SELECT @a::int AS a', {})).rejects.toThrow(/@a/);
    await expect(sql.get('SELECT ?::int AS a', [])).rejects.toThrow(/1 parameter/);
  });

  it('never shows the password: not in the pool, its clients, nor a connection error', async () => {
    const password = new URL(db.url).password;
    expect(password.length).toBeGreaterThan(8);
    // With connections open and idle in the pool, and one checked out.
    await Promise.all([1, 2, 3].map(() => pg.query('SELECT pg_sleep(0.01)')));
    const client = await pg.connect();
    try {
      for (const o of [pg, pg.options, client]) {
        expect(inspect(o, { depth: 8 })).not.toContain(password);
        expect(inspect(o, { depth: 8, showHidden: false })).not.toContain(encodeURIComponent(password));
      }
    } finally {
      client.release();
    }
    // A password given as a `password` parameter is taken out of the URL as well.
    const asParam = new URL(db.url);
    asParam.password = '';
    asParam.searchParams.set('password', password);
    const p2 = openPostgres(asParam.toString(), { max: 1 });
    expect((await p2.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(inspect(p2, { depth: 8 })).not.toContain(password);
    await p2.end();
    // The wrong password for a real user, and a port with nobody listening.
    const wrong = new URL(db.url);
    wrong.password = 'Wr0ngPa55word';
    const bad = openPostgres(wrong.toString(), { max: 1, connectTimeout: 3 });
    const e1 = await bad.query('SELECT 1').catch((e: unknown) => e);
    await bad.end({ timeout: 1 });
    expect(String((e1 as Error).message)).toMatch(/password authentication failed/);
    expect(inspect(e1, { depth: 6 }) + JSON.stringify(e1)).not.toContain('Wr0ngPa55word');
    const closed = new URL(db.url);
    closed.port = '1';
    const none = openPostgres(closed.toString(), { max: 1, connectTimeout: 3 });
    const e2 = await none.query('SELECT 1').catch((e: unknown) => e);
    await none.end({ timeout: 1 });
    expect(e2).toBeInstanceOf(Error);
    expect(inspect(e2, { depth: 6 }) + JSON.stringify(e2)).not.toContain(password);
  });
});

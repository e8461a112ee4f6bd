import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bootstrap, ingest, op, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { MAX_LIVE_KEYS } from './key-budget';

/**
 * The cap on distinct keys per installation and profile (key-budget.ts): an attribute or tag
 * operation that would make its owner hold more than MAX_LIVE_KEYS live keys of a kind is
 * REJECTED KEY_LIMIT_EXCEEDED, across batches and within one; updating a held key, removing,
 * and adding after a removal are not refused.
 */
let h: Harness;
let appKey: string;
beforeAll(async () => {
  h = await createHarness();
  appKey = (await setupEnvironment(h)).app.appKey;
}, 60_000);
afterAll(() => h.close());

let seq = 0;
/** Operations stamped one second apart (last-writer-wins is by occurredAt, then by operation id). */
const later = () => ({ occurredAt: new Date(Date.parse('2026-01-02T00:00:00Z') + ++seq * 1000).toISOString() });
const keys = (prefix: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => `${prefix}${String(from + i).padStart(4, '0')}`);
const setOf = (ks: string[]) => Object.fromEntries(ks.map((k) => [k, 1]));
/** Ops of 200 keys each (spec 01's bound on one set) covering `ks`. */
const chunks = (ks: string[], make: (part: string[]) => unknown) => Array.from({ length: Math.ceil(ks.length / 200) }, (_, i) => make(ks.slice(i * 200, i * 200 + 200)));
const statuses = async (s: Session, ops: unknown[]) => (await ingest(h, s, ops)).results.map((r) => [r.status, r.errorCode]);
const liveCount = async (table: string, owner: string, id: string, live: string) => Number((await h.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${owner} = ? AND ${live}`, [id]))!.n);

describe('a cap on distinct keys per installation and profile', () => {
  it('installation attributes: up to the cap accepted; one more key refused; a held key updated, a removal, then a new key accepted', async () => {
    expect(MAX_LIVE_KEYS).toBe(1_000);
    const s = await bootstrap(h, appKey);
    const all = keys('a', MAX_LIVE_KEYS);
    expect(await statuses(s, chunks(all, (part) => op('INSTALLATION_ATTRIBUTES_EDITED', { set: setOf(part) })))).toEqual(Array(5).fill(['ACCEPTED', null]));
    const res = await ingest(h, s, [op('INSTALLATION_ATTRIBUTES_EDITED', { set: { extra: 1 } })]);
    expect(res.results[0]).toMatchObject({ status: 'REJECTED', errorCode: 'KEY_LIMIT_EXCEEDED' });
    expect(res.results[0].message).toBe('set: the installation would hold more than 1000 attributes (it holds 1000); remove some first');
    // A key set and removed by the same operation adds nothing; updating held keys adds nothing.
    expect(await statuses(s, [op('INSTALLATION_ATTRIBUTES_EDITED', { set: { extra: 1 }, remove: ['extra'] }), op('INSTALLATION_ATTRIBUTES_EDITED', { set: { a0000: 2, a0999: 3 } }, later())])).toEqual([
      ['ACCEPTED', null],
      ['ACCEPTED', null],
    ]);
    expect(await statuses(s, [op('INSTALLATION_ATTRIBUTES_EDITED', { remove: ['a0000'] }, later())])).toEqual([['ACCEPTED', null]]);
    expect(await statuses(s, [op('INSTALLATION_ATTRIBUTES_EDITED', { set: { extra: 1 } }, later()), op('INSTALLATION_ATTRIBUTES_EDITED', { set: { more: 1 } }, later())])).toEqual([
      ['ACCEPTED', null],
      ['REJECTED', 'KEY_LIMIT_EXCEEDED'],
    ]);
    expect(await liveCount('installation_attributes', 'installation_id', s.installationId, 'value IS NOT NULL')).toBe(MAX_LIVE_KEYS);
  });

  it('within one batch: the operation that would pass the cap is refused, the others stand', async () => {
    const s = await bootstrap(h, appKey);
    const ops = chunks(keys('b', 1_200), (part) => op('INSTALLATION_ATTRIBUTES_EDITED', { set: setOf(part) }));
    expect(await statuses(s, ops)).toEqual([...Array(5).fill(['ACCEPTED', null]), ['REJECTED', 'KEY_LIMIT_EXCEEDED']]);
    expect(await liveCount('installation_attributes', 'installation_id', s.installationId, 'value IS NOT NULL')).toBe(MAX_LIVE_KEYS);
  });

  it('profile attributes and tags count per profile (its installations together), each kind on its own', async () => {
    const s = await bootstrap(h, appKey);
    const ops = [
      ...chunks(keys('p', 999), (part) => op('PROFILE_ATTRIBUTES_EDITED', { set: setOf(part) })),
      op('PROFILE_TAGS_EDITED', { add: keys('t', 1_000) }),
      op('PROFILE_TAGS_EDITED', { add: ['one-more'] }),
      op('PROFILE_ATTRIBUTES_EDITED', { set: { last: 1 } }),
      op('PROFILE_ATTRIBUTES_EDITED', { set: { over: 1 } }),
      op('PROFILE_TAGS_EDITED', { add: ['t0000'], remove: ['t0001'] }),
    ];
    const r = await ingest(h, s, ops);
    expect(r.results.map((x) => [x.status, x.errorCode])).toEqual([
      ...Array(5).fill(['ACCEPTED', null]),
      ['ACCEPTED', null],
      ['REJECTED', 'KEY_LIMIT_EXCEEDED'],
      ['ACCEPTED', null],
      ['REJECTED', 'KEY_LIMIT_EXCEEDED'],
      ['ACCEPTED', null],
    ]);
    expect(r.results[6].message).toContain('add: the profile would hold more than 1000 tags');
    expect(r.results[8].message).toContain('set: the profile would hold more than 1000 attributes');
  });
});

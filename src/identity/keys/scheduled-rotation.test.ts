import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { silentLogger } from '../../platform/logger';
import { JOBS, backgroundJobs } from '../../jobs';
import { decodeJwt, exchange, createFixture, type OAuthFixture } from '../../../test/fixtures/oauth';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Issue 23 point 8: a rotation cannot break relying parties that cache the JWKS. `rotate`
 * stages the new key (published at once) and a leased job activates it once the JWKS cache
 * lifetime has passed; `now` keeps the immediate rotation.
 */

let h: Harness;
let f: OAuthFixture;
let tenantId: string;
beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
  tenantId = f.tenant.tenant.id;
});
afterEach(() => h.close());

type Services = Harness['services'];
/** The activation job as a serving process runs it (src/jobs.ts). */
const runActivationJob = async (s: Services = h.services) => {
  const job = backgroundJobs(s, silentLogger).find((j) => j.name === JOBS.activateKeys);
  expect(job).toBeDefined();
  await job!.run();
};
const jwksKids = async () => {
  const res = await h.request(`${f.issuerPath}/oauth2/jwks`);
  return { kids: ((await res.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid), cacheControl: res.headers.get('cache-control')! };
};
const signingKid = async () => decodeJwt((await exchange(h, f)).access_token).header.kid as string;
const stateOf = async (kid: string) => (await h.services.keys.list(tenantId)).find((k) => k.keyId === kid)?.state;

describe('engage keys rotate (scheduled by default)', () => {
  it('stages the new key, published in JWKS; tokens stay signed by the old key until the JWKS cache lifetime has passed and the job runs', async () => {
    const oldKid = await signingKid();
    const keys = await h.services.keys.rotate(tenantId, SYSTEM_ACTOR);
    const staged = keys.find((k) => k.state === 'STAGED')!;
    expect(staged).toBeDefined();
    expect(keys.find((k) => k.state === 'ACTIVE')!.keyId).toBe(oldKid);

    // Due when every cached copy of the JWKS was fetched after the stage: its max-age.
    const { kids, cacheControl } = await jwksKids();
    expect(kids.sort()).toEqual([oldKid, staged.keyId].sort());
    const maxAge = Number(/max-age=(\d+)/.exec(cacheControl)![1]);
    expect(maxAge).toBe(300);
    expect(Date.parse(staged.activatesAt!) - h.clock.now().getTime()).toBe(maxAge * 1000);

    expect(await signingKid()).toBe(oldKid);
    h.clock.advance(maxAge - 1);
    await runActivationJob();
    expect(await stateOf(staged.keyId)).toBe('STAGED');
    expect(await signingKid()).toBe(oldKid);

    h.clock.advance(1);
    await runActivationJob();
    expect(await stateOf(staged.keyId)).toBe('ACTIVE');
    expect(await stateOf(oldKid)).toBe('RETIRING');
    expect(await signingKid()).toBe(staged.keyId);
    expect((await jwksKids()).kids.sort()).toEqual([oldKid, staged.keyId].sort());
    const after = (await h.services.keys.list(tenantId)).find((k) => k.keyId === staged.keyId)!;
    expect(after).toMatchObject({ state: 'ACTIVE', activatedAt: h.clock.now().toISOString(), activatesAt: null });
  });

  it('a rotation staged by another process (the CLI) is activated by the serving process that runs the job', async () => {
    const oldKid = await signingKid();
    const cli = await h.otherProcess();
    const staged = (await h.changedElsewhere(() => cli.keys.rotate(tenantId, SYSTEM_ACTOR))).find((k) => k.state === 'STAGED')!;
    h.clock.advance(300);
    await h.changedElsewhere(() => runActivationJob());
    expect(await signingKid()).toBe(staged.keyId);
    expect(await stateOf(oldKid)).toBe('RETIRING');
  });

  it('`keys list` also activates a key that came due while no server ran', async () => {
    const staged = (await h.services.keys.rotate(tenantId, SYSTEM_ACTOR)).find((k) => k.state === 'STAGED')!;
    h.clock.advance(300);
    expect(await stateOf(staged.keyId)).toBe('ACTIVE');
  });

  it('now: the new key is ACTIVE at once, the previous one RETIRING', async () => {
    const oldKid = await signingKid();
    const keys = await h.services.keys.rotate(tenantId, SYSTEM_ACTOR, { now: true });
    const active = keys.find((k) => k.state === 'ACTIVE')!;
    expect(active.keyId).not.toBe(oldKid);
    expect(active.activatesAt).toBeNull();
    expect(keys.find((k) => k.keyId === oldKid)!.state).toBe('RETIRING');
    expect(await signingKid()).toBe(active.keyId);
  });

  it('a second rotation while one is scheduled is a conflict; now replaces the scheduled key', async () => {
    const oldKid = await signingKid();
    const staged = (await h.services.keys.rotate(tenantId, SYSTEM_ACTOR)).find((k) => k.state === 'STAGED')!;
    await expect(h.services.keys.rotate(tenantId, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'operation_conflict', message: expect.stringContaining(staged.keyId) });
    const keys = await h.services.keys.rotate(tenantId, SYSTEM_ACTOR, { now: true });
    const active = keys.find((k) => k.state === 'ACTIVE')!;
    expect([oldKid, staged.keyId]).not.toContain(active.keyId);
    // The scheduled key never signed: retired, out of the JWKS, and the job leaves it alone.
    expect(keys.find((k) => k.keyId === staged.keyId)).toMatchObject({ state: 'RETIRED', activatesAt: null });
    h.clock.advance(300);
    await runActivationJob();
    expect(await signingKid()).toBe(active.keyId);
  });

  it('keys activate and keys retire work on a scheduled key as on any STAGED key', async () => {
    const oldKid = await signingKid();
    const staged = (await h.services.keys.rotate(tenantId, SYSTEM_ACTOR)).find((k) => k.state === 'STAGED')!;
    await h.services.keys.activate(tenantId, staged.keyId, SYSTEM_ACTOR);
    expect(await signingKid()).toBe(staged.keyId);
    expect(await stateOf(oldKid)).toBe('RETIRING');

    const next = (await h.services.keys.rotate(tenantId, SYSTEM_ACTOR)).find((k) => k.state === 'STAGED')!;
    await h.services.keys.retire(tenantId, next.keyId, SYSTEM_ACTOR);
    h.clock.advance(300);
    await runActivationJob();
    expect(await stateOf(next.keyId)).toBe('RETIRED');
    expect(await signingKid()).toBe(staged.keyId);
  });
});

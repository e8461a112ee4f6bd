import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { setupEnvironment } from '../../../test/fixtures/engage';

const ACTOR = { subject: 'os:link-test', clientId: null };

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

describe('an environment naming an identity tenant (issue 24)', () => {
  it('is set, shown, listed, found by the tenant, audited once per change, and cleared', async () => {
    const s = h.services;
    const acme = await s.tenants.create({ slug: 'acme' }, ACTOR);
    await setupEnvironment(h, 'prod');
    await setupEnvironment(h, 'other');
    expect((await s.engage.environments.resolve('prod')).identityTenantId).toBeNull();

    const set = await s.engage.identityLink.set('prod', acme.id, ACTOR);
    expect(set).toMatchObject({ name: 'prod', identityTenantId: acme.id });
    await s.engage.identityLink.set('prod', acme.id, ACTOR); // no change, no event
    expect((await s.engage.environments.resolve('prod')).identityTenantId).toBe(acme.id);
    expect((await s.engage.environments.list()).map((e) => [e.name, e.identityTenantId]).sort()).toEqual([['other', null], ['prod', acme.id]]);
    expect((await s.engage.identityLink.environmentsOf(acme.id)).map((e) => e.name)).toEqual(['prod']);

    const events = await s.store.audit.list({ action: 'environment.identity_tenant.changed', page: 0, size: 10 });
    expect(events.items.map((e) => [e.targetType, e.details])).toEqual([['environment', { identityTenantId: acme.id, previous: null }]]);

    expect((await s.engage.identityLink.set('prod', null, ACTOR)).identityTenantId).toBeNull();
    expect(await s.engage.identityLink.environmentsOf(acme.id)).toEqual([]);
    await expect(s.engage.identityLink.set('nope', acme.id, ACTOR)).rejects.toThrow(/nope/);
  });
});

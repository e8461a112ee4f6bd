import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { createFixture } from '../../../test/fixtures/oauth';
import { SYSTEM_ACTOR } from '../../identity/audit';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';

/**
 * The engagement administration API's guard (issue 24; docs/decisions.md "Environment and
 * identity"): a live control-issuer token for `engage-admin-api`, the route's scope, and the
 * operator's live permission of the same name, unscoped or narrowed to the path's environment.
 */
let h: Harness;
let a: EngageAdminFixture;
const { read, manage } = ENGAGE_ADMIN_API.scopes;

beforeAll(async () => {
  h = await createHarness();
  a = await createEngageAdminFixture(h);
  for (const name of ['prod', 'staging']) await h.services.engage.environments.create({ name }, SYSTEM_ACTOR);
});
afterAll(() => h.close());

const answer = async (res: Response) => [res.status, await res.json()];
const names = async (res: Response) => ((await res.json()) as { items: { name: string }[] }).items.map((e) => e.name).sort();

describe('the engagement administration API guard', () => {
  it('401 invalid_token without a token, with a management API token, or a made-up one', async () => {
    const none = await a.call('GET', '/environments', undefined);
    expect(await answer(none)).toEqual([401, { error: 'invalid_token' }]);
    expect(none.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(none.headers.get('cache-control')).toBe('no-store');
    const identityToken = await a.identity.token();
    expect(await answer(await a.call('GET', '/environments', identityToken))).toEqual([401, { error: 'invalid_token' }]);
    expect(await answer(await a.call('GET', '/environments', 'x.y.z'))).toEqual([401, { error: 'invalid_token' }]);
  });

  it('403 insufficient_scope naming the scope when the token lacks it; manage implies read', async () => {
    const res = await a.call('GET', '/environments', await a.token([ENGAGE_ADMIN_API.scopes.send]));
    expect(await answer(res)).toEqual([403, { error: 'insufficient_scope' }]);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", scope="${read}"`);
    expect((await a.call('GET', '/environments', await a.token([manage]))).status).toBe(200);
  });

  it('403 access_denied without the live permission, and a removed permission takes effect on an unexpired token', async () => {
    const nobody = await a.newOperator('nobody@example.com');
    expect(await answer(await a.call('GET', '/environments', await a.token([read], nobody.id)))).toEqual([403, { error: 'access_denied' }]);
    const reader = await a.newOperator('reader@example.com', [read]);
    const token = await a.token([read], reader.id);
    expect(await names(await a.call('GET', '/environments', token))).toEqual(['prod', 'staging']);
    await a.identity.revoke(reader.subject);
    expect(await answer(await a.call('GET', '/environments', token))).toEqual([403, { error: 'access_denied' }]);
  });

  it('a permission narrowed to one environment opens that one only; the others, known or not, answer 403 alike', async () => {
    const scoped = await a.newOperator('prod-reader@example.com', [`${read}:prod`]);
    const token = await a.token([read], scoped.id);
    expect(await names(await a.call('GET', '/environments', token))).toEqual(['prod']);
    const prod = await a.call('GET', '/environments/prod', token);
    expect(prod.status).toBe(200);
    expect(await prod.json()).toMatchObject({ name: 'prod', displayName: 'prod', status: 'ACTIVE', configurationManaged: false });
    expect(await answer(await a.call('GET', '/environments/staging', token))).toEqual([403, { error: 'access_denied' }]);
    expect(await answer(await a.call('GET', '/environments/nowhere', token))).toEqual([403, { error: 'access_denied' }]);
    // The unscoped operator learns that it does not exist.
    expect(await answer(await a.call('GET', '/environments/nowhere', await a.token([read])))).toEqual([404, { error: 'unknown_environment' }]);
  });

  it('is served under the control issuer only', async () => {
    const acme = await createFixture(h, 'acme');
    const res = await h.request(`/t/${acme.slug}${ENGAGE_ADMIN_API.root}/environments`, { headers: { authorization: `Bearer ${await a.token()}` } });
    expect(await answer(res)).toEqual([404, { error: 'not_found' }]);
  });
});

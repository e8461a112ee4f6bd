import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../../../test/helpers/harness';
import { createAdminTenant, type AdminFixture } from '../../../test/helpers/admin';
import { exchange, type OAuthFixture } from '../../../test/fixtures/oauth';
import { ADMIN_SCOPES } from './schemas';

/**
 * POST /tenants/{tenantId}/signing-keys/{keyId}/revocation (issue 25: the console revokes a key;
 * the twin of `engage keys revoke`): at once and final, never the ACTIVE key, audited.
 */
let h: Harness;
let a: AdminFixture;
let acme: OAuthFixture;
let token: string;
let base: string;

beforeAll(async () => {
  ({ h, a, acme, token, base } = await createAdminTenant());
});
afterAll(() => h.close());

const call = (method: string, path: string, as = token, body?: unknown) => a.json(method, path, as, body);
const keys = async () => (await call('GET', `${base}/signing-keys?size=200`)).body.items as { keyId: string; state: string; retiredAt: string | null }[];
const published = async () => ((await (await h.request('/t/acme/oauth2/jwks')).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

describe('signing key revocation', () => {
  it('revokes a STAGED or RETIRING key at once (204): unpublished, its tokens refused, audited', async () => {
    const old = (await keys()).find((k) => k.state === 'ACTIVE')!.keyId;
    const signed = (await exchange(h, acme)).access_token;
    const staged = (await call('POST', `${base}/signing-keys`)).body.keyId as string;
    expect(await call('POST', `${base}/signing-keys/${staged}/revocation`)).toEqual({ status: 204, body: null });
    expect((await keys()).find((k) => k.keyId === staged)).toMatchObject({ state: 'REVOKED', retiredAt: expect.any(String) });
    expect(await published()).not.toContain(staged);

    // The old ACTIVE key, once RETIRING, is revoked too: the token it signed is no longer accepted.
    const next = (await call('POST', `${base}/signing-keys`)).body.keyId as string;
    await call('POST', `${base}/signing-keys/${next}/activation`);
    expect(await published()).toContain(old);
    expect(await call('POST', `${base}/signing-keys/${old}/revocation`)).toEqual({ status: 204, body: null });
    expect(await published()).not.toContain(old);
    const userinfo = await h.request('/t/acme/oauth2/userinfo', { headers: { Authorization: `Bearer ${signed}` } });
    expect(userinfo.status).toBe(401);

    const events = (await h.services.admin.auditEvents({ tenantId: acme.tenant.tenant.id, action: 'signing_key.revoked', page: 0, size: 10 })).items;
    expect(events.map((e) => [e.targetId, e.actorSubject])).toEqual([[old, a.operator.subject], [staged, a.operator.subject]]);
  });

  it('refuses the ACTIVE key, a REVOKED one, an unknown one and another tenant’s (409 operation_conflict), changing nothing', async () => {
    const active = (await keys()).find((k) => k.state === 'ACTIVE')!.keyId;
    const revoked = (await keys()).find((k) => k.state === 'REVOKED')!.keyId;
    const other = (await call('POST', '/tenants', token, { slug: 'revocation-other' })).body.id as string;
    for (const path of [`${base}/signing-keys/${active}/revocation`, `${base}/signing-keys/${revoked}/revocation`, `${base}/signing-keys/nope/revocation`, `/tenants/${other}/signing-keys/${active}/revocation`]) {
      expect(await call('POST', path), path).toEqual({ status: 409, body: { error: 'operation_conflict' } });
    }
    expect((await keys()).find((k) => k.keyId === active)!.state).toBe('ACTIVE');
  });

  it('needs identity.admin.manage with its live permission', async () => {
    const kid = (await call('POST', `${base}/signing-keys`)).body.keyId as string;
    expect(await call('POST', `${base}/signing-keys/${kid}/revocation`, await a.token([ADMIN_SCOPES.read]))).toEqual({ status: 403, body: { error: 'insufficient_scope' } });
    const stranger = await a.newOperator('revoker@example.com', [ADMIN_SCOPES.read]);
    expect(await call('POST', `${base}/signing-keys/${kid}/revocation`, await a.token([ADMIN_SCOPES.manage], stranger.id))).toEqual({ status: 403, body: { error: 'access_denied' } });
    expect((await keys()).find((k) => k.keyId === kid)!.state).toBe('STAGED');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { basic, createFixture, decodeJwt, exchange, form, post, type OAuthFixture } from '../../../test/fixtures/oauth';
import { SYSTEM_ACTOR } from '../audit';

let h: Harness;
let f: OAuthFixture;
beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
});
afterEach(() => h.close());

const introspect = (token: string) => post(h, `${f.issuerPath}/oauth2/introspect`, form({ token }), { authorization: basic(f.credentialId, f.credentialSecret) });

describe('signing keys rotated mid-session', () => {
  it('old tokens verify while the old key is RETIRING; new tokens use the new key', async () => {
    const t = await exchange(h, f);
    const oldKid = decodeJwt(t.access_token).header.kid;
    await h.services.keys.rotate(f.tenant.tenant.id, SYSTEM_ACTOR, { now: true });
    const newKid = (await h.services.keys.signingKey(f.tenant.tenant.id))!.kid;
    expect(newKid).not.toBe(oldKid);

    expect(((await (await introspect(t.access_token)).json()) as { active: boolean }).active).toBe(true);
    expect((await h.request(`${f.issuerPath}/oauth2/userinfo`, { headers: { authorization: `Bearer ${t.access_token}` } })).status).toBe(200);

    const r = (await (await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: t.refresh_token! }))).json()) as {
      access_token: string;
      id_token: string;
    };
    expect(decodeJwt(r.access_token).header.kid).toBe(newKid);
    expect(decodeJwt(r.id_token).header.kid).toBe(newKid);
    expect(((await (await introspect(r.access_token)).json()) as { active: boolean }).active).toBe(true);

    const jwks = (await (await h.request(`${f.issuerPath}/oauth2/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid).sort()).toEqual([oldKid, newKid].sort());
  });

  it('once the old key is RETIRED or REVOKED its tokens are inactive', async () => {
    const t = await exchange(h, f);
    const oldKid = decodeJwt(t.access_token).header.kid as string;
    expect(((await (await introspect(t.access_token)).json()) as { active: boolean }).active).toBe(true);
    await h.services.keys.rotate(f.tenant.tenant.id, SYSTEM_ACTOR, { now: true });
    await h.services.keys.revoke(f.tenant.tenant.id, oldKid, SYSTEM_ACTOR);
    // Seen at once: the token was verified (and remembered) before, under a key now revoked.
    expect(await (await introspect(t.access_token)).json()).toEqual({ active: false });
  });
});

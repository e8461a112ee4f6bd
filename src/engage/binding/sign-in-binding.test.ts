import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bearer, bootstrap, ingest, issueCode, op, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { EMAIL, PASSWORD, createNativeFixture, nativePost, openInteraction, redeem, type NativeFixture } from '../../../test/fixtures/native';
import { FormDriver, redirectParams } from '../../../test/conformance/form-driver';
import { APP_CALLBACK, authorizeUrl, pkce, seedTenant } from '../../../test/conformance/fixtures';

/** Issue 24: a sign-in carrying the installation's binding code binds it at the code exchange. */

const ACTOR = { subject: 'os:sign-in-binding-test', clientId: null };

let h: Harness;
let f: NativeFixture;
let subject: string;
beforeEach(async () => {
  h = await createHarness();
  f = await createNativeFixture(h);
  subject = (await h.services.users.findById(f.tenant.tenant.id, f.userId))!.subject;
});
afterEach(() => h.close());

/** An environment named `name` with an installation; the environment names the fixture's tenant unless `link` is false. */
async function installation(name = 'prod', link = true): Promise<{ s: Session; appKey: string }> {
  const env = await setupEnvironment(h, name);
  if (link) await h.services.engage.identityLink.set(name, f.tenant.tenant.id, ACTOR);
  return { s: await bootstrap(h, env.app.appKey), appKey: env.app.appKey };
}

/** Native password sign-in with `binding_code`; the token endpoint's answer. */
async function nativeSignIn(bindingCode: string | undefined): Promise<{ res: Response; code: string; verifier: string }> {
  const it = await openInteraction(h.request, f, { binding_code: bindingCode });
  const proof = await nativePost(h.request, f, '/password', { interaction_id: it.interactionId, email: EMAIL, password: PASSWORD });
  expect(proof.status).toBe(200);
  const { code } = (await proof.json()) as { code: string };
  return { res: await redeem(h.request, f, code, it.verifier), code, verifier: it.verifier };
}

async function state(s: Session) {
  return (await (await h.request('/v1/sdk/installation', { headers: bearer(s.credential) })).json()) as { generation: number; bound: boolean };
}

describe('native sign-in with a binding code (issue 24)', () => {
  it('binds the installation to the user subject in the code exchange; later operations land on that profile', async () => {
    const { s } = await installation();
    const bindingCode = await issueCode(h, s);
    const { res } = await nativeSignIn(bindingCode);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.access_token).toBeTruthy();
    expect(body.installation_binding).toEqual({ status: 'BOUND', installation_id: s.installationId, generation: 1 });
    expect(await state(s)).toMatchObject({ generation: 1, bound: true });

    // The code was consumed exactly as the transition endpoint consumes it.
    const again = await h.request('/v1/sdk/installation/binding-code', { method: 'POST', headers: bearer(s.credential) });
    expect(((await again.json()) as { code: string }).code).not.toBe(bindingCode);

    const batch = await ingest(h, s, [op('PROFILE_ATTRIBUTES_EDITED', { set: { plan: 'pro' } }, { generation: 1 })]);
    expect(batch.results[0].status).toBe('ACCEPTED');
    const profile = await h.services.engage.inspection.profile('prod', subject);
    expect(profile.installations.map((i: { id: string }) => i.id)).toEqual([s.installationId]);
    expect(profile.attributes).toMatchObject({ plan: 'pro' });
  });

  it('an expired, consumed or unknown code never fails the sign-in: NOT_BOUND says why', async () => {
    const { s } = await installation();
    expect(((await (await nativeSignIn('svc_bind_unknown')).res.json()) as Record<string, unknown>).installation_binding).toEqual({ status: 'NOT_BOUND', reason: 'unknown_code' });

    const used = await issueCode(h, s);
    expect(((await (await nativeSignIn(used)).res.json()) as Record<string, unknown>).installation_binding).toMatchObject({ status: 'BOUND' });
    const second = await nativeSignIn(used);
    expect(second.res.status).toBe(200);
    expect(((await second.res.json()) as Record<string, unknown>).installation_binding).toEqual({ status: 'NOT_BOUND', reason: 'consumed_code' });

    const late = await issueCode(h, s);
    h.clock.advance((h.config.bindingCodeTtl + 1) * 1000);
    const expired = await nativeSignIn(late);
    expect(expired.res.status).toBe(200);
    expect(((await expired.res.json()) as Record<string, unknown>).installation_binding).toEqual({ status: 'NOT_BOUND', reason: 'expired_code' });
    expect((await state(s)).generation).toBe(1);
  });

  it('without a binding code the token response has no installation_binding', async () => {
    const { res } = await nativeSignIn(undefined);
    expect(res.status).toBe(200);
    expect(Object.keys((await res.json()) as object)).not.toContain('installation_binding');
  });

  it('a replayed code exchange fails and never binds twice', async () => {
    const { s } = await installation();
    const first = await nativeSignIn(await issueCode(h, s));
    expect(first.res.status).toBe(200);
    const replay = await redeem(h.request, f, first.code, first.verifier);
    expect(replay.status).toBe(400);
    expect(await state(s)).toMatchObject({ generation: 1, bound: true });
  });

  it('an environment not naming the tenant is never bound', async () => {
    const { s } = await installation('elsewhere', false);
    const { res } = await nativeSignIn(await issueCode(h, s));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Record<string, unknown>).installation_binding).toEqual({ status: 'NOT_BOUND', reason: 'unknown_code' });
    expect(await state(s)).toMatchObject({ generation: 0, bound: false });
  });

  it('a malformed binding_code is refused at the interaction', async () => {
    const res = await nativePost(h.request, f, '/interactions', { client_id: 'app', redirect_uri: 'https://app.example.com/cb', response_type: 'code', scope: 'openid', state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256', nonce: 'n', binding_code: 'not a code' });
    expect(res.status).toBe(400);
  });
});

describe('signing out unbinds (issue 24)', () => {
  const revoke = (token: string, extra: Record<string, string> = {}) =>
    nativeRevoke({ token, client_id: 'app', ...extra });
  const nativeRevoke = (fields: Record<string, string>) =>
    h.request(`${f.issuerPath}/oauth2/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
  const refreshOf = async (r: Response) => ((await r.json()) as { refresh_token: string }).refresh_token;

  it('revoking the refresh token with unbind_installation=true returns the installation to anonymous; without it, it stays bound', async () => {
    const { s } = await installation();
    const kept = await refreshOf((await nativeSignIn(await issueCode(h, s))).res);
    expect((await revoke(kept)).status).toBe(200);
    expect(await state(s)).toMatchObject({ generation: 1, bound: true });

    const token = await refreshOf((await nativeSignIn(await issueCode(h, s))).res);
    expect(await state(s)).toMatchObject({ generation: 2, bound: true });
    expect((await revoke(token, { unbind_installation: 'true' })).status).toBe(200);
    expect(await state(s)).toMatchObject({ generation: 3, bound: false });
    // Again: nothing more happens.
    expect((await revoke(token, { unbind_installation: 'true' })).status).toBe(200);
    expect((await state(s)).generation).toBe(3);
  });

  it('a sign-out never unbinds an installation bound again since', async () => {
    const { s } = await installation();
    const first = await refreshOf((await nativeSignIn(await issueCode(h, s))).res);
    await nativeSignIn(await issueCode(h, s));
    expect(await state(s)).toMatchObject({ generation: 2, bound: true });
    expect((await revoke(first, { unbind_installation: 'true' })).status).toBe(200);
    expect(await state(s)).toMatchObject({ generation: 2, bound: true });
  });
});

describe('browser sign-in with a binding code (issue 24)', () => {
  it('the authorization request carries binding_code; the exchange binds the installation', async () => {
    const seed = await seedTenant(h, 'shop');
    const env = await setupEnvironment(h, 'prod');
    await h.services.engage.identityLink.set('prod', seed.tenantId, ACTOR);
    const s = await bootstrap(h, env.app.appKey);
    const bindingCode = await issueCode(h, s);
    const p = pkce();
    const d = new FormDriver(async (u, i) => h.app.request(u, i), 'http://engage.test');
    const done = await d.signIn(authorizeUrl('shop', { code_challenge: p.challenge, binding_code: bindingCode }, 'app'), 'alice@example.com', PASSWORD);
    expect(done.status).toBe(302);
    const { code } = redirectParams(done);
    const body = new URLSearchParams({ grant_type: 'authorization_code', client_id: 'app', code, redirect_uri: APP_CALLBACK, code_verifier: p.verifier });
    const res = await h.request('/t/shop/oauth2/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Record<string, unknown>).installation_binding).toEqual({ status: 'BOUND', installation_id: s.installationId, generation: 1 });
    expect(await state(s)).toMatchObject({ generation: 1, bound: true });
    const profile = await h.services.engage.inspection.profile('prod', seed.alice.subject);
    expect(profile.installations.map((i: { id: string }) => i.id)).toEqual([s.installationId]);
  });
});

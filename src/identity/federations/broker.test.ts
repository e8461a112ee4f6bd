import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { FormDriver, redirectParams } from '../../../test/conformance/form-driver';
import { APP_CALLBACK, PASSWORD, pkce, seedTenant } from '../../../test/conformance/fixtures';
import { form, post } from '../../../test/fixtures/oauth';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Brokered sign-in between two tenants of one server (issue 11 point 3): the target's sign-in
 * page offers "Sign in with <source>", the source's own sign-in authenticates, and the target
 * signs in the linked (or new) user; deleting the federation stops it.
 */
let h: Harness;
let home: Awaited<ReturnType<typeof seedTenant>>;
let shop: Awaited<ReturnType<typeof seedTenant>>;
const actor = { subject: 'os:test', clientId: null };
const driver = () => new FormDriver(async (u, i) => h.app.request(u, i), 'http://engage.test');

beforeAll(async () => {
  h = await createHarness();
  home = await seedTenant(h, 'home');
  shop = await seedTenant(h, 'shop');
  await h.services.federations.create('home', 'shop', actor);
});
afterAll(() => h.close());

function authorize(p = pkce()) {
  const q = new URLSearchParams({
    client_id: 'app', redirect_uri: APP_CALLBACK, response_type: 'code', scope: 'openid email', state: 'st-1', nonce: 'n-1', code_challenge: p.challenge, code_challenge_method: 'S256',
  });
  return `/t/shop/oauth2/authorize?${q}`;
}

/** The "Sign in with <source>" form of a sign-in page. */
function federationForm(page: string, source: string) {
  const m = new RegExp(`<form method="post" action="([^"]*/oauth2/authorize/federation)">\\s*<input type="hidden" name="interaction_id" value="([^"]+)">\\s*<input type="hidden" name="csrf_token" value="([^"]+)">\\s*<button[^>]*name="source" value="${source}">`).exec(page);
  return m && { action: m[1], interaction_id: m[2], csrf_token: m[3], source };
}

/** Through shop's sign-in page to home's, with alice's password there; the response of shop's callback. */
async function brokered(d: FormDriver, email = 'alice@example.com', p = pkce()) {
  const page = await (await d.get(authorize(p))).text();
  expect(page).toContain('Sign in with home');
  const f = federationForm(page, 'home')!;
  const toSource = await d.post(f.action, { interaction_id: f.interaction_id, csrf_token: f.csrf_token, source: 'home' });
  expect(toSource.status).toBe(302);
  const sourceUrl = new URL(toSource.headers.get('location')!);
  expect(sourceUrl.origin + sourceUrl.pathname).toBe(`${home.issuer}/oauth2/authorize`);
  expect(Object.fromEntries(sourceUrl.searchParams)).toMatchObject({ response_type: 'code', scope: 'openid email', code_challenge_method: 'S256', redirect_uri: `${shop.issuer}/oauth2/authorize/federation/callback` });
  const back = await d.signIn(sourceUrl.toString(), email, PASSWORD);
  expect(back.status).toBe(302);
  const callback = back.headers.get('location')!;
  expect(callback.startsWith(`${shop.issuer}/oauth2/authorize/federation/callback?`)).toBe(true);
  expect(redirectParams(back).iss).toBe(home.issuer);
  return { res: await d.get(callback), callback };
}

async function exchange(code: string, verifier: string) {
  const res = await post(h, '/t/shop/oauth2/token', form({ grant_type: 'authorization_code', code, redirect_uri: APP_CALLBACK, code_verifier: verifier, client_id: 'app' }));
  expect(res.status).toBe(200);
  const idToken = ((await res.json()) as { id_token: string }).id_token;
  return JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString()) as { sub: string; email: string; iss: string };
}

describe('sign-in through a federated tenant', () => {
  it('signs alice of home in at shop as the shop account with her email, linked by (home issuer, subject)', async () => {
    const p = pkce();
    const d = driver();
    const { res } = await brokered(d, 'alice@example.com', p);
    expect(res.status).toBe(302);
    const params = redirectParams(res);
    expect(params).toMatchObject({ state: 'st-1', iss: shop.issuer });
    const claims = await exchange(params.code, p.verifier);
    // shop has its own alice (same verified email): she is linked, not duplicated.
    expect(claims).toMatchObject({ iss: shop.issuer, sub: shop.alice.subject, email: 'alice@example.com' });
    const link = await h.sql.get<{ userId: string; provider: string }>(
      `SELECT user_id AS "userId", provider FROM user_identities WHERE tenant_id = ? AND issuer = ? AND subject = ?`, [shop.tenantId, home.issuer, home.alice.subject]);
    expect(link).toEqual({ userId: shop.alice.id, provider: 'federation:home' });
    // Signed in at shop now: single sign-on without another page.
    expect(redirectParams(await d.get(authorize())).code).toBeDefined();
  });

  it('creates the account at shop for a home user it does not know, and finds it again the next time', async () => {
    await h.services.users.create(home.tenantId, { email: 'carol@example.com', emailVerified: true, password: PASSWORD }, SYSTEM_ACTOR);
    const first = pkce();
    const a = await brokered(driver(), 'carol@example.com', first);
    const claims = await exchange(redirectParams(a.res).code, first.verifier);
    const created = await h.services.users.findByEmail(shop.tenantId, 'carol@example.com');
    expect(created).toMatchObject({ subject: claims.sub, emailVerified: true, status: 'ACTIVE' });
    const second = pkce();
    const b = await brokered(driver(), 'carol@example.com', second);
    expect((await exchange(redirectParams(b.res).code, second.verifier)).sub).toBe(claims.sub);
  });

  it('refuses a home account without a verified email', async () => {
    await h.services.users.create(home.tenantId, { email: 'dan@example.com', emailVerified: false, password: PASSWORD }, SYSTEM_ACTOR);
    const { res } = await brokered(driver(), 'dan@example.com');
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('No account available');
    expect(await h.services.users.findByEmail(shop.tenantId, 'dan@example.com')).toBeUndefined();
  });

  it('a callback works once, and only in the browser that started it', async () => {
    const d = driver();
    const page = await (await d.get(authorize())).text();
    const f = federationForm(page, 'home')!;
    const toSource = (await d.post(f.action, { interaction_id: f.interaction_id, csrf_token: f.csrf_token, source: 'home' })).headers.get('location')!;
    const back = (await d.signIn(toSource, 'bob@example.com', PASSWORD)).headers.get('location')!;
    // Another browser (another shop session) holding the callback URL gets nothing.
    const thief = driver();
    await thief.get(authorize());
    const stolen = await thief.get(back);
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).toContain('This sign-in request has expired');
    expect((await d.get(back)).status).toBe(302);
    const replay = await d.get(back);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('This sign-in request has expired');
  });

  it('refuses a forged or unknown source, and a response naming another issuer', async () => {
    const d = driver();
    const page = await (await d.get(authorize())).text();
    const f = federationForm(page, 'home')!;
    const unknown = await d.post(f.action, { interaction_id: f.interaction_id, csrf_token: f.csrf_token, source: 'acme' });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('This sign-in option is not available');
    const badCsrf = await d.post(f.action, { interaction_id: f.interaction_id, csrf_token: 'forged', source: 'home' });
    expect(badCsrf.status).toBe(403);
    const toSource = (await d.post(f.action, { interaction_id: f.interaction_id, csrf_token: f.csrf_token, source: 'home' })).headers.get('location')!;
    const back = new URL((await d.signIn(toSource, 'bob@example.com', PASSWORD)).headers.get('location')!);
    back.searchParams.set('iss', shop.issuer);
    const res = await d.get(back.toString());
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Signing in with home did not succeed');
  });

  it('follows the target\u2019s issuers: under a custom issuer set later, through its managed path too, and after it is cleared', async () => {
    const custom = 'https://id.shop.example';
    const callbacks = async () => {
      const f = await h.services.store.federations.find(home.tenantId, shop.tenantId);
      return (await h.services.clients.find(home.tenantId, f!.clientId))!.redirectUris;
    };
    expect(await callbacks()).toEqual([`${shop.issuer}/oauth2/authorize/federation/callback`]);
    await h.services.tenants.setCustomIssuer('shop', custom, SYSTEM_ACTOR);
    try {
      // A browser at the custom host: each request carries its URL's host, cookies stay on their host.
      const d = new FormDriver(async (u, i) => h.app.request(u, { ...i, headers: { ...(i?.headers as Record<string, string>), host: new URL(u).host } }), custom);
      const p = pkce();
      const page = await (await d.get(`${custom}${authorize(p).replace('/t/shop', '')}`)).text();
      const f = federationForm(page, 'home')!;
      const toSource = new URL((await d.post(f.action, { interaction_id: f.interaction_id, csrf_token: f.csrf_token, source: 'home' })).headers.get('location')!);
      expect(toSource.searchParams.get('redirect_uri')).toBe(`${custom}/oauth2/authorize/federation/callback`);
      expect((await callbacks()).sort()).toEqual([`${custom}/oauth2/authorize/federation/callback`, `${shop.issuer}/oauth2/authorize/federation/callback`].sort());
      const back = await d.signIn(toSource.toString(), 'alice@example.com', PASSWORD);
      expect(back.headers.get('location')!.startsWith(`${custom}/oauth2/authorize/federation/callback?`)).toBe(true);
      const done = await d.get(back.headers.get('location')!);
      expect(done.status).toBe(302);
      const params = redirectParams(done);
      expect(params.iss).toBe(custom);
      const token = await h.app.request(`${custom}/oauth2/token`, {
        method: 'POST', headers: { host: 'id.shop.example', 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ grant_type: 'authorization_code', code: params.code, redirect_uri: APP_CALLBACK, code_verifier: p.verifier, client_id: 'app' }),
      });
      expect(token.status).toBe(200);
      const idToken = ((await token.json()) as { id_token: string }).id_token;
      expect(JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString())).toMatchObject({ iss: custom, sub: shop.alice.subject });
      // The managed path still answers for shop, and its brokered sign-in still works.
      expect((await brokered(driver())).res.status).toBe(302);
    } finally {
      await h.services.tenants.setCustomIssuer('shop', null, SYSTEM_ACTOR);
    }
    // Cleared: the next sign-in drops the old host's callback.
    expect((await brokered(driver())).res.status).toBe(302);
    expect(await callbacks()).toEqual([`${shop.issuer}/oauth2/authorize/federation/callback`]);
  });

  it('deleting the federation removes the option and stops sign-ins under way', async () => {
    const d = driver();
    const page = await (await d.get(authorize())).text();
    const f = federationForm(page, 'home')!;
    const toSource = (await d.post(f.action, { interaction_id: f.interaction_id, csrf_token: f.csrf_token, source: 'home' })).headers.get('location')!;
    await h.services.federations.remove('home', 'shop', actor);
    // At the source, the federation's client is disabled: its authorization request is refused.
    const atSource = await d.get(toSource);
    expect(atSource.status).toBe(400);
    const fresh = driver();
    const after = await (await fresh.get(authorize())).text();
    expect(after).not.toContain('Sign in with home');
    const posted = await fresh.post(f.action.replace(/.*(\/t\/)/, '$1'), { ...(parse(after)), source: 'home' });
    expect(posted.status).toBe(400);
    expect(await posted.text()).toContain('This sign-in option is not available');
    const events = (await h.services.store.audit.list({ action: 'federation.deleted', page: 0, size: 5 })).items;
    expect(events[0]).toMatchObject({ tenantId: null, actorSubject: 'os:test', targetType: 'federation', details: { sourceTenantId: home.tenantId, targetTenantId: shop.tenantId } });
  });
});

function parse(page: string): Record<string, string> {
  const hidden: Record<string, string> = {};
  for (const m of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) hidden[m[1]] = m[2];
  return hidden;
}

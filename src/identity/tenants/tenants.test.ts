import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, PUBLIC_URL, type Harness } from '../../../test/helpers/harness';
import { SYSTEM_ACTOR } from '../audit';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

describe('tenants', () => {
  it('creates a tenant with every field of spec 03 and an ACTIVE signing key', async () => {
    const t = await h.services.tenants.create({ slug: 'acme', registrationMode: 'SELF_SERVICE' }, SYSTEM_ACTOR);
    expect(Object.keys(t).sort()).toEqual(
      ['id', 'slug', 'issuer', 'status', 'registrationMode', 'clientCount', 'resourceCount', 'createdAt', 'managedIssuer', 'configurationManaged', 'slugLocked', 'issuerLocked'].sort(),
    );
    expect(t).toMatchObject({
      slug: 'acme',
      issuer: `${PUBLIC_URL}/t/acme`,
      managedIssuer: `${PUBLIC_URL}/t/acme`,
      status: 'ACTIVE',
      registrationMode: 'SELF_SERVICE',
      clientCount: 0,
      resourceCount: 0,
      configurationManaged: false,
    });
    expect(t.id).toMatch(/^[0-9a-f-]{36}$/);
    const keys = await h.services.keys.list(t.id);
    expect(keys.map((k) => k.state)).toEqual(['ACTIVE']);
  });

  it('creates the control tenant once, locked', async () => {
    const again = await h.services.tenants.ensureControl();
    const all = (await h.services.tenants.list(0, 10)).items;
    expect(all.filter((t) => t.slug === 'control')).toHaveLength(1);
    expect(again).toMatchObject({ slug: 'control', slugLocked: true, issuerLocked: true });
  });

  it.each([
    ['Acme', 'invalid_request'],
    ['-acme', 'invalid_request'],
    ['a'.repeat(64), 'invalid_request'],
    ['acme', 'tenant_conflict'],
    ['control', 'tenant_conflict'],
  ])('rejects slug %s with %s and changes nothing', async (slug, error) => {
    await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    const before = (await h.services.tenants.list(0, 10)).total;
    await expect(h.services.tenants.create({ slug }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: error });
    expect((await h.services.tenants.list(0, 10)).total).toBe(before);
  });

  it('rejects an unknown registration mode', async () => {
    await expect(h.services.tenants.create({ slug: 'x', registrationMode: 'OPEN' }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
  });
});

describe('issuer routing', () => {
  it('serves discovery with exactly the fields of spec 02', async () => {
    await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    const res = await h.request('/t/acme/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const issuer = `${PUBLIC_URL}/t/acme`;
    expect(await res.json()).toEqual({
      issuer,
      authorization_endpoint: `${issuer}/oauth2/authorize`,
      token_endpoint: `${issuer}/oauth2/token`,
      jwks_uri: `${issuer}/oauth2/jwks`,
      revocation_endpoint: `${issuer}/oauth2/revoke`,
      introspection_endpoint: `${issuer}/oauth2/introspect`,
      userinfo_endpoint: `${issuer}/oauth2/userinfo`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['openid', 'email', 'offline_access'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      request_uri_parameter_supported: false,
      prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    });
  });

  it('serves RFC 8414 metadata with the issuer path after the well-known prefix', async () => {
    await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    const res = await h.request('/.well-known/oauth-authorization-server/t/acme');
    expect(res.status).toBe(200);
    expect(((await res.json()) as Record<string, unknown>).issuer).toBe(`${PUBLIC_URL}/t/acme`);
    expect((await h.request('/.well-known/oauth-authorization-server/t/nope')).status).toBe(404);
  });

  it.each([
    '/t/nope/.well-known/openid-configuration',
    '/t/nope/oauth2/jwks',
    '/t/nope/oauth2/token',
    '/.well-known/openid-configuration',
  ])('answers an unknown issuer with 404 and an empty body: %s', async (p) => {
    const res = await h.request(p, { method: p.endsWith('token') ? 'POST' : 'GET' });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('');
  });

  it('answers unknown_tenant on native and directory routes', async () => {
    for (const p of ['/t/nope/oauth2/native/interactions', '/t/nope/identity/directory/organizations']) {
      const res = await h.request(p);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'unknown_tenant' });
    }
  });

  it('stops serving a disabled tenant and serves it again when enabled', async () => {
    await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    await h.services.tenants.setStatus('acme', 'DISABLED', SYSTEM_ACTOR);
    const res = await h.request('/t/acme/oauth2/jwks');
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('');
    await h.services.tenants.setStatus('acme', 'ACTIVE', SYSTEM_ACTOR);
    expect((await h.request('/t/acme/oauth2/jwks')).status).toBe(200);
  });

  it('routes a host-only custom issuer by Host and keeps the managed issuer', async () => {
    await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    const view = await h.services.tenants.setCustomIssuer('acme', 'https://ID.Acme.example/', SYSTEM_ACTOR);
    expect(view.issuer).toBe('https://id.acme.example');
    expect(view.managedIssuer).toBe(`${PUBLIC_URL}/t/acme`);
    const custom = await h.app.request('https://id.acme.example/.well-known/openid-configuration', { headers: { host: 'id.acme.example' } });
    expect(custom.status).toBe(200);
    expect(((await custom.json()) as Record<string, unknown>).token_endpoint).toBe('https://id.acme.example/oauth2/token');
    const rfc8414 = await h.app.request('https://id.acme.example/.well-known/oauth-authorization-server', { headers: { host: 'id.acme.example' } });
    expect(((await rfc8414.json()) as Record<string, unknown>).issuer).toBe('https://id.acme.example');
    const other = await h.app.request('https://other.example/.well-known/openid-configuration', { headers: { host: 'other.example' } });
    expect(other.status).toBe(404);
    await h.services.tenants.create({ slug: 'beta' }, SYSTEM_ACTOR);
    await expect(h.services.tenants.setCustomIssuer('beta', 'https://id.acme.example', SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'tenant_issuer_locked' });
    await expect(h.services.tenants.setCustomIssuer('beta', 'https://x.example/path', SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('answers unmatched routes in the family of their surface', async () => {
    const problem = await h.request('/v1/nothing');
    expect(problem.status).toBe(404);
    expect(problem.headers.get('content-type')).toBe('application/problem+json');
    expect(await problem.json()).toMatchObject({ code: 'not_found' });
    await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    const oauth = await h.request('/t/acme/oauth2/nothing');
    expect(oauth.status).toBe(404);
    expect(await oauth.json()).toEqual({ error: 'not_found' });
  });

  it('echoes a request id on every response', async () => {
    const res = await h.request('/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const fresh = await h.request('/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await (await h.request('/readyz')).json()).toEqual({ status: 'ready' });
  });
});

describe('signing keys', () => {
  const states = async (tenantId: string) => (await h.services.keys.list(tenantId)).map((k) => k.state);
  const jwksKids = async (slug: string) => ((await (await h.request(`/t/${slug}/oauth2/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

  it('rotates: new ACTIVE key, previous RETIRING, both published; RETIRED once its tokens expired', async () => {
    const t = await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    const [first] = await h.services.keys.list(t.id);
    const after = await h.services.keys.rotate(t.id, SYSTEM_ACTOR, { now: true });
    expect(after.map((k) => [k.keyId === first.keyId, k.state])).toEqual([
      [true, 'RETIRING'],
      [false, 'ACTIVE'],
    ]);
    const res = await h.request('/t/acme/oauth2/jwks');
    const body = (await res.json()) as { keys: Record<string, string>[] };
    expect(body.keys).toHaveLength(2);
    for (const k of body.keys) expect(Object.keys(k).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(body.keys.every((k) => k.kty === 'RSA' && k.use === 'sig' && k.alg === 'RS256')).toBe(true);
    expect(await h.services.keys.verificationKey(t.id, first.keyId)).toBeDefined();

    h.clock.advance(Math.max(h.config.accessTokenTtl, h.config.idTokenTtl) + 1);
    expect(await jwksKids('acme')).toEqual([after[1].keyId]);
    expect(await h.services.keys.verificationKey(t.id, first.keyId)).toBeUndefined();
    expect(await states(t.id)).toEqual(['RETIRED', 'ACTIVE']);
  });

  it('stages, activates, retires and revokes with the transitions of spec 03', async () => {
    const t = await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    const [first] = await h.services.keys.list(t.id);
    const staged = await h.services.keys.stage(t.id, SYSTEM_ACTOR);
    expect(staged.state).toBe('STAGED');
    expect(await jwksKids('acme')).toContain(staged.keyId); // published before it signs
    expect((await h.services.keys.signingKey(t.id))?.kid).toBe(first.keyId);

    await h.services.keys.activate(t.id, staged.keyId, SYSTEM_ACTOR);
    expect((await h.services.keys.signingKey(t.id))?.kid).toBe(staged.keyId);
    expect(await states(t.id)).toEqual(['RETIRING', 'ACTIVE']);

    await expect(h.services.keys.activate(t.id, staged.keyId, SYSTEM_ACTOR)).rejects.toMatchObject({ kind: 'conflict', code: 'operation_conflict' });
    await expect(h.services.keys.retire(t.id, staged.keyId, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'operation_conflict' });
    await expect(h.services.keys.revoke(t.id, staged.keyId, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'operation_conflict' });
    await expect(h.services.keys.activate(t.id, 'nope', SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'operation_conflict' });

    await h.services.keys.retire(t.id, first.keyId, SYSTEM_ACTOR);
    expect(await states(t.id)).toEqual(['RETIRED', 'ACTIVE']);
    expect(await jwksKids('acme')).toEqual([staged.keyId]);
    await h.services.keys.revoke(t.id, first.keyId, SYSTEM_ACTOR);
    expect(await states(t.id)).toEqual(['REVOKED', 'ACTIVE']);
    await expect(h.services.keys.revoke(t.id, first.keyId, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'operation_conflict' });
  });

  it('keeps keys of one tenant out of another', async () => {
    const a = await h.services.tenants.create({ slug: 'a' }, SYSTEM_ACTOR);
    const b = await h.services.tenants.create({ slug: 'b' }, SYSTEM_ACTOR);
    const [ka] = await h.services.keys.list(a.id);
    await expect(h.services.keys.activate(b.id, ka.keyId, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'operation_conflict' });
    expect(await h.services.keys.verificationKey(b.id, ka.keyId)).toBeUndefined();
    expect(await jwksKids('b')).not.toContain(ka.keyId);
  });

  it('seals private keys at rest', async () => {
    const t = await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    const row = (await h.sql.get<{ privateSealed: string }>('SELECT private_sealed AS "privateSealed" FROM signing_keys WHERE tenant_id = ?', [t.id]))!;
    expect(row.privateSealed.startsWith('v1.')).toBe(true);
    expect(row.privateSealed).not.toContain('PRIVATE KEY');
  });

  it('a process whose master key cannot open the signing keys is refused at start, with what to do', async () => {
    const control = await h.services.tenants.ensureControl();
    await expect(h.services.keys.verifyMasterKey(control.id)).resolves.toBeUndefined();
    const stranger = await h.otherProcess(randomBytes(32));
    await expect(stranger.keys.verifyMasterKey(control.id)).rejects.toThrow(/every process on one database must use the same master key/);
  });

  it('a rotation by another process (the CLI) is served without a restart', async () => {
    const t = await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    const before = await jwksKids('acme');
    // Another process on the same database (sharing the master key) stands in for `engage keys rotate`.
    const cli = await h.otherProcess();
    await h.changedElsewhere(() => cli.keys.rotate(t.id, SYSTEM_ACTOR, { now: true }));
    const after = await jwksKids('acme');
    expect(after).toHaveLength(2);
    expect(after).toContain(before[0]);
    // This process signs with the key the other one made (it opens it with the shared master key).
    const signing = await h.services.keys.signingKey(t.id);
    expect(signing?.kid).toBe(after.find((k) => k !== before[0]));
    expect(signing?.key.type).toBe('private');
  });
});

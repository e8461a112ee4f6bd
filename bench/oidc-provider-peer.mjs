/**
 * The comparison peer for bench/oauth.mjs: node-oidc-provider with its documented quick-start
 * configuration (in-memory storage; see MapAdapter), resource indicators on so access tokens for the API are
 * RS256 JWTs, refresh-token rotation on, PKCE, and a public client like ours.
 *
 * Run by bench/oauth.mjs with child_process.fork: it listens on the port in PEER_PORT and answers
 * IPC messages that seed grants and authorization codes the way a completed sign-in would
 * (oidc-provider has no API for that other than its interaction flow).
 */
import { generateKeyPairSync, createHash, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';

const PORT = Number(process.env.PEER_PORT ?? 0);
const ISSUER = `http://127.0.0.1:${PORT}`;
const API = 'https://api.example.com';
const CALLBACK = 'https://app.example.com/cb';

/**
 * The quick-start in-memory adapter keeps at most 1,000 entries (an LRU): seeding thousands of
 * codes for the code-exchange run would evict them. This is the same in-memory storage without
 * the bound (a Map per model, a grant index for revokeByGrantId, expiry honoured on read).
 */
const stores = new Map();
const grants = new Map();
class MapAdapter {
  constructor(model) {
    this.model = model;
    if (!stores.has(model)) stores.set(model, new Map());
    this.store = stores.get(model);
  }
  async upsert(id, payload, expiresIn) {
    this.store.set(id, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
    if (payload.grantId) {
      if (!grants.has(payload.grantId)) grants.set(payload.grantId, []);
      grants.get(payload.grantId).push([this.store, id]);
    }
  }
  async find(id) {
    const e = this.store.get(id);
    if (!e) return undefined;
    if (e.expiresAt <= Date.now()) {
      this.store.delete(id);
      return undefined;
    }
    return e.payload;
  }
  async findByUid(uid) {
    for (const [id, e] of this.store) if (e.payload.uid === uid) return this.find(id);
    return undefined;
  }
  async findByUserCode(code) {
    for (const [id, e] of this.store) if (e.payload.userCode === code) return this.find(id);
    return undefined;
  }
  async consume(id) {
    const e = this.store.get(id);
    if (e) e.payload.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id) {
    this.store.delete(id);
  }
  async revokeByGrantId(grantId) {
    for (const [store, id] of grants.get(grantId) ?? []) store.delete(id);
    grants.delete(grantId);
  }
}

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'peer-1', use: 'sig', alg: 'RS256' };

const provider = new Provider(ISSUER, {
  adapter: MapAdapter,
  clients: [
    { client_id: 'mobile', token_endpoint_auth_method: 'none', redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
    { client_id: 'rs', client_secret: 'rs-secret-'.padEnd(43, 'x'), redirect_uris: [], grant_types: [], response_types: [] },
  ],
  jwks: { keys: [jwk] },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub, email: 'ada@example.com', email_verified: true }) }),
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  scopes: ['openid', 'email', 'offline_access', 'api.read'],
  pkce: { required: () => true },
  rotateRefreshToken: true,
  ttl: { AuthorizationCode: 600, AccessToken: 600, IdToken: 3600, RefreshToken: 30 * 86400, Grant: 30 * 86400 },
  features: {
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => {
        if (resource !== API) throw new Error('unknown resource');
        return { scope: 'api.read', audience: 'urn:example:api', accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
      },
    },
  },
});
provider.on('server_error', (_ctx, err) => console.error('peer server_error', err));

/** Grants and codes as a finished interaction would leave them. */
async function seedCodes({ n, withResource }) {
  const client = await provider.Client.find('mobile');
  const out = [];
  for (let i = 0; i < n; i++) {
    const grant = new provider.Grant({ accountId: 'user-1', clientId: 'mobile' });
    grant.addOIDCScope('openid email offline_access');
    if (withResource) grant.addResourceScope(API, 'api.read');
    const grantId = await grant.save();
    const verifier = randomBytes(32).toString('base64url');
    const code = new provider.AuthorizationCode({
      accountId: 'user-1',
      client,
      grantId,
      scope: withResource ? 'openid email offline_access api.read' : 'openid email offline_access',
      redirectUri: CALLBACK,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      codeChallengeMethod: 'S256',
      authTime: Math.floor(Date.now() / 1000),
      nonce: 'n-0S6_WzA2Mj',
      resource: withResource ? API : undefined,
    });
    out.push({ code: await code.save(), verifier });
  }
  return out;
}

const server = provider.listen(PORT, '127.0.0.1', () => process.send?.({ ready: true, issuer: ISSUER }));
process.on('message', async (m) => {
  if (m.cmd === 'codes') process.send({ id: m.id, codes: await seedCodes(m) });
  if (m.cmd === 'gc') {
    globalThis.gc?.();
    process.send({ id: m.id });
  }
  if (m.cmd === 'stop') server.close(() => process.exit(0));
});

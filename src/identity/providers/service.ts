import { jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from '../../platform/clock';
import { digest, newId, safeEqual } from '../../platform/crypto';
import { isDomainError } from '../../platform/errors';
import { assertThat } from '../../platform/http/errors';
import type { TxRunner } from '../../platform/store/store';
import { onUnique, UniqueViolation } from '../../platform/store/sql';
import type { ResolvedTenant } from '../tenants/service';
import { normalizeEmail, type UserService, type UserTx } from '../users/service';
import { ProviderErrors } from './errors';
import type { ProviderRow, ProviderStore } from './store';
import { createUpstreamKeys, type Fetch } from './upstream-keys';
import type { AuditActor, AuditTx } from '../audit';

type Stores = { providers: ProviderStore } & UserTx & AuditTx;

export interface ProviderView {
  name: string;
  issuer: string;
  audiences: string[];
  createdAt: string;
}

export interface SocialSignIn {
  provider: string;
  idToken: string;
  nonce: string;
  audience: string;
}

const NAME = /^[a-z0-9](?:[a-z0-9_-]{0,62})$/;
/** Clock skew tolerated on `exp`, `nbf` and `iat` (seconds). */
export const ID_TOKEN_SKEW = 60;
/**
 * An upstream ID token is accepted at most this long after its `iat`, whatever its `exp`, so the
 * replay cache holds no entry longer (issue 21). Google, Apple, Microsoft and Firebase issue
 * ID tokens for an hour or less.
 */
export const MAX_ID_TOKEN_AGE = 24 * 3600;
/** Asymmetric algorithms only: `none` and HMAC (a secret we do not hold) are refused. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const view = (p: ProviderRow): ProviderView => ({ name: p.name, issuer: p.issuer, audiences: JSON.parse(p.audiences) as string[], createdAt: p.createdAt });

/**
 * The replay cache's key of a verified upstream token: its issuer and `jti` (RFC 7519 §4.1.7: unique
 * per issuer) when it has one, else its signed part (header and payload). Not the whole token:
 * the same signature has other spellings (the unused bits of base64url's last character, and
 * (r, n−s) for ECDSA) that verify as well; the signed part has one.
 */
function tokenUseDigest(idToken: string, claims: JWTPayload): string {
  if (typeof claims.jti === 'string' && claims.jti) return digest(`jti\n${claims.iss}\n${claims.jti}`);
  return digest(`jws\n${idToken.slice(0, idToken.lastIndexOf('.'))}`);
}

/** Apple sends `email_verified` as the string "true". */
const verifiedEmail = (p: JWTPayload) => p.email_verified === true || p.email_verified === 'true';

/**
 * Social sign-in with an upstream ID token (spec 02 `/oauth2/native/social`, issue 10) and the
 * tenant's providers (`engage providers`). Linking rules: docs/decisions.md "Second factors and
 * social providers".
 */
export function createProviderService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; users: UserService; fetch?: Fetch; publicUrl: string }) {
  const { store, clock, users } = deps;
  // Plain-http issuers only where engage itself runs on plain http (development and tests).
  const upstream = createUpstreamKeys({ clock, fetch: deps.fetch ?? ((u, i) => fetch(u, i)), allowHttp: deps.publicUrl.startsWith('http:') });

  async function verify(provider: ProviderRow, input: SocialSignIn): Promise<JWTPayload> {
    try {
      const { payload } = await jwtVerify(input.idToken, upstream.resolver(provider.issuer), {
        issuer: provider.issuer,
        audience: input.audience,
        algorithms: ALGORITHMS,
        currentDate: clock.now(),
        clockTolerance: ID_TOKEN_SKEW,
        maxTokenAge: MAX_ID_TOKEN_AGE,
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      // jose checks iat only against a maximum age; one from the future is refused here.
      if (typeof payload.iat !== 'number' || payload.iat > clock.nowSeconds() + ID_TOKEN_SKEW) throw new Error('iat in the future');
      // OIDC Core 3.1.3.7 step 11: the nonce must be the one the client sent.
      if (typeof payload.nonce !== 'string' || !safeEqual(payload.nonce, input.nonce)) throw new Error('nonce mismatch');
      return payload;
    } catch (e) {
      if (isDomainError(e)) throw e;
      throw ProviderErrors.invalidCredentials();
    }
  }

  /**
   * One upstream token signs in once (issue 21): its first use is recorded until it can no longer
   * be accepted (its `exp`, or `iat` + MAX_ID_TOKEN_AGE, plus the skew); another use, in any
   * process and at any tenant, is a rejected proof. The nonce does not prevent this: the native
   * client names the nonce it expects, so whoever holds a token also holds its nonce.
   */
  async function spend(idToken: string, claims: JWTPayload): Promise<void> {
    const until = Math.min(claims.exp!, claims.iat! + MAX_ID_TOKEN_AGE) + ID_TOKEN_SKEW + 1;
    const first = await store.tx((tx) => tx.providers.recordTokenUse(tokenUseDigest(idToken, claims), until, clock.nowSeconds()));
    if (!first) throw ProviderErrors.invalidCredentials();
  }

  /** The linked user, if any: a disabled one is a rejected proof. */
  async function linkedUser(tenantId: string, issuer: string, subject: string): Promise<{ userId: string } | undefined> {
    const link = await store.providers.findIdentity(tenantId, issuer, subject);
    if (!link) return undefined;
    const user = await users.findById(tenantId, link.userId);
    if (!user || user.status !== 'ACTIVE') throw ProviderErrors.invalidCredentials();
    return { userId: user.id };
  }

  return {
    /** Upstream identities of a bulk import's users. Called inside the importer's transaction, it joins it (platform/store/tx-frame.ts). */
    importIdentities(tenantId: string, rows: readonly { userId: string; issuer: string; subject: string; provider: string }[], now: string): Promise<void> {
      return store.tx((tx) => tx.providers.insertIdentities(tenantId, rows, now));
    },
    /** Which of these upstream identities are linked to a user of the tenant (`issuer subject` keys). Called inside the importer's transaction, it joins it (platform/store/tx-frame.ts). */
    linkedIdentities(tenantId: string, pairs: readonly { issuer: string; subject: string }[]): Promise<Set<string>> {
      return store.tx((tx) => tx.providers.linkedIdentities(tenantId, pairs));
    },
    async add(tenantId: string, input: { name: string; issuer: string; audiences: string[] }, actor: AuditActor): Promise<ProviderView> {
      assertThat(typeof input.name === 'string' && NAME.test(input.name), ProviderErrors.invalid('name must be 1-63 lower-case letters, digits, - or _'));
      assertThat(typeof input.issuer === 'string' && upstream.allowedUrl(input.issuer) && !new URL(input.issuer).search && !new URL(input.issuer).hash,
        ProviderErrors.invalid('issuer must be an https URL without query or fragment'));
      const audiences = [...new Set(input.audiences ?? [])];
      assertThat(audiences.length > 0 && audiences.length <= 20 && audiences.every((a) => typeof a === 'string' && a.length > 0 && a.length <= 255),
        ProviderErrors.invalid('give 1 to 20 audiences of 1 to 255 characters'));
      const row: ProviderRow = { id: newId(), tenantId, name: input.name, issuer: input.issuer, audiences: JSON.stringify(audiences), createdAt: clock.now().toISOString() };
      await store.tx(async (tx) => {
        assertThat(!(await tx.providers.findByName(tenantId, input.name)), ProviderErrors.conflict(input.name));
        await tx.providers.insert(row).catch(onUnique(() => ProviderErrors.conflict(input.name)));
        await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'provider.added', targetType: 'provider', targetId: input.name, details: { issuer: input.issuer, audiences } });
      });
      return view(row);
    },

    async list(tenantId: string): Promise<ProviderView[]> {
      return (await store.providers.list(tenantId)).map(view);
    },

    /** Links stay (they are keyed by issuer): adding the provider back restores them. */
    async remove(tenantId: string, name: string, actor: AuditActor): Promise<void> {
      const p = await store.providers.findByName(tenantId, name);
      const removed = await store.tx(async (tx) => {
        const done = await tx.providers.remove(tenantId, name);
        if (done) await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'provider.removed', targetType: 'provider', targetId: name, details: {} });
        return done;
      });
      assertThat(removed, ProviderErrors.unknown(name));
      if (p) upstream.forget(p.issuer);
    },

    /**
     * The user of `tenantId` for an upstream identity already proven by the caller (a federation's
     * brokered sign-in, identity/federations): the linked user; else, with a verified email, the
     * account holding that email, linked now; else a new account (active, email verified) and its
     * link, in one transaction. The federation is the operator's trust in the upstream tenant's
     * email verification (docs/decisions.md "Federations"); undefined when no user can be given
     * (an unverified or missing email, a disabled account).
     */
    async brokeredUser(tenantId: string, identity: { issuer: string; subject: string; email?: unknown; emailVerified?: unknown; provider: string }): Promise<{ userId: string } | undefined> {
      const linked = await store.providers.findIdentity(tenantId, identity.issuer, identity.subject);
      const active = async (userId: string) => {
        const u = await users.findById(tenantId, userId);
        return u && u.status === 'ACTIVE' ? { userId } : undefined;
      };
      if (linked) return active(linked.userId);
      if (typeof identity.email !== 'string' || identity.emailVerified !== true) return undefined;
      const email = normalizeEmail(identity.email);
      const now = clock.now().toISOString();
      const link = { tenantId, issuer: identity.issuer, subject: identity.subject, provider: identity.provider, createdAt: now };
      try {
        const userId = await store.tx(async (tx) => {
          const existing = await tx.users.findByEmail(tenantId, email);
          const id = existing ? existing.id : await users.createInTx(tx, tenantId, { email, emailVerified: true });
          await tx.providers.link({ ...link, userId: id });
          return id;
        });
        return active(userId);
      } catch (e) {
        if (!(e instanceof UniqueViolation) && !(isDomainError(e) && e.code === 'user_conflict')) throw e;
        // A parallel first sign-in of the same identity won: use its account.
        const won = await store.providers.findIdentity(tenantId, identity.issuer, identity.subject);
        return won ? active(won.userId) : undefined;
      }
    },

    /** The replay cache's entries whose tokens can no longer be accepted (a background job, src/jobs.ts). */
    async sweepTokenUses(): Promise<number> {
      return store.tx((tx) => tx.providers.purgeTokenUses(clock.nowSeconds()));
    },

    /**
     * spec 02 `POST /oauth2/native/social`: the user the upstream identity proves, creating one
     * where allowed. A token already accepted once is invalid_credentials (spend).
     */
    async signInWithIdToken(tenant: ResolvedTenant, input: SocialSignIn): Promise<{ userId: string }> {
      const tenantId = tenant.tenant.id;
      const provider = typeof input.provider === 'string' ? await store.providers.findByName(tenantId, input.provider) : undefined;
      if (!provider) throw ProviderErrors.unavailable();
      const audiences = JSON.parse(provider.audiences) as string[];
      if (typeof input.idToken !== 'string' || typeof input.nonce !== 'string' || !input.nonce || !audiences.includes(input.audience)) throw ProviderErrors.invalidCredentials();
      const claims = await verify(provider, input);
      await spend(input.idToken, claims);
      const subject = claims.sub!;
      const linked = await linkedUser(tenantId, provider.issuer, subject);
      if (linked) return linked;
      // An unverified address proves nothing, and must not reveal whether an account has it.
      if (typeof claims.email !== 'string' || !verifiedEmail(claims)) throw ProviderErrors.emailVerificationRequired();
      const email = normalizeEmail(claims.email);
      // Never link by email silently: whoever controls the upstream account could take over ours.
      if (await users.findByEmail(tenantId, email)) {
        // A parallel first sign-in of this identity may have created the account since the lookup above.
        const won = await linkedUser(tenantId, provider.issuer, subject);
        if (won) return won;
        throw ProviderErrors.linkRequired();
      }
      if (tenant.tenant.registrationMode !== 'SELF_SERVICE') throw ProviderErrors.registrationClosed();
      const now = clock.now().toISOString();
      try {
        return await store.tx(async (tx) => {
          const userId = await users.createInTx(tx, tenantId, { email, emailVerified: true });
          await tx.providers.link({ tenantId, issuer: provider.issuer, subject, userId, provider: provider.name, createdAt: now });
          return { userId };
        });
      } catch (e) {
        if (!(e instanceof UniqueViolation) && !(isDomainError(e) && e.code === 'user_conflict')) throw e;
        // A parallel first sign-in of the same identity won: use its account; else the email was taken.
        const won = await linkedUser(tenantId, provider.issuer, subject);
        if (won) return won;
        throw ProviderErrors.linkRequired();
      }
    },
  };
}

export type ProviderService = ReturnType<typeof createProviderService>;

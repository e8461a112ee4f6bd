import { ConfigError } from '../../platform/config';
import { CatalogCache } from '../../platform/catalog';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import type { Clock } from '../../platform/clock';
import { newSecret, type Sealer } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import type { TxRunner } from '../../platform/store/store';
import { keyTransitionInvalid } from './errors';
import type { KeyStore, SigningKeyRow } from './store';
import { SYSTEM_ACTOR, type AuditActor, type AuditTx } from '../audit';

export interface KeyView {
  keyId: string;
  state: SigningKeyRow['state'];
  createdAt: string;
  activatedAt: string | null;
  retiredAt: string | null;
}

/**
 * What the CLI shows of a key: the management API's fields (KeyView, spec 03) and, for a STAGED
 * key that `keys rotate` scheduled, when it becomes ACTIVE.
 */
export interface KeyDetail extends KeyView {
  activatesAt: string | null;
}

/**
 * The JWKS's max-age (Cache-Control, oauth/discovery-routes.ts). A rotation activates its new key
 * no sooner than this after staging it: by then every cached copy of the JWKS holds the new key.
 */
export const JWKS_MAX_AGE_SECONDS = 300;

export interface RotateOptions {
  /** Activate the new key at once (the previous default): relying parties that cached the JWKS in the last max-age fail to verify until they refetch. */
  now?: boolean;
}

export interface PublicJwk {
  kty: 'RSA';
  kid: string;
  use: 'sig';
  alg: 'RS256';
  n: string;
  e: string;
}

export interface GeneratedKey {
  kid: string;
  publicJwk: string;
  pkcs8: string;
}

/** A generated key with its private half sealed: ready to insert, no crypto left to do. */
export interface SealedKey {
  kid: string;
  publicJwk: string;
  privateSealed: string;
}

export interface SigningKey {
  kid: string;
  key: KeyObject;
}

type Stores = { keys: KeyStore } & AuditTx;
/** The stores a transaction that adds keys must carry (tenant creation). */
export type KeyTx = { keys: KeyStore };

/** States published in JWKS (spec: STAGED, ACTIVE and RETIRING). */
const PUBLISHED = ['STAGED', 'ACTIVE', 'RETIRING'] as const;

export function toKeyView(k: SigningKeyRow): KeyView {
  return { keyId: k.kid, state: k.state, createdAt: k.createdAt, activatedAt: k.activatedAt, retiredAt: k.retiredAt };
}

function toKeyDetail(k: SigningKeyRow): KeyDetail {
  const scheduled = k.state === 'STAGED' && k.activateAfter !== null;
  return { ...toKeyView(k), activatesAt: scheduled ? new Date(k.activateAfter! * 1000).toISOString() : null };
}

export function createKeyService(deps: {
  store: Stores & TxRunner<Stores>;
  /** platform/catalog.ts: every token signed or verified needs its key row. */
  catalog: () => number;
  clock: Clock;
  sealer: Sealer;
  /** Longest lifetime of a token signed by a key; a RETIRING key is RETIRED after it. */
  maxSignedTokenTtl: number;
}) {
  const { store, clock, sealer } = deps;
  const privateCache = new Map<string, KeyObject>();
  const publicCache = new Map<string, KeyObject>();
  const rows = new CatalogCache<SigningKeyRow>(deps.catalog);
  const activeRows = new CatalogCache<SigningKeyRow>(deps.catalog);
  const jwksCache = new Map<string, { version: number; validUntil: number; jwks: { keys: PublicJwk[] } }>();

  /** RSA generation is CPU work: done before any transaction. */
  async function generate(): Promise<GeneratedKey> {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    const kid = newSecret().slice(0, 22);
    const jwk = await exportJWK(publicKey);
    return { kid, publicJwk: JSON.stringify({ kty: jwk.kty, n: jwk.n, e: jwk.e }), pkcs8: await exportPKCS8(privateKey) };
  }

  /** Sealing is crypto: done before the transaction that inserts the key. */
  function seal(g: GeneratedKey): SealedKey {
    return { kid: g.kid, publicJwk: g.publicJwk, privateSealed: sealer.seal(g.pkcs8, `signing-key:${g.kid}`) };
  }

  const audit = (tx: Stores, actor: AuditActor, tenantId: string, action: string, kid: string, details: Record<string, unknown> = {}) =>
    tx.audit.record(actor, { at: clock.now(), tenantId, action: `signing_key.${action}`, targetType: 'signing_key', targetId: kid, details });

  async function insert(tx: KeyTx, tenantId: string, k: SealedKey, state: 'STAGED' | 'ACTIVE', activateAfter: number | null = null): Promise<void> {
    const now = clock.now().toISOString();
    await tx.keys.insert({
      kid: k.kid,
      tenantId,
      state,
      publicJwk: k.publicJwk,
      privateSealed: k.privateSealed,
      createdAt: now,
      activatedAt: state === 'ACTIVE' ? now : null,
      activateAfter,
    });
  }

  /**
   * Moves the current ACTIVE key (if any) to RETIRING and `kid` to ACTIVE. The caller holds the
   * tenant's key lock (`keys.lockTenant`), so the ACTIVE key read here is still the ACTIVE key.
   */
  async function promote(tx: KeyTx, tenantId: string, kid: string): Promise<void> {
    const now = clock.now();
    const current = await tx.keys.active(tenantId);
    if (current && current.kid !== kid) {
      await tx.keys.setState(current.kid, { state: 'RETIRING', retireAfter: clock.nowSeconds() + deps.maxSignedTokenTtl });
    }
    await tx.keys.setState(kid, { state: 'ACTIVE', activatedAt: now.toISOString(), activateAfter: null });
  }

  /** The tenant's key `kid`, read under the tenant's key lock (a transition decides on its state). */
  async function lockedKey(tx: KeyTx, tenantId: string, kid: string): Promise<SigningKeyRow> {
    await tx.keys.lockTenant(tenantId);
    const k = await tx.keys.find(tenantId, kid);
    assertThat(k, keyTransitionInvalid(`no key ${kid} in this tenant`));
    return k;
  }

  function toSigningKey(row: SigningKeyRow): SigningKey {
    let key = privateCache.get(row.kid);
    if (!key) {
      key = createPrivateKey(sealer.open(row.privateSealed, `signing-key:${row.kid}`));
      privateCache.set(row.kid, key);
    }
    return { kid: row.kid, key };
  }

  function toVerificationKey(row: SigningKeyRow | undefined): KeyObject | undefined {
    if (!row || !(row.state === 'ACTIVE' || row.state === 'RETIRING') || !isPublished(row, clock.nowSeconds())) return undefined;
    let key = publicCache.get(row.kid);
    if (!key) {
      key = createPublicKey({ key: { ...JSON.parse(row.publicJwk) }, format: 'jwk' });
      publicCache.set(row.kid, key);
    }
    return key;
  }

  function isPublished(k: SigningKeyRow, nowS: number): boolean {
    if (!(PUBLISHED as readonly string[]).includes(k.state)) return false;
    return k.state !== 'RETIRING' || k.retireAfter === null || k.retireAfter > nowS;
  }

  return {
    generate,
    seal,
    /** Used by tenant creation: the first key is ACTIVE at once, inside the tenant's transaction. */
    insertActive: (tx: KeyTx, tenantId: string, k: SealedKey) => insert(tx, tenantId, k, 'ACTIVE'),

    /**
     * The tenant's keys, after the due transitions (scheduled activations, expired RETIRING
     * keys): a `keys list` with no server running shows, and makes, the states of now.
     */
    async list(tenantId: string): Promise<KeyDetail[]> {
      await this.activateDue();
      await this.sweep();
      return (await store.keys.listForTenant(tenantId)).map(toKeyDetail);
    },

    /** A page of keys, newest first as the store lists them (the management API's fields). */
    async page(tenantId: string, page: number, size: number): Promise<{ items: KeyView[]; hasMore: boolean }> {
      const all = (await this.list(tenantId)).map(({ activatesAt: _, ...view }) => view);
      return { items: all.slice(page * size, page * size + size), hasMore: all.length > page * size + size };
    },

    async stage(tenantId: string, actor: AuditActor): Promise<KeyView> {
      const k = seal(await generate());
      await store.tx(async (tx) => {
        await insert(tx, tenantId, k, 'STAGED');
        await audit(tx, actor, tenantId, 'staged', k.kid);
      });
      return toKeyView((await store.keys.find(tenantId, k.kid))!);
    },

    async activate(tenantId: string, kid: string, actor: AuditActor): Promise<void> {
      await store.tx(async (tx) => {
        const k = await lockedKey(tx, tenantId, kid);
        assertThat(k.state === 'STAGED', keyTransitionInvalid(`key ${kid} is ${k.state}; only a STAGED key can be activated`));
        await promote(tx, tenantId, kid);
        await audit(tx, actor, tenantId, 'activated', kid);
      });
    },

    /**
     * Retirement (target state left open by spec 03): a STAGED key is RETIRED at once; the
     * ACTIVE key cannot be retired (nothing would sign) until another is activated; a
     * RETIRING key is RETIRED at once, ending the validity of what it signed.
     */
    async retire(tenantId: string, kid: string, actor: AuditActor): Promise<void> {
      await store.tx(async (tx) => {
        const k = await lockedKey(tx, tenantId, kid);
        assertThat(k.state === 'STAGED' || k.state === 'RETIRING', keyTransitionInvalid(
          k.state === 'ACTIVE' ? `key ${kid} is ACTIVE; activate or rotate to another key first` : `key ${kid} is already ${k.state}`,
        ));
        await tx.keys.setState(kid, { state: 'RETIRED', retiredAt: clock.now().toISOString(), activateAfter: null });
        await audit(tx, actor, tenantId, 'retired', kid);
      });
    },

    /** Revocation (compromise): immediate and final; never the ACTIVE key (rotate first). */
    async revoke(tenantId: string, kid: string, actor: AuditActor): Promise<void> {
      await store.tx(async (tx) => {
        const k = await lockedKey(tx, tenantId, kid);
        assertThat(k.state !== 'ACTIVE', keyTransitionInvalid(`key ${kid} is ACTIVE; rotate before revoking it`));
        assertThat(k.state !== 'REVOKED', keyTransitionInvalid(`key ${kid} is already REVOKED`));
        await tx.keys.setState(kid, { state: 'REVOKED', retiredAt: k.retiredAt ?? clock.now().toISOString() });
        await audit(tx, actor, tenantId, 'revoked', kid);
      });
    },

    /**
     * Stages a new key, published in the JWKS at once, and schedules its activation for when
     * every cached copy of the JWKS holds it (JWKS_MAX_AGE_SECONDS): relying parties that cache
     * the JWKS as its headers allow never meet a token signed by a key they do not know. The
     * leased job keys.activate-due (or the next `keys list`) then makes it ACTIVE and the
     * previous ACTIVE key RETIRING. One scheduled rotation at a time: another is a conflict.
     * `now`: ACTIVE at once (a compromised key); a scheduled key, which never signed, is retired.
     */
    async rotate(tenantId: string, actor: AuditActor, opts: RotateOptions = {}): Promise<KeyDetail[]> {
      const k = seal(await generate());
      await store.tx(async (tx) => {
        await tx.keys.lockTenant(tenantId);
        const pending = await tx.keys.scheduled(tenantId);
        if (opts.now) {
          for (const p of pending) {
            await tx.keys.setState(p.kid, { state: 'RETIRED', retiredAt: clock.now().toISOString(), activateAfter: null });
            await audit(tx, actor, tenantId, 'retired', p.kid, { replacedBy: k.kid });
          }
          await insert(tx, tenantId, k, 'STAGED');
          await promote(tx, tenantId, k.kid);
          await audit(tx, actor, tenantId, 'rotated', k.kid, { activation: 'now' });
          return;
        }
        const [p] = pending;
        if (p) {
          throw keyTransitionInvalid(
            `a rotation is already scheduled: key ${p.kid} becomes ACTIVE at ${toKeyDetail(p).activatesAt}; wait for it, or rotate now (engage keys rotate --now)`,
          );
        }
        const activateAfter = clock.nowSeconds() + JWKS_MAX_AGE_SECONDS;
        await insert(tx, tenantId, k, 'STAGED', activateAfter);
        await audit(tx, actor, tenantId, 'rotated', k.kid, { activation: 'scheduled', activatesAt: new Date(activateAfter * 1000).toISOString() });
      });
      return this.list(tenantId);
    },

    /**
     * Scheduled rotations that came due, in every tenant: the key becomes ACTIVE and the previous
     * ACTIVE key RETIRING (the leased job keys.activate-due, and `list`). Each in its own
     * transaction under the tenant's key lock, re-read there: a key activated, retired or revoked
     * meanwhile is left as it is. Returns how many were activated.
     */
    async activateDue(): Promise<number> {
      const nowS = clock.nowSeconds();
      let activated = 0;
      for (const due of await store.keys.dueForActivation(nowS)) {
        activated += await store.tx(async (tx) => {
          await tx.keys.lockTenant(due.tenantId);
          const k = await tx.keys.find(due.tenantId, due.kid);
          if (k?.state !== 'STAGED' || k.activateAfter === null || k.activateAfter > nowS) return 0;
          await promote(tx, due.tenantId, k.kid);
          await audit(tx, SYSTEM_ACTOR, due.tenantId, 'activated', k.kid, { scheduled: true });
          return 1;
        });
      }
      return activated;
    },

    async sweep(): Promise<number> {
      return store.tx((tx) => tx.keys.retireExpired(clock.nowSeconds(), clock.now().toISOString()));
    },

    /**
     * The published keys. The same object is returned while the catalogue stands still and no
     * RETIRING key has passed its retireAfter, so callers may cache what they derive from it
     * (its serialization and ETag, see oauth/etag.ts) by identity. `cachedJwks` first: no await on a hit.
     */
    async jwks(tenantId: string): Promise<{ keys: PublicJwk[] }> {
      const hit = this.cachedJwks(tenantId);
      if (hit) return hit;
      const nowS = clock.nowSeconds();
      const version = deps.catalog();
      const rows = (await store.keys.inStates(tenantId, [...PUBLISHED])).filter((k) => isPublished(k, nowS));
      const keys = rows.map((k) => ({ ...(JSON.parse(k.publicJwk) as { kty: 'RSA'; n: string; e: string }), kid: k.kid, use: 'sig' as const, alg: 'RS256' as const }));
      // The set changes without a write when a RETIRING key's retireAfter passes.
      const validUntil = Math.min(...rows.map((k) => (k.state === 'RETIRING' && k.retireAfter !== null ? k.retireAfter : Infinity)));
      const jwks = { keys };
      if (jwksCache.size >= 10_000 && !jwksCache.has(tenantId)) jwksCache.delete(jwksCache.keys().next().value!);
      jwksCache.set(tenantId, { version, validUntil, jwks });
      return jwks;
    },

    /** The published keys if still cached for this catalogue version (synchronous); else `jwks`. */
    cachedJwks(tenantId: string): { keys: PublicJwk[] } | undefined {
      const hit = jwksCache.get(tenantId);
      return hit && hit.version === deps.catalog() && clock.nowSeconds() < hit.validUntil ? hit.jwks : undefined;
    },

    /**
     * Fails, with what to do, when this process's master key cannot open the tenant's signing
     * key: every process on one database must share the master key (ENGAGE_MASTER_KEY or the
     * same key file), or the first token it signs would fail instead of its start.
     */
    async verifyMasterKey(tenantId: string): Promise<void> {
      const row = await store.keys.active(tenantId);
      if (!row) return;
      try {
        sealer.open(row.privateSealed, `signing-key:${row.kid}`);
      } catch {
        throw new ConfigError(
          'the master key does not open the signing keys in this database: every process on one database must use the same master key (ENGAGE_MASTER_KEY, or the same --master-key-file)',
        );
      }
    },

    /**
     * The ACTIVE key; a rotation by any process (the CLI too) is seen by the next request (platform/catalog.ts).
     * Hot path: `cachedSigningKey(t) ?? await signingKey(t)`.
     */
    async signingKey(tenantId: string): Promise<SigningKey | undefined> {
      const row = await activeRows.get(tenantId, () => store.keys.active(tenantId));
      return row && toSigningKey(row);
    },

    /** The ACTIVE key if the catalogue cache holds its row (no database work); else `signingKey`. */
    cachedSigningKey(tenantId: string): SigningKey | undefined {
      const row = activeRows.peek(tenantId);
      return row && toSigningKey(row);
    },

    /**
     * A key that may verify tokens now: ACTIVE, or RETIRING before its last token expired.
     * Hot path: `cachedVerificationKey` first.
     */
    async verificationKey(tenantId: string, kid: string): Promise<KeyObject | undefined> {
      return toVerificationKey(await rows.get(`${tenantId} ${kid}`, () => store.keys.find(tenantId, kid)));
    },

    /**
     * The verification key from the catalogue cache: a KeyObject, undefined when the cached row
     * may not verify now, or 'miss' when the row is not cached (then await `verificationKey`).
     */
    cachedVerificationKey(tenantId: string, kid: string): KeyObject | undefined | 'miss' {
      const row = rows.peek(`${tenantId} ${kid}`);
      return row === undefined ? 'miss' : toVerificationKey(row);
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;

import { checkReplay, requestDigest } from '../../platform/idempotency';
import type { Clock } from '../../platform/clock';
import { digest, newId, newSecret, type Sealer } from '../../platform/crypto';
import type { TxRunner } from '../../platform/store/store';
import type { AccessKeyPrincipal } from '../environments/service';
import type { InstallationPrincipal } from '../installations/service';
import { EdgeErrors } from '../shared/errors';
import { BindingErrors } from './errors';
import { commitGenerationIn, createAnonymousProfileIn, ensureProfileIn, type ProfileTx } from '../profiles/service';
import type { BindingCodeRow, BindingStore } from './store';
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';
import { type BindingCode, type BindingTransition, type BindingTransitionRequest } from './schemas';

export const BINDING_CODE_PREFIX = 'svc_bind_';
const NOT_ALLOWED = 'The access key is not allowed for this installation’s app.';

export type { BindingCode, BindingTransition };

// Profiles and the generation fence are profile state's (db/owners.ts): through its `…In(tx)` functions.
type Stores = { binding: BindingStore } & ProfileTx;

/** Another request committed a transition under the same Idempotency-Key while this one ran. */
class IdempotencyRace extends Error {}

export function createBindingService(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  sealer: Sealer;
  /** Seconds a binding code stays pending (config.bindingCodeTtl). */
  codeTtl: number;
  /** Told after a transition commits: the installation's streams follow its new profile (issue 26 point 6). */
  notices?: ChangeNotices;
}) {
  const { store, clock, sealer } = deps;
  const notices = deps.notices ?? NO_NOTICES;
  // A nested transaction (a sign-in's, a sign-out's) commits with the outer one: the hook waits for it.
  const toldAfterCommit = (tx: { afterCommit(fn: () => unknown): void }, environmentId: string, installationId: string) =>
    tx.afterCommit(() => notices.installationChanged(environmentId, installationId));
  const aad = (installationId: string) => `binding-code:${installationId}`;

  /**
   * POST /v1/sdk/installation/binding-code. Spec 01 rule 1: the single pending code, or a
   * new one that reserves the next generation, in one transaction (so concurrent calls agree).
   */
  async function issueCode(p: InstallationPrincipal): Promise<{ created: boolean; code: BindingCode }> {
    const fresh = newSecret(BINDING_CODE_PREFIX);
    const sealed = sealer.seal(fresh, aad(p.id));
    const now = clock.now();
    const nowMs = now.getTime();
    return store.tx(async (tx) => {
      const shown = (c: BindingCodeRow) => ({ created: false, code: { code: sealer.open(c.codeSealed, aad(p.id)), expiresAt: new Date(c.expiresMs).toISOString() } });
      const pending = await tx.binding.findPendingCode(p.environmentId, p.id);
      if (pending && pending.expiresMs > nowMs) return shown(pending);
      const inst = await tx.binding.lockInstallation(p.environmentId, p.id);
      if (!inst) throw EdgeErrors.unauthorized();
      if (pending) await tx.binding.expireCode(p.environmentId, pending.codeDigest);
      const expiresMs = nowMs + deps.codeTtl * 1000;
      const inserted = await tx.binding.insertPendingCode({
        codeDigest: digest(fresh),
        environmentId: p.environmentId,
        installationId: p.id,
        generation: inst.generation + 1,
        codeSealed: sealed,
        expiresMs,
        createdAt: now.toISOString(),
      });
      if (!inserted) {
        // A concurrent issue (another process) committed its pending code first: that one is the answer.
        const theirs = await tx.binding.findPendingCode(p.environmentId, p.id);
        if (!theirs) throw EdgeErrors.unauthorized();
        return shown(theirs);
      }
      return { created: true, code: { code: fresh, expiresAt: new Date(expiresMs).toISOString() } };
    });
  }

  /**
   * POST /v1/installation-binding-transitions. Order: credential (401), request shape (400),
   * then in one transaction: for a known Idempotency-Key, app scope of the key (401) then
   * replay or reuse (200 / 409); otherwise code state (409), app scope of the key (401), commit.
   */
  async function transition(
    key: AccessKeyPrincipal,
    idempotencyKey: string,
    req: BindingTransitionRequest,
  ): Promise<{ created: boolean; transition: BindingTransition }> {
    const target = req.target === null ? null : { externalId: req.target.externalId };
    const requestHash = requestDigest({ bindingCode: req.bindingCode, target });
    const codeDigest = digest(req.bindingCode);
    const now = clock.now();
    const env = key.environmentId;

    const attempt = () =>
      store.tx(async (tx) => {
        const replay = async () => {
          const previous = await tx.binding.findTransition(env, idempotencyKey);
          if (!previous) return undefined;
          // A replay answers only a key that could have made the transition: the key must be
          // allowed for the installation's app, as for a new one (spec 01 "Authentication").
          const owner = await tx.binding.installation(env, previous.installationId);
          if (!owner || !key.appIds.has(owner.appId)) throw EdgeErrors.unauthorized(NOT_ALLOWED);
          checkReplay(previous.requestHash, requestHash, BindingErrors.idempotencyReused);
          return { created: false, transition: JSON.parse(previous.response) as BindingTransition };
        };
        const before = await replay();
        if (before) return before;
        const code = await tx.binding.findCode(env, codeDigest);
        if (!code) throw BindingErrors.codeUnknown();
        const inst = await tx.binding.lockInstallation(env, code.installationId);
        if (!inst) throw BindingErrors.codeUnknown();
        // With several processes, a copy of this request may have committed while this one waited
        // for the installation's lock: look again now that nothing can commit beside us.
        const whileWaiting = await replay();
        if (whileWaiting) return whileWaiting;
        // The key must be allowed for the installation's app (spec 01 "Authentication").
        if (!key.appIds.has(inst.appId)) throw EdgeErrors.unauthorized(NOT_ALLOWED);
        if (code.status === 'CONSUMED') throw BindingErrors.codeConsumed();
        if (code.status === 'EXPIRED' || code.expiresMs <= now.getTime()) throw BindingErrors.codeExpired();
        // Consuming is a conditional write: of two transitions with one code, one consumes it
        // and the other is told what the first made of it.
        if (!(await tx.binding.consumeCode(env, codeDigest, now.getTime()))) {
          const after = await tx.binding.findCode(env, codeDigest);
          throw after?.status === 'CONSUMED' ? BindingErrors.codeConsumed() : BindingErrors.codeExpired();
        }

        let profileId: string;
        if (target) profileId = await ensureProfileIn(tx, env, target.externalId, newId(), now.toISOString());
        else {
          profileId = newId();
          await createAnonymousProfileIn(tx, env, profileId, now.toISOString());
        }
        const state = target ? 'BOUND' : 'ANONYMOUS';
        // The code reserved installation.generation + 1 when issued; only one code is ever
        // pending, so it is still the next generation.
        const generation = Math.max(code.generation, inst.generation + 1);
        if (!(await commitGenerationIn(tx, env, inst.id, generation, profileId, state, now.toISOString()))) throw BindingErrors.codeConsumed();
        toldAfterCommit(tx, env, inst.id);
        const result: BindingTransition = { transitionId: newId(), installationId: inst.id, generation, state, committedAt: now.toISOString() };
        const recorded = await tx.binding.insertTransition({
          id: result.transitionId,
          environmentId: env,
          idempotencyKey: idempotencyKey!,
          requestHash,
          installationId: inst.id,
          response: JSON.stringify(result),
          committedAt: result.committedAt,
        });
        // The same Idempotency-Key committed by a concurrent request (another process): undo
        // this one and answer as a replay of that one, from the top.
        if (!recorded) throw new IdempotencyRace();
        return { created: true, transition: result };
      });
    try {
      return await attempt();
    } catch (e) {
      if (e instanceof IdempotencyRace) return attempt();
      throw e;
    }
  }

  /**
   * Issue 24: a sign-in through the identity tenant an environment names carried this
   * installation's binding code. Inside the code exchange's transaction (a nested `tx` joins
   * it), the same transition POST /v1/installation-binding-transitions commits for the target
   * `{externalId: subject}`: code consumed, generation advanced, recorded under the idempotency
   * key `sign-in:<grant id>` (the grant the exchange creates: what a sign-out finds it by). A code unknown there, expired or consumed binds
   * nothing and fails nothing: the answer says why.
   */
  async function bindOnSignIn(e: { tenantId: string; subject: string; bindingCodeDigest: string; grantId: string }): Promise<SignInBinding> {
    const now = clock.now();
    try {
      return await store.tx(async (tx) => {
        const code = await tx.binding.findCodeOfTenant(e.bindingCodeDigest, e.tenantId);
        if (!code) throw new NotBound('unknown_code');
        const env = code.environmentId;
        const inst = await tx.binding.lockInstallation(env, code.installationId);
        if (!inst) throw new NotBound('unknown_code');
        if (code.status === 'CONSUMED') throw new NotBound('consumed_code');
        if (code.status === 'EXPIRED' || code.expiresMs <= now.getTime()) throw new NotBound('expired_code');
        if (!(await tx.binding.consumeCode(env, code.codeDigest, now.getTime()))) throw new NotBound('consumed_code');
        const profileId = await ensureProfileIn(tx, env, e.subject, newId(), now.toISOString());
        const generation = Math.max(code.generation, inst.generation + 1);
        if (!(await commitGenerationIn(tx, env, inst.id, generation, profileId, 'BOUND', now.toISOString()))) throw new NotBound('consumed_code');
        toldAfterCommit(tx, env, inst.id);
        const result: BindingTransition = { transitionId: newId(), installationId: inst.id, generation, state: 'BOUND', committedAt: now.toISOString() };
        const recorded = await tx.binding.insertTransition({
          id: result.transitionId,
          environmentId: env,
          idempotencyKey: `sign-in:${e.grantId}`,
          requestHash: requestDigest({ bindingCode: e.bindingCodeDigest, target: { externalId: e.subject } }),
          installationId: inst.id,
          response: JSON.stringify(result),
          committedAt: result.committedAt,
        });
        // One authorization code is exchanged once; a second record would be a second exchange.
        if (!recorded) throw new NotBound('consumed_code');
        return { status: 'BOUND' as const, installation_id: inst.id, generation };
      });
    } catch (err) {
      // The nested transaction rolled back alone: the sign-in goes on.
      if (err instanceof NotBound) return { status: 'NOT_BOUND', reason: err.reason };
      throw err;
    }
  }

  /**
   * Issue 24: the refresh token of a sign-in that bound an installation was revoked with
   * `unbind_installation=true`. In the revocation's transaction, the installation goes back to
   * anonymous (a new anonymous profile, the next generation), recorded under `sign-out:<grant id>`,
   * unless its generation moved since the sign-in's transition (bound again, or already
   * unbound): then nothing changes. Never fails the revocation.
   */
  async function unbindOnSignOut(e: { tenantId: string; grantId: string }): Promise<void> {
    const now = clock.now();
    try {
      await store.tx(async (tx) => {
        const signIn = await tx.binding.findTransitionOfTenant(`sign-in:${e.grantId}`, e.tenantId);
        if (!signIn) return;
        const bound = JSON.parse(signIn.response) as BindingTransition;
        const env = signIn.environmentId;
        const inst = await tx.binding.lockInstallation(env, signIn.installationId);
        if (!inst || inst.generation !== bound.generation) return;
        const profileId = newId();
        await createAnonymousProfileIn(tx, env, profileId, now.toISOString());
        const generation = inst.generation + 1;
        if (!(await commitGenerationIn(tx, env, inst.id, generation, profileId, 'ANONYMOUS', now.toISOString()))) throw new NotBound('consumed_code');
        toldAfterCommit(tx, env, inst.id);
        const result: BindingTransition = { transitionId: newId(), installationId: inst.id, generation, state: 'ANONYMOUS', committedAt: now.toISOString() };
        const recorded = await tx.binding.insertTransition({
          id: result.transitionId,
          environmentId: env,
          idempotencyKey: `sign-out:${e.grantId}`,
          requestHash: requestDigest({ signOut: e.grantId, target: null }),
          installationId: inst.id,
          response: JSON.stringify(result),
          committedAt: result.committedAt,
        });
        if (!recorded) throw new NotBound('consumed_code');
      });
    } catch (err) {
      // Only the nested transaction rolls back: the revocation stands.
      if (!(err instanceof NotBound)) throw err;
    }
  }

  return { issueCode, transition, bindOnSignIn, unbindOnSignOut };
}

/** The token response's `installation_binding` (identity/oauth/context.ts InstallationBinding, same shape). */
export type SignInBinding =
  | { status: 'BOUND'; installation_id: string; generation: number }
  | { status: 'NOT_BOUND'; reason: 'unknown_code' | 'expired_code' | 'consumed_code' };

class NotBound extends Error {
  constructor(readonly reason: 'unknown_code' | 'expired_code' | 'consumed_code') {
    super(reason);
  }
}

export type BindingService = ReturnType<typeof createBindingService>;

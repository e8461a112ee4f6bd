import type { Clock } from '../../platform/clock';
import { digest, newId } from '../../platform/crypto';
import type { TxRunner } from '../../platform/store/store';
import { REVOCATION_PREFIX } from '../installations/service';
import type { SendErasure, SendLedgerTx } from '../messaging/send-erasure';
import type { PrivacyStore } from './store';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import { InspectionErrors } from '../inspection/errors';
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';

// The messaging context's store only through `sends.redactSendsIn`, its erasure of the send ledger.
type Stores = { privacy: PrivacyStore } & SendLedgerTx & AuditTx;

/** A revocation credential that is, or was, valid: its digest (a repeat after erasure is a 204). */
export interface RevocationPrincipal {
  digest: string;
}

export function createPrivacyService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; scrubDeleted: () => void; sends: SendErasure; notices?: ChangeNotices }) {
  const { store, clock } = deps;
  const notices = deps.notices ?? NO_NOTICES;
  // An erased installation's change-notice streams look at their credential again and close (issue 26 point 6).
  const toldAfterCommit = (tx: { afterCommit(fn: () => unknown): void }, environmentId: string, installationId: string) =>
    tx.afterCommit(() => notices.installationChanged(environmentId, installationId));

  /**
   * Locks what erasing installations removes, in the one order sends lock it too (sends lock
   * their profile, then their installations: messaging/recipient-store.ts; docs/decisions.md
   * "Sends and erasures: one lock order"): first the anonymous profiles erased with the
   * installations `peek` names (read unlocked), sorted, then the installations (`lock`), then
   * the anonymous profiles of those locked, again: one used since the peek (or of an installation
   * not peeked) is locked now, out of order. Nothing can add one any more (a new generation needs
   * the installation's lock), and a deadlock that this late lock meets with a send makes
   * PostgreSQL roll this transaction back, which `store.tx` runs again whole. `held`: profiles
   * this transaction already locked. Every profile erased is locked before any row is erased:
   * a send naming it commits wholly before the erasure's statements, or finds it gone.
   */
  async function lockForErasure<T extends { id: string }>(
    tx: Stores, environmentId: string, peek: readonly string[], lock: () => Promise<T[]>, held: ReadonlySet<string> = new Set(),
  ): Promise<{ installations: T[]; anonymous: Map<string, string[]> }> {
    const locked = new Set(held);
    const take = async (profiles: Iterable<string[]>) => {
      const fresh = [...new Set([...profiles].flat())].filter((id) => !locked.has(id)).sort();
      await tx.privacy.lockProfiles(environmentId, fresh);
      for (const id of fresh) locked.add(id);
    };
    await take((await tx.privacy.anonymousProfiles(environmentId, peek)).values());
    const installations = await lock();
    const anonymous = await tx.privacy.anonymousProfiles(environmentId, installations.map((i) => i.id));
    await take(anonymous.values());
    return { installations, anonymous };
  }
  const one = <T>(found: T | undefined): T[] => (found ? [found] : []);

  /**
   * PUT /v1/sdk/privacy/revocations/{operationId}. Spec 01 rule 6: only the revocation
   * credential; the installation is erased; a repeat (same credential) is again a 204.
   */
  /**
   * Spec 01 rule 6: only the revocation credential, never the installation credential. A
   * credential already used is still recognised, so the repeat answers 204 (its guard).
   */
  async function authenticate(token: string | undefined): Promise<RevocationPrincipal | undefined> {
    if (!token || !token.startsWith(REVOCATION_PREFIX)) return undefined;
    const d = digest(token);
    return (await store.privacy.findByRevocationDigest(d)) || (await store.privacy.wasRevoked(d)) ? { digest: d } : undefined;
  }

  async function revoke(r: RevocationPrincipal, operationId: string): Promise<void> {
    // The route checked the path (400) after the credential (401): a repeat with a malformed
    // operationId is as malformed as a first request. Then the work or the repeat (204).
    const d = r.digest;
    const at = clock.now().toISOString();
    await store.tx(async (tx) => {
      // Read again inside the write, and lock it: another request may have erased it since the
      // guard looked, and nothing of this installation may be written while it is erased.
      const seen = await tx.privacy.findByRevocationDigest(d);
      if (!seen) return;
      const { installations, anonymous: of } = await lockForErasure(tx, seen.environmentId, [seen.id], async () => one(await tx.privacy.lockByRevocationDigest(d)));
      const inst = installations[0];
      if (!inst) return;
      const anonymous = of.get(inst.id) ?? [];
      // The send ledger keeps its rows but names neither any more (issue 21 point 16); before
      // the erasure below, which removes the index that finds those sends.
      await deps.sends.redactSendsIn(tx, inst.environmentId, [inst.id, ...anonymous]);
      await tx.privacy.erase(inst.environmentId, inst.id, anonymous, d, operationId.toLowerCase(), at);
      toldAfterCommit(tx, inst.environmentId, inst.id);
      // secure_delete zeroed the erased rows in their pages; older images of those pages stay
      // in the WAL until a checkpoint truncates it, done off this request (docs/decisions.md).
      tx.afterCommit(deps.scrubDeleted);
    });
  }

  /**
   * Erases one locked installation as a revocation would (anonymous profiles only it used,
   * locked too: `lockForErasure`; the sends naming them redacted first) and records its
   * revocation credential as used, so the SDK's own revocation afterwards is the 204 of a repeat.
   */
  async function eraseLocked(tx: Stores, inst: { id: string; environmentId: string; revocationDigest: string }, anonymous: readonly string[], at: string): Promise<void> {
    await deps.sends.redactSendsIn(tx, inst.environmentId, [inst.id, ...anonymous]);
    await tx.privacy.erase(inst.environmentId, inst.id, anonymous, inst.revocationDigest, newId(), at);
  }

  /**
   * A privacy request of an operator or a backend (administration API, `engage installations
   * erase`; issue 24 point 5): the installation of the environment is erased as by the SDK's
   * revocation, audited in the same transaction. unknown_installation when the environment
   * has none of this id, also once it was erased (nothing is kept that names it).
   */
  async function eraseInstallation(environmentId: string, installationId: string, actor: AuditActor): Promise<void> {
    const at = clock.now().toISOString();
    await store.tx(async (tx) => {
      const { installations, anonymous } = await lockForErasure(tx, environmentId, [installationId], async () => one(await tx.privacy.lockById(environmentId, installationId)));
      const inst = installations[0];
      if (!inst) throw InspectionErrors.unknownInstallation();
      await eraseLocked(tx, inst, anonymous.get(inst.id) ?? [], at);
      toldAfterCommit(tx, environmentId, inst.id);
      await auditIn(tx, actor, 'installation.erased', { type: 'installation', id: inst.id }, { environmentId }, at);
      tx.afterCommit(deps.scrubDeleted);
    });
  }

  /**
   * Erasure of a profile (issue 24 point 5), by its id or, with `{ externalId }`, by the
   * external id it is bound to: every installation bound to it now (as eraseInstallation), the
   * sends naming it redacted, the operations recorded under it, its attributes, tags and
   * subscriptions, the test group memberships of its external id, and the profile. The audit
   * event names the profile id only (never the external id). unknown_profile when there is
   * none, also once erased. The number of installations erased.
   */
  async function eraseProfile(environmentId: string, ref: { id: string } | { externalId: string }, actor: AuditActor): Promise<{ installations: number }> {
    const at = clock.now().toISOString();
    return store.tx(async (tx) => {
      const id = 'id' in ref ? ref.id : await tx.privacy.profileIdOf(environmentId, ref.externalId);
      const profile = id === undefined ? undefined : await tx.privacy.lockProfile(environmentId, id);
      if (!profile) throw InspectionErrors.unknownProfile();
      // The profile, then the anonymous profiles of the installations bound to it, then those installations.
      const peek = await tx.privacy.boundIds(environmentId, profile.id);
      const { installations: bound, anonymous } = await lockForErasure(tx, environmentId, peek, () => tx.privacy.boundTo(environmentId, profile.id), new Set([profile.id]));
      for (const inst of bound) {
        await eraseLocked(tx, inst, anonymous.get(inst.id) ?? [], at);
        toldAfterCommit(tx, environmentId, inst.id);
      }
      await deps.sends.redactSendsIn(tx, environmentId, [profile.id], profile.externalId ?? undefined);
      await tx.privacy.eraseProfile(environmentId, profile.id, profile.externalId);
      await auditIn(tx, actor, 'profile.erased', { type: 'profile', id: profile.id }, { environmentId, installations: bound.length }, at);
      tx.afterCommit(deps.scrubDeleted);
      return { installations: bound.length };
    });
  }

  return { authenticate, revoke, eraseInstallation, eraseProfile };
}

export type PrivacyService = ReturnType<typeof createPrivacyService>;

import type { Clock } from '../../platform/clock';
import { digest } from '../../platform/crypto';
import type { TxRunner } from '../../platform/store/store';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import type { EnvironmentMarkStore } from './managed-store';

type Stores = { environmentMarks: EnvironmentMarkStore } & AuditTx;

/**
 * What `engage apply` alone does to environments, apps and access keys (issue 24): mark them
 * configuration-managed (the API and the CLI then answer 409 configuration_managed), and give a
 * declared access key the secret of the file's variable or the declared app set. Each write
 * records its audit event in its transaction, with the environment and never a secret.
 */
export function createEnvironmentApplyService(deps: { store: Stores & TxRunner<Stores>; clock: Clock }) {
  const { store, clock } = deps;
  const now = () => clock.now().toISOString();
  const audited = (environmentId: string, actor: AuditActor, action: string, target: { type: string; id: string }, changes: string[], write: (tx: Stores) => Promise<boolean>) =>
    store.tx(async (tx) => {
      if (!(await write(tx))) return false;
      await auditIn(tx, actor, action, target, { environmentId, source: 'apply', changes }, now());
      return true;
    });

  return {
    markEnvironment: (environmentId: string, actor: AuditActor) =>
      audited(environmentId, actor, 'environment.configuration_managed', { type: 'environment', id: environmentId }, ['adopt'], (tx) => tx.environmentMarks.markEnvironment(environmentId)),
    markApp: (environmentId: string, appId: string, actor: AuditActor) =>
      audited(environmentId, actor, 'app.configuration_managed', { type: 'app', id: appId }, ['adopt'], (tx) => tx.environmentMarks.markApp(environmentId, appId)),
    markAccessKey: (environmentId: string, keyId: string, actor: AuditActor) =>
      audited(environmentId, actor, 'access_key.configuration_managed', { type: 'access_key', id: keyId }, ['adopt'], (tx) => tx.environmentMarks.markAccessKey(environmentId, keyId)),
    /** The key becomes `key` (the svc_key_ value of the file's variable); the one it had stops at once. */
    setAccessKeySecret: (environmentId: string, keyId: string, key: string, actor: AuditActor) =>
      audited(environmentId, actor, 'access_key.updated', { type: 'access_key', id: keyId }, ['key'], (tx) => tx.environmentMarks.setAccessKeySecret(environmentId, keyId, digest(key), key.slice(-4))),
    setAccessKeyApps: (environmentId: string, keyId: string, appIds: readonly string[], actor: AuditActor) =>
      audited(environmentId, actor, 'access_key.updated', { type: 'access_key', id: keyId }, ['apps'], (tx) => tx.environmentMarks.setAccessKeyApps(environmentId, keyId, appIds)),
    /** Whether the key's current secret is `key` (compared by digest; the key is never stored). */
    async accessKeyIs(environmentId: string, keyId: string, key: string): Promise<boolean> {
      return (await store.environmentMarks.accessKeyDigest(environmentId, keyId)) === digest(key);
    },
  };
}

export type EnvironmentApplyService = ReturnType<typeof createEnvironmentApplyService>;

/**
 * Each environment's webhook signing secrets (issue 28 "webhook … signed per Standard Webhooks
 * with a per-environment `whsec_` secret that can be rotated with both signatures sent during the
 * overlap"). A secret is made on first use (the first webhook of the environment) or by a
 * rotation, sealed with the master key (as the APNs/FCM credentials: platform/crypto `Sealer`,
 * its AAD binding the sealed text to its environment and id) and never shown again but in the
 * rotation's answer. A rotation makes a new current secret; the older ones keep signing until the
 * overlap ends (at most: one retiring sooner keeps its time; overlap 0 stops them all at once,
 * what a leaked secret asks for). docs/webhooks.md is the guide.
 */
import type { Clock } from '../../platform/clock';
import { newId, type Sealer } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import { validInput } from '../../platform/http/schema';
import type { TxRunner } from '../../platform/store/store';
import { EnvironmentErrors } from '../environments/errors';
import type { EnvironmentService } from '../environments/service';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import { WebhookErrors } from './errors';
import { DEFAULT_OVERLAP_SECONDS, checkRotate, type WebhookSecretInfo, type WebhookSigning, type WebhookSigningRotated } from './schemas';
import { newSigningSecret } from './signing';
import type { WebhookSecretRow, WebhookSecretStore } from './store';

export type WebhookStores = { webhookSecrets: WebhookSecretStore } & AuditTx;

const aad = (environmentId: string, id: string) => `webhook-secret:${environmentId}:${id}`;

const infoOf = (r: WebhookSecretRow, i: number): WebhookSecretInfo => ({
  id: r.id,
  current: i === 0,
  createdAt: r.createdAt,
  retiresAt: r.retiresMs === null ? null : new Date(r.retiresMs).toISOString(),
});

export function createWebhookSigningService(deps: {
  store: WebhookStores & TxRunner<WebhookStores>;
  clock: Clock;
  sealer: Sealer;
  environments: Pick<EnvironmentService, 'resolve'>;
}) {
  const { store, clock, sealer, environments } = deps;
  const nowMs = (now?: Date | number) => (now === undefined ? clock.now().getTime() : typeof now === 'number' ? now : now.getTime());

  /** A new secret of `generation`, sealed; false when another process made that generation first. */
  async function insertIn(tx: WebhookStores, environmentId: string, generation: number, at: number): Promise<{ id: string; secret: string } | undefined> {
    const id = newId();
    const secret = newSigningSecret();
    const ok = await tx.webhookSecrets.insert(environmentId, { id, generation, sealed: sealer.seal(secret, aad(environmentId, id)), createdAt: new Date(at).toISOString(), createdMs: at });
    return ok ? { id, secret } : undefined;
  }

  return {
    /**
     * The secrets that sign an environment's webhooks at `now`, newest first: what
     * `deliverWebhook` is handed. The first call of an environment makes its first secret (a
     * concurrent first call elsewhere makes the same generation: one insert wins, both read it).
     */
    async signingSecrets(environmentId: string, now?: Date | number): Promise<string[]> {
      const at = nowMs(now);
      let id = environmentId;
      let live = await store.webhookSecrets.live(id, at);
      if (live.length === 0) {
        const env = await environments.resolve(environmentId);
        assertThat(env.status !== 'DELETING', EnvironmentErrors.environmentDeleting(env.name));
        id = env.id;
        await store.tx((tx) => insertIn(tx, id, 1, at));
        live = await store.webhookSecrets.live(id, at);
      }
      return live.map((r) => sealer.open(r.sealed, aad(id, r.id)));
    },

    /** The live secrets' ids and times (never a secret). */
    async show(environment: string): Promise<WebhookSigning> {
      const env = await environments.resolve(environment);
      const live = await store.webhookSecrets.live(env.id, clock.now().getTime());
      return { environmentId: env.id, secrets: live.map(infoOf) };
    },

    /**
     * Makes a new current secret, answered this once; the older ones sign until `overlapSeconds`
     * from now at the latest (default a day). Audited without the secret. Two rotations at once:
     * one wins, the other is 409 operation_conflict.
     */
    async rotate(environment: string, input: unknown, actor: AuditActor): Promise<WebhookSigningRotated> {
      const valid = validInput(checkRotate, input ?? {}, WebhookErrors.invalid);
      const overlap = valid.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS;
      const env = await environments.resolve(environment);
      assertThat(env.status !== 'DELETING', EnvironmentErrors.environmentDeleting(env.name));
      const at = clock.now().getTime();
      const made = await store.tx(async (tx) => {
        await tx.webhookSecrets.deleteRetired(env.id, at);
        const generation = (await tx.webhookSecrets.lastGeneration(env.id)) + 1;
        const inserted = await insertIn(tx, env.id, generation, at);
        if (!inserted) return undefined;
        await tx.webhookSecrets.retireOlder(env.id, generation, at, at + overlap * 1000);
        const retiring = (await tx.webhookSecrets.live(env.id, at)).filter((r) => r.id !== inserted.id).map(infoOf);
        await auditIn(
          tx,
          actor,
          'environment.webhook_signing.rotated',
          { type: 'environment', id: env.id },
          { environmentId: env.id, secretId: inserted.id, overlapSeconds: overlap, retiring: retiring.map((r) => ({ id: r.id, retiresAt: r.retiresAt })) },
          new Date(at).toISOString(),
        );
        return inserted;
      });
      assertThat(made, WebhookErrors.rotationConflict(env.name));
      const live = await store.webhookSecrets.live(env.id, at);
      return { environmentId: env.id, id: made.id, secret: made.secret, createdAt: new Date(at).toISOString(), secrets: live.map(infoOf) };
    },
  };
}

export type WebhookSigningService = ReturnType<typeof createWebhookSigningService>;

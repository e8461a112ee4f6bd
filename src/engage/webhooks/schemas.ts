/** What the webhook signing administration reads and answers (issue 28): never a secret but the one a rotation answers. */
import { DateTime, Nullable, Strict, T, checker, type Static } from '../../platform/http/schema';
import { MAX_ROTATION_OVERLAP_SECONDS } from '../environments/schemas';

/** The default overlap of a rotation: the previous secret signs beside the new one for a day (as Svix's rotation). */
export const DEFAULT_OVERLAP_SECONDS = 86_400;

export const WebhookSigningRotate = Strict({
  overlapSeconds: T.Optional(
    T.Integer({
      minimum: 0,
      maximum: MAX_ROTATION_OVERLAP_SECONDS,
      description: `how long the previous secrets keep signing beside the new one: 0 (they stop at once) to ${MAX_ROTATION_OVERLAP_SECONDS} (7 days); default ${DEFAULT_OVERLAP_SECONDS}`,
    }),
  ),
});
export type WebhookSigningRotate = Static<typeof WebhookSigningRotate>;
export const checkRotate = checker(WebhookSigningRotate);

export const WebhookSecretInfo = Strict({
  id: T.String({ description: 'the secret’s id (never the secret)' }),
  current: T.Boolean({ description: 'the newest secret: the one a receiver should hold' }),
  createdAt: DateTime(),
  retiresAt: Nullable(DateTime({ description: 'when a rotated secret stops signing; null: the current one' })),
});
export type WebhookSecretInfo = Static<typeof WebhookSecretInfo>;

export const WebhookSigning = Strict({
  environmentId: T.String({ format: 'uuid' }),
  secrets: T.Array(WebhookSecretInfo, { description: 'the secrets that sign webhooks now, newest first (each webhook carries one signature per secret); empty until the first webhook or rotation' }),
});
export type WebhookSigning = Static<typeof WebhookSigning>;

export const WebhookSigningRotated = Strict({
  environmentId: T.String({ format: 'uuid' }),
  id: T.String({ description: 'the new secret’s id' }),
  secret: T.String({ description: 'the new secret (whsec_ + base64 of 32 random bytes): shown in this answer only, sealed at rest' }),
  createdAt: DateTime(),
  secrets: T.Array(WebhookSecretInfo, { description: 'the secrets that sign webhooks now, newest first' }),
});
export type WebhookSigningRotated = Static<typeof WebhookSigningRotated>;

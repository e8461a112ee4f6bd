/**
 * Wire shapes of POST /v1/sdk/installation/binding-code and
 * POST /v1/installation-binding-transitions (spec 01).
 */
import { DateTime, Enum, Int64, Strict, T, Uuid, type Static } from '../../platform/http/schema';
import { OrNull } from '../shared/schemas';

/** BindingCode: the single pending code of an installation. */
export const BindingCode = T.Object({
  code: T.String({ description: 'Opaque, short-lived (`svc_bind_…`).' }),
  expiresAt: DateTime(),
});
export type BindingCode = Static<typeof BindingCode>;

/** BindingTransitionRequest (no additional properties). */
export const BindingTransitionRequest = Strict({
  bindingCode: T.String({ minLength: 1, maxLength: 1024, description: 'The code the app obtained; the 1024 bound is ours (codes we issue are 52 characters).' }),
  target: OrNull(
    Strict(
      { externalId: T.String({ minLength: 1, maxLength: 255 }) },
      { description: "The backend's own identity for the user, from its authenticated session; null binds a fresh anonymous profile." },
    ),
  ),
});
export type BindingTransitionRequest = Static<typeof BindingTransitionRequest>;

/** BindingTransition: the committed transition (201) or its replay (200). */
export const BindingTransition = T.Object({
  transitionId: Uuid(),
  installationId: Uuid(),
  generation: Int64(1),
  state: Enum(['BOUND', 'ANONYMOUS'] as const),
  committedAt: DateTime(),
});
export type BindingTransition = Static<typeof BindingTransition>;

/**
 * The `Idempotency-Key` header: a UUID or a business-derived string (spec 01 behaviour rule 2),
 * so 1 to 255 visible ASCII characters.
 */
export const IdempotencyKey = T.String({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$', description: '1 to 255 visible ASCII characters.' });


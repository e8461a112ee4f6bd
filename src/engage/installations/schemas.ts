/** Wire shapes of POST /v1/sdk/installations and GET /v1/sdk/installation (spec 01). */
import { DateTime, Enum, Int64, Strict, T, Uuid, type Static } from '../../platform/http/schema';
import { Platform, PrivacyState, PushPermissionState, PushSubscriptionState } from '../shared/schemas';

const text = (maxLength: number) => T.String({ maxLength });

/** BootstrapInstallationRequest (no additional properties). */
export const BootstrapInstallationRequest = Strict({
  platform: Platform,
  locale: text(35),
  timezone: text(64),
  sdkVersion: text(64),
  appVersion: text(64),
  appBuild: T.Optional(text(64)),
  deviceModel: T.Optional(text(128)),
  osVersion: T.Optional(text(64)),
  recoveryToken: T.Optional(
    T.String({
      maxLength: 1024,
      description: 'Locally persisted token used only to recover the same installation. The 1024 bound is engage’s own (no token it issues comes near it).',
    }),
  ),
});
export type BootstrapInstallationRequest = Static<typeof BootstrapInstallationRequest>;

/** InstallationSession: the bootstrap answer (201 created, 200 recovered). */
export const InstallationSession = T.Object({
  installationId: Uuid(),
  credential: T.String({ description: 'Opaque installation credential (`svc_inst_…`).' }),
  revocationCredential: T.String({ description: 'Opaque revocation credential (`svc_rev_…`).' }),
  recoveryToken: T.String({ description: 'Opaque recovery token (`svc_rec_…`).' }),
  generation: Int64(0),
  privacy: PrivacyState,
  pushSubscription: PushSubscriptionState,
  pushPermission: PushPermissionState,
  serverTime: DateTime(),
});
export type InstallationSession = Static<typeof InstallationSession>;

/** InstallationState (no additional properties, all required). */
export const InstallationState = Strict({
  installationId: Uuid(),
  generation: Int64(0),
  bindingState: Enum(['ANONYMOUS', 'BOUND'] as const),
  privacy: PrivacyState,
  pushSubscription: PushSubscriptionState,
  pushPermission: PushPermissionState,
  bound: T.Boolean(),
  updatedAt: DateTime(),
});
export type InstallationState = Static<typeof InstallationState>;


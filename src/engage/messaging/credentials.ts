/**
 * Provider credentials per app (`engage apps set-apns`, `engage apps set-fcm`): checked, then
 * sealed with the master key (platform/crypto.ts Sealer, bound to the app and provider) so the
 * private keys are never at rest in clear; what may be shown is kept beside them.
 */
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import type { Sealer } from '../../platform/crypto';
import type { TxRunner } from '../../platform/store/store';
import type { EnvironmentService } from '../environments/service';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import type { ApnsCredentials, ProviderCheck } from './apns';
import { configurationManaged } from '../shared/errors';
import { MessagingErrors } from './errors';
import type { FcmCredentials } from './fcm';
import type { CredentialRow, MessagingStore } from './store';

type Stores = { messaging: MessagingStore } & AuditTx;
type Opened<P> = P extends 'APNS' ? ApnsCredentials : FcmCredentials;

const ID = /^[A-Za-z0-9]{1,64}$/;
const TOPIC = /^[A-Za-z0-9][A-Za-z0-9.-]{0,254}$/;
export const credentialAad = (appId: string, provider: CredentialRow['provider']) => `push-credentials:${appId}:${provider}`;

function keyOf(pem: string, type: 'ec' | 'rsa', what: string) {
  try {
    const k = createPrivateKey(pem);
    if (k.asymmetricKeyType !== type) throw new Error(`not an ${type.toUpperCase()} key`);
    if (type === 'ec' && k.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('not a P-256 key');
    return k;
  } catch (e) {
    throw MessagingErrors.credentialsInvalid(`${what}: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** SHA-256 of the public key (its SubjectPublicKeyInfo DER), hex: tells two keys apart without showing either. */
export function keyFingerprint(privatePem: string): string {
  return createHash('sha256').update(createPublicKey(privatePem).export({ type: 'spki', format: 'der' })).digest('hex');
}

export const PROVIDERS = ['APNS', 'FCM'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** An app's credentials of one provider as shown: what identifies them, never the key. */
export interface CredentialMetadata {
  appId: string;
  provider: Provider;
  /** APNs: the key id, team id, topic (bundle id) and whether the sandbox is used. */
  keyId?: string;
  teamId?: string;
  topic?: string;
  sandbox?: boolean;
  /** FCM: the service account's project, client email and token endpoint. */
  projectId?: string;
  clientEmail?: string;
  tokenUri?: string;
  fingerprint: string;
  updatedAt: string;
}

/** The provider clients' credential checks (apns.ts, fcm.ts). */
export interface ProviderCheckers {
  apns: { check(c: ApnsCredentials): Promise<ProviderCheck> };
  fcm: { check(c: FcmCredentials): Promise<ProviderCheck> };
}

const GOOGLE_TOKEN_ORIGIN = 'https://oauth2.googleapis.com';

export function createCredentialService(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  sealer: Sealer;
  environments: EnvironmentService;
  /** The provider clients, for the credential check (built after this service: asked for when used). */
  providers?: () => ProviderCheckers;
  /**
   * `config.fcmUrl`: a service account's `token_uri` must be Google's token endpoint or on this
   * origin (an emulator, the test fakes), so an uploaded file cannot point the server's token
   * requests (and the credential check) at an address of the uploader's choosing.
   */
  fcmUrl?: string;
}) {
  const { store, sealer, environments } = deps;
  /** Opened credentials by app and provider, with the row they were opened from (`open`). */
  const openedRows = new Map<string, { sealed: string; info: string; updatedAt: string; value: object }>();

  async function appFor(input: { app: string; environment?: string }, opts?: { allowManaged?: boolean }) {
    const app = await environments.findApp(input.app, input.environment);
    if (opts && !opts.allowManaged && app.configurationManaged === 1) throw configurationManaged(`app ${app.name}`);
    return app;
  }

  function metadataOf(row: CredentialRow): CredentialMetadata {
    const info = JSON.parse(row.info) as Omit<CredentialMetadata, 'appId' | 'provider' | 'updatedAt'> & { fingerprint?: string };
    // Rows saved before fingerprints were kept: computed from the opened key, shown, never stored here.
    const fingerprint = info.fingerprint ?? keyFingerprint(secretKeyOf(row));
    return { appId: row.appId, provider: row.provider, ...info, fingerprint, updatedAt: row.updatedAt };
  }

  function secretKeyOf(row: CredentialRow): string {
    const secret = JSON.parse(sealer.open(row.sealed, credentialAad(row.appId, row.provider))) as { keyPem?: string; privateKey?: string };
    return (secret.keyPem ?? secret.privateKey) as string;
  }

  async function save(appId: string, environmentId: string, provider: CredentialRow['provider'], info: object, secret: object, actor: AuditActor) {
    const row: CredentialRow = {
      appId,
      environmentId,
      provider,
      info: JSON.stringify(info),
      sealed: sealer.seal(JSON.stringify(secret), credentialAad(appId, provider)),
      updatedAt: deps.clock.now().toISOString(),
    };
    await store.tx(async (tx) => {
      await tx.messaging.upsertCredential(row);
      // The provider and what identifies the key (ids, topic, project), never the key.
      await auditIn(tx, actor, 'push_credentials.set', { type: 'app', id: appId }, { environmentId, provider, ...info }, row.updatedAt);
    });
    return { appId, provider, ...info, updatedAt: row.updatedAt };
  }

  return {
    /** APNs token authentication: the .p8 key (EC P-256), its key id, the team id and the bundle id (apns-topic). */
    async setApns(input: { app: string; environment?: string; keyPem: string; keyId: string; teamId: string; topic: string; sandbox: boolean }, actor: AuditActor, opts: { allowManaged?: boolean } = {}) {
      const app = await appFor(input, opts);
      if (app.platform !== 'IOS') throw MessagingErrors.credentialsInvalid(`app ${app.name} is an ${app.platform} app: APNs credentials are for IOS apps`);
      if (!ID.test(input.keyId)) throw MessagingErrors.credentialsInvalid('key-id: must be 1 to 64 letters or digits');
      if (!ID.test(input.teamId)) throw MessagingErrors.credentialsInvalid('team-id: must be 1 to 64 letters or digits');
      if (!TOPIC.test(input.topic)) throw MessagingErrors.credentialsInvalid('topic: must be a bundle identifier');
      keyOf(input.keyPem, 'ec', 'key-file');
      const info = { keyId: input.keyId, teamId: input.teamId, topic: input.topic, sandbox: input.sandbox, fingerprint: keyFingerprint(input.keyPem) };
      return save(app.id, app.environmentId, 'APNS', info, { keyPem: input.keyPem }, actor);
    },

    /** FCM HTTP v1: a Google service-account JSON key file. */
    async setFcm(input: { app: string; environment?: string; serviceAccount: unknown }, actor: AuditActor, opts: { allowManaged?: boolean } = {}) {
      const app = await appFor(input, opts);
      if (app.platform !== 'ANDROID') throw MessagingErrors.credentialsInvalid(`app ${app.name} is an ${app.platform} app: FCM credentials are for ANDROID apps`);
      const sa = input.serviceAccount as Record<string, unknown> | null;
      if (!sa || typeof sa !== 'object') throw MessagingErrors.credentialsInvalid('service-account: must be a JSON object');
      for (const f of ['project_id', 'client_email', 'private_key'])
        if (typeof sa[f] !== 'string' || sa[f] === '') throw MessagingErrors.credentialsInvalid(`service-account.${f}: is required`);
      if (sa.type !== undefined && sa.type !== 'service_account') throw MessagingErrors.credentialsInvalid('service-account.type: must be service_account');
      const tokenUri = typeof sa.token_uri === 'string' ? sa.token_uri : 'https://oauth2.googleapis.com/token';
      if (!URL.canParse(tokenUri) || !/^https?:/.test(tokenUri)) throw MessagingErrors.credentialsInvalid('service-account.token_uri: must be an http(s) URL');
      const allowed = [GOOGLE_TOKEN_ORIGIN, ...(deps.fcmUrl ? [new URL(deps.fcmUrl).origin] : [])];
      if (!allowed.includes(new URL(tokenUri).origin))
        throw MessagingErrors.credentialsInvalid(`service-account.token_uri: must be Google's token endpoint (${GOOGLE_TOKEN_ORIGIN}/token) or on the FCM URL's origin`);
      keyOf(sa.private_key as string, 'rsa', 'service-account.private_key');
      const info = { projectId: sa.project_id as string, clientEmail: sa.client_email as string, tokenUri, fingerprint: keyFingerprint(sa.private_key as string) };
      const secret: Omit<FcmCredentials, 'projectId' | 'clientEmail' | 'tokenUri'> = {
        privateKey: sa.private_key as string,
        ...(typeof sa.private_key_id === 'string' ? { privateKeyId: sa.private_key_id } : {}),
      };
      return save(app.id, app.environmentId, 'FCM', info, secret, actor);
    },

    /** The credentials of an app as metadata (never a key), APNs then FCM; `environment` scopes the app. */
    async metadata(input: { app: string; environment?: string }): Promise<CredentialMetadata[]> {
      const app = await appFor(input);
      const out: CredentialMetadata[] = [];
      for (const provider of PROVIDERS) {
        const row = await store.messaging.credential(app.id, provider);
        if (row) out.push(metadataOf(row));
      }
      return out;
    },

    /** One provider's credentials of an app as metadata (404 credentials_not_found when none). */
    async metadataOf(input: { app: string; environment?: string; provider: Provider }): Promise<CredentialMetadata> {
      const app = await appFor(input);
      const row = await store.messaging.credential(app.id, input.provider);
      if (!row) throw MessagingErrors.credentialsNotFound(app.name, input.provider);
      return metadataOf(row);
    },

    /** Deletes an app's credentials of a provider: its pushes fail until new ones are set. */
    async remove(input: { app: string; environment?: string; provider: Provider }, actor: AuditActor, opts: { allowManaged?: boolean } = {}): Promise<void> {
      const app = await appFor(input, opts);
      const deleted = await store.tx(async (tx) => {
        if (!(await tx.messaging.deleteCredential(app.environmentId, app.id, input.provider))) return false;
        await auditIn(tx, actor, 'push_credentials.deleted', { type: 'app', id: app.id }, { environmentId: app.environmentId, provider: input.provider }, deps.clock.now().toISOString());
        return true;
      });
      if (!deleted) throw MessagingErrors.credentialsNotFound(app.name, input.provider);
    },

    /**
     * Asks the provider whether it accepts the credentials, without sending a push (issue 24
     * point 2; apns.ts and fcm.ts `check`): the metadata checked and the provider's answer.
     */
    async check(input: { app: string; environment?: string; provider: Provider }): Promise<CredentialMetadata & { check: ProviderCheck & { checkedAt: string } }> {
      const app = await appFor(input);
      const row = await store.messaging.credential(app.id, input.provider);
      if (!row) throw MessagingErrors.credentialsNotFound(app.name, input.provider);
      const providers = deps.providers?.();
      if (!providers) throw new Error('no provider clients to check credentials with');
      const secret = JSON.parse(sealer.open(row.sealed, credentialAad(row.appId, row.provider))) as object;
      const opened = { ...(JSON.parse(row.info) as object), ...secret };
      const answer = input.provider === 'APNS' ? await providers.apns.check(opened as ApnsCredentials) : await providers.fcm.check(opened as FcmCredentials);
      return { ...metadataOf(row), check: { ...answer, checkedAt: deps.clock.now().toISOString() } };
    },

    /**
     * The opened credentials of an app (the delivery worker, at every claim), or undefined. The
     * row is read each time, so credentials replaced or removed count from the next claim; the
     * sealed key is opened again only when the row changed (a claim per hundred deliveries made
     * the decryption a visible share of a delivery's cost). The object is frozen: it is shared.
     */
    async open<P extends CredentialRow['provider']>(appId: string, provider: P): Promise<(Opened<P> & { updatedAt: string }) | undefined> {
      const row = await store.messaging.credential(appId, provider);
      const id = `${appId}:${provider}`;
      if (!row) {
        openedRows.delete(id);
        return undefined;
      }
      const held = openedRows.get(id);
      if (held && held.sealed === row.sealed && held.info === row.info && held.updatedAt === row.updatedAt) return held.value as Opened<P> & { updatedAt: string };
      const secret = JSON.parse(sealer.open(row.sealed, credentialAad(appId, provider))) as object;
      const value = Object.freeze({ ...(JSON.parse(row.info) as object), ...secret, updatedAt: row.updatedAt });
      openedRows.set(id, { sealed: row.sealed, info: row.info, updatedAt: row.updatedAt, value });
      return value as Opened<P> & { updatedAt: string };
    },
  };
}

export type CredentialService = ReturnType<typeof createCredentialService>;

import type { AuditActor } from '../shared/audit';
import type { AppView } from '../environments/service';
import { keyFingerprint, type CredentialService } from '../messaging/credentials';
import { at, type EngageInputs } from './inputs';
import type { ApplyApp } from './schema';

/** `engage apply`'s provider credentials of an app (APNs, FCM): what differs from the file, and setting it. */

/** Which of an existing app's declared provider credentials differ from what it holds (compared by metadata and the key's fingerprint). */
export async function credentialChangesOf(credentials: CredentialService, environmentId: string, app: AppView, a: ApplyApp, inputs: EngageInputs, idx: string): Promise<string[]> {
  if (!a.apns && !a.fcm) return [];
  const held = await credentials.metadata({ app: app.id, environment: environmentId });
  const changes: string[] = [];
  if (a.apns) {
    const m = held.find((c) => c.provider === 'APNS');
    const pem = inputs.apnsKeys.get(idx)!;
    const same = m && m.keyId === a.apns.keyId && m.teamId === a.apns.teamId && m.topic === a.apns.topic && m.sandbox === (a.apns.sandbox ?? false) && m.fingerprint === fingerprintOf(pem);
    if (!same) changes.push('apns');
  }
  if (a.fcm) {
    const m = held.find((c) => c.provider === 'FCM');
    const sa = inputs.serviceAccounts.get(idx) as { project_id?: unknown; client_email?: unknown; private_key?: unknown } | null;
    const same = m && sa && m.projectId === sa.project_id && m.clientEmail === sa.client_email && typeof sa.private_key === 'string' && m.fingerprint === fingerprintOf(sa.private_key);
    if (!same) changes.push('fcm');
  }
  return changes;
}

/** A key that cannot be read has no fingerprint: the credential is set, and the service says what is wrong. */
function fingerprintOf(pem: string): string | undefined {
  try {
    return keyFingerprint(pem);
  } catch {
    return undefined;
  }
}

/** Sets the declared provider credentials named in `which`, each refusal named by its place in the file. */
export async function setCredentials(credentials: CredentialService, environmentId: string, appId: string, a: ApplyApp, inputs: EngageInputs, idx: string, place: string, actor: AuditActor, which: string[]) {
  const allow = { allowManaged: true } as const;
  if (a.apns && which.includes('apns')) {
    const { keyId, teamId, topic } = a.apns;
    await at(`${place}.apns`, () => credentials.setApns({ app: appId, environment: environmentId, keyPem: inputs.apnsKeys.get(idx)!, keyId, teamId, topic, sandbox: a.apns!.sandbox ?? false }, actor, allow));
  }
  if (a.fcm && which.includes('fcm')) await at(`${place}.fcm`, () => credentials.setFcm({ app: appId, environment: environmentId, serviceAccount: inputs.serviceAccounts.get(idx) }, actor, allow));
}

import { useState } from 'preact/hooks';
import { call } from '../../api';
import { useCall } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, bind, useSubmit } from '../../ui/forms';
import { when } from '../../ui/format';
import type { App } from './app-model';

/**
 * An app's provider credentials on its page (issue 24 point 2): the APNs key of an iOS app or the
 * FCM service account of an Android app, uploaded, replaced, checked against the provider (the
 * answer in words) and removed. Split from apps.tsx (the app list and page).
 */

interface Credentials {
  appId: string;
  provider: 'APNS' | 'FCM';
  keyId?: string;
  teamId?: string;
  topic?: string;
  sandbox?: boolean;
  projectId?: string;
  clientEmail?: string;
  tokenUri?: string;
  fingerprint: string;
  updatedAt: string;
}
interface CheckResult {
  ok: boolean;
  status?: number;
  reason?: string;
  checkedAt: string;
}


const REASONS: Record<string, string> = {
  InvalidProviderToken: 'Apple did not accept the signed token: the key id, team id or .p8 key do not belong together.',
  ExpiredProviderToken: 'Apple found the signed token too old: check the server clock.',
  TopicDisallowed: 'The topic is not one this key may push to: it should be the app’s bundle id.',
  BadTopic: 'The topic is not valid: it should be the app’s bundle id.',
  MissingTopic: 'No topic was given.',
  invalid_grant: 'Google refused the service account’s key (deleted, disabled, or the clock is off).',
};

/** A provider's answer to the credential check, in words. */
export function checkWords(provider: 'APNS' | 'FCM', r: CheckResult): string {
  const who = provider === 'APNS' ? 'APNs' : 'FCM';
  if (r.ok) return `${who} accepted these credentials (checked ${when(r.checkedAt)}).`;
  if (r.status === undefined) return `${who} could not be reached: ${r.reason ?? 'no answer'}.`;
  const why = r.reason && REASONS[r.reason] ? REASONS[r.reason] : `Its answer: ${r.reason ?? 'no reason given'}.`;
  return `${who} refused these credentials (HTTP ${r.status}). ${why}`;
}

export function CredentialsSection({ environmentId, app }: { environmentId: string; app: App }) {
  const params = { environmentId, appId: app.id };
  const { data, error, reload } = useCall<{ items: Credentials[] }, 'GET /engage/admin/environments/{environmentId}/apps/{appId}/credentials'>(
    'GET /engage/admin/environments/{environmentId}/apps/{appId}/credentials',
    { params },
  );
  const provider = app.platform === 'IOS' ? 'APNS' : 'FCM';
  const current = data?.items.find((c) => c.provider === provider);
  const [result, setResult] = useState<CheckResult | undefined>();
  const [removing, setRemoving] = useState(false);
  const check = useSubmit(async () => {
    setResult(undefined);
    const r = await call<Credentials & { check: CheckResult }, 'POST /engage/admin/environments/{environmentId}/apps/{appId}/credentials/{provider}/check'>(
      'POST /engage/admin/environments/{environmentId}/apps/{appId}/credentials/{provider}/check',
      { params: { ...params, provider: provider.toLowerCase() } },
    );
    setResult(r.check);
  });
  const who = provider === 'APNS' ? 'APNs' : 'FCM';
  return (
    <section aria-labelledby="credentials-title">
      <h2 id="credentials-title">{who} credentials</h2>
      {error && <ErrorBox error={error} />}
      {data && !current && <p>No {who} credentials yet: pushes to this app’s installations fail until they are set.</p>}
      {current && (
        <>
          <dl class="facts">
            {current.keyId !== undefined && (
              <>
                <dt>Key id</dt>
                <dd>
                  <code>{current.keyId}</code>
                </dd>
                <dt>Team id</dt>
                <dd>
                  <code>{current.teamId}</code>
                </dd>
                <dt>Topic</dt>
                <dd>
                  <code>{current.topic}</code>
                </dd>
                <dt>Endpoint</dt>
                <dd>{current.sandbox ? 'Sandbox (development builds)' : 'Production'}</dd>
              </>
            )}
            {current.projectId !== undefined && (
              <>
                <dt>Project</dt>
                <dd>
                  <code>{current.projectId}</code>
                </dd>
                <dt>Service account</dt>
                <dd>
                  <code>{current.clientEmail}</code>
                </dd>
              </>
            )}
            <dt>Fingerprint</dt>
            <dd>
              <code>{current.fingerprint}</code> <span class="muted">(SHA-256 of the public key)</span>
            </dd>
            <dt>Updated</dt>
            <dd>{when(current.updatedAt)}</dd>
          </dl>
          {check.error && <ErrorBox error={check.error} />}
          {result && (
            <p class={result.ok ? 'check-ok' : 'check-failed'} role="status">
              <strong>{result.ok ? 'Accepted. ' : 'Refused. '}</strong>
              {checkWords(provider, result)}
            </p>
          )}
          <div class="actions">
            <button type="button" onClick={() => void check.run()} disabled={check.busy}>
              {check.busy ? 'Checking…' : 'Check credentials'}
            </button>
            <button type="button" class="danger" onClick={() => setRemoving(true)}>
              Delete credentials
            </button>
          </div>
          {removing && <ConfirmByName
            open
            title={`Delete the ${who} credentials of ${app.name}`}
            name={app.name}
            consequence={`Pushes to this app’s installations fail until new ${who} credentials are set.`}
            action="Delete credentials"
            onClose={() => setRemoving(false)}
            onConfirm={async () => {
              await call('DELETE /engage/admin/environments/{environmentId}/apps/{appId}/credentials/{provider}', { params: { ...params, provider: provider.toLowerCase() } });
              setRemoving(false);
              setResult(undefined);
              reload();
            }}
          />}
        </>
      )}
      {app.platform === 'IOS' ? (
        <ApnsUpload environmentId={environmentId} app={app} replacing={!!current} onSaved={reload} />
      ) : (
        <FcmUpload environmentId={environmentId} app={app} replacing={!!current} onSaved={reload} />
      )}
    </section>
  );
}

const fileOf = (e: Event) => (e.target as HTMLInputElement).files?.[0];

function ApnsUpload({ environmentId, app, replacing, onSaved }: { environmentId: string; app: App; replacing: boolean; onSaved: () => void }) {
  const [file, setFile] = useState<File | undefined>();
  const [keyId, setKeyId] = useState('');
  const [teamId, setTeamId] = useState('');
  const [topic, setTopic] = useState(app.bundleId ?? '');
  const [sandbox, setSandbox] = useState(false);
  const [saved, setSaved] = useState(false);
  return (
    <>
      <h3>{replacing ? 'Replace the APNs key' : 'Upload an APNs key'}</h3>
      {saved && <Notice>The APNs key is stored, sealed; it is never shown again.</Notice>}
      <Form
        label="Upload an APNs key"
        submit="Upload APNs key"
        onSubmit={async () => {
          if (!file) throw new Error('Choose the .p8 file first.');
          const privateKey = await file.text();
          await call('PUT /engage/admin/environments/{environmentId}/apps/{appId}/credentials/apns', {
            params: { environmentId, appId: app.id },
            body: { keyId, teamId, topic, sandbox, privateKey },
          });
          setSaved(true);
          onSaved();
        }}
      >
        <Field label="Key file (.p8)" hint="The token-based authentication key downloaded from Apple (AuthKey_XXXXXXXXXX.p8). It is read in this browser and sent once.">
          {(a) => <input {...a} type="file" accept=".p8,application/pkcs8,text/plain" required onChange={(e) => setFile(fileOf(e))} />}
        </Field>
        <Field label="Key id" hint="10 characters, shown beside the key at Apple.">
          {(a) => <input {...a} {...bind(keyId, setKeyId)} required pattern="[A-Za-z0-9]{1,64}" autoComplete="off" spellcheck={false} />}
        </Field>
        <Field label="Team id" hint="Your Apple developer team id, 10 characters.">
          {(a) => <input {...a} {...bind(teamId, setTeamId)} required pattern="[A-Za-z0-9]{1,64}" autoComplete="off" spellcheck={false} />}
        </Field>
        <Field label="Topic" hint="The app’s bundle id (the apns-topic).">
          {(a) => <input {...a} {...bind(topic, setTopic)} required maxLength={255} autoComplete="off" spellcheck={false} />}
        </Field>
        <div class="field checkbox">
          <label>
            <input type="checkbox" checked={sandbox} onChange={(e) => setSandbox((e.target as HTMLInputElement).checked)} /> Use the APNs sandbox (development builds)
          </label>
        </div>
      </Form>
    </>
  );
}

function FcmUpload({ environmentId, app, replacing, onSaved }: { environmentId: string; app: App; replacing: boolean; onSaved: () => void }) {
  const [file, setFile] = useState<File | undefined>();
  const [saved, setSaved] = useState(false);
  return (
    <>
      <h3>{replacing ? 'Replace the FCM service account' : 'Upload an FCM service account'}</h3>
      {saved && <Notice>The service-account key is stored, sealed; it is never shown again.</Notice>}
      <Form
        label="Upload an FCM service account"
        submit="Upload service account"
        onSubmit={async () => {
          if (!file) throw new Error('Choose the service-account JSON file first.');
          let serviceAccount: unknown;
          try {
            serviceAccount = JSON.parse(await file.text());
          } catch {
            throw new Error('The file is not JSON: choose the key file Google Cloud downloaded for the service account.');
          }
          if (!serviceAccount || typeof serviceAccount !== 'object' || Array.isArray(serviceAccount)) throw new Error('The file holds no JSON object: choose the service account’s key file.');
          await call('PUT /engage/admin/environments/{environmentId}/apps/{appId}/credentials/fcm', { params: { environmentId, appId: app.id }, body: { serviceAccount } });
          setSaved(true);
          onSaved();
        }}
      >
        <Field label="Service-account key file (JSON)" hint="From Google Cloud: IAM, Service accounts, Keys, Add key (JSON). It is read in this browser and sent once.">
          {(a) => <input {...a} type="file" accept=".json,application/json" required onChange={(e) => setFile(fileOf(e))} />}
        </Field>
      </Form>
    </>
  );
}

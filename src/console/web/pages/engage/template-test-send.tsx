import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Link } from '../../router';
import { DataTable, useCall } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { Field, Form } from '../../ui/forms';
import { SampleVariables, sampleOf, variablesOf } from './preview';
import { envPath } from './sends';
import { TemplateDetailBody } from './template-editor';

export interface TestSendAnswer {
  requestId: string;
  accepted: boolean;
  unresolvedMembers: number;
  resolvedLocale: string;
  renderedTitle: string;
  diagnostics: { installationId: string; platform: string; code: string; deliveryId: string | null }[];
}

export const DIAGNOSTIC_WORDS: Record<string, string> = {
  TARGETED: 'A delivery was admitted',
  APP_NOT_TARGETED: 'Its app is not one of the template’s',
  APP_DISABLED: 'Its app is disabled',
  PRIVACY_OPTED_OUT: 'It opted out (privacy)',
  PUSH_UNSUBSCRIBED: 'It unsubscribed from push',
  PUSH_PERMISSION_DENIED: 'Push permission denied',
  PUSH_PERMISSION_NOT_DETERMINED: 'Push permission not asked yet',
  NO_PUSH_TOKEN: 'No push token',
  NO_PROVIDER_CREDENTIALS: 'Its app has no provider credentials',
  SUPPRESSED_DUPLICATE: 'The same push was sent to it moments ago',
};

/** A test send of a version to a test group, and what came of it (each member's installation, a link to the send). */
export function TestSend({ environmentId, template }: { environmentId: string; template: TemplateDetailBody }) {
  const groups = useCall<{ items: { id: string; name: string; memberCount: number }[] }, 'GET /engage/admin/environments/{environmentId}/test-groups'>('GET /engage/admin/environments/{environmentId}/test-groups', {
    params: { environmentId },
    query: { size: 100 },
  });
  const [group, setGroup] = useState('');
  const [picked, setPicked] = useState('');
  // Unless another is picked: the draft if there is one, else the published version.
  const version = (picked === 'draft' && template.draft) || (picked === 'published' && template.published) ? picked : template.draft ? 'draft' : 'published';
  const def = version === 'draft' ? template.draft : template.published;
  const [locale, setLocale] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [answer, setAnswer] = useState<TestSendAnswer | undefined>();
  const defs = def?.variables ?? {};
  const filled = Object.fromEntries(Object.entries(defs).map(([n, d]) => [n, values[n] ?? sampleOf(n, d)]));
  const chosen = group || groups.data?.items[0]?.id || '';
  if (template.status === 'ARCHIVED') return null;
  return (
    <section aria-labelledby="test-send-h">
      <h2 id="test-send-h">Test send</h2>
      <p class="muted">Sends a version to the installations of a test group, marked as a test: outside rate limits and counts.</p>
      {groups.error && <ErrorBox error={groups.error} />}
      {groups.data && groups.data.items.length === 0 ? (
        <p>
          No test group yet: <Link href={envPath(environmentId, 'test-groups')}>create one</Link> with your devices.
        </p>
      ) : (
        <Form
          label="Test send"
          submit="Send test"
          onSubmit={async () => {
            setAnswer(undefined);
            const r = await call<TestSendAnswer, 'POST /engage/admin/environments/{environmentId}/test-sends'>('POST /engage/admin/environments/{environmentId}/test-sends', {
              params: { environmentId },
              body: { template: template.key, testGroup: chosen, version, ...(locale ? { locale } : {}), variables: variablesOf(defs, filled) },
            });
            setAnswer(r);
          }}
        >
          <Field label="Test group">
            {(a) => (
              <select {...a} value={chosen} onChange={(e) => setGroup((e.target as HTMLSelectElement).value)}>
                {groups.data?.items.map((g) => (
                  <option key={g.id} value={g.id}>
                    {g.name} ({g.memberCount} members)
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Version to send">
            {(a) => (
              <select {...a} value={version} onChange={(e) => setPicked((e.target as HTMLSelectElement).value)}>
                {template.draft && <option value="draft">The draft (version {template.latestVersion})</option>}
                {template.published && <option value="published">The published version ({template.publishedVersion})</option>}
              </select>
            )}
          </Field>
          <Field label="Locale" hint="Empty: the template's default locale. A locale it lacks resolves as a send would (de-AT to de).">
            {(a) => (
              <input {...a} value={locale} onInput={(e) => setLocale((e.target as HTMLInputElement).value)} list="test-send-locales" autoComplete="off" />
            )}
          </Field>
          <datalist id="test-send-locales">
            {Object.keys(def?.localizations ?? {}).map((l) => (
              <option key={l} value={l} />
            ))}
          </datalist>
          <SampleVariables defs={defs} values={filled} onChange={setValues} />
        </Form>
      )}
      {answer && (
        <div class="test-send-result">
          <Notice>
            {answer.accepted ? 'Test send admitted' : 'Test send made, but no delivery was admitted'}: “{answer.renderedTitle}” in {answer.resolvedLocale}.{' '}
            <Link href={envPath(environmentId, 'sends', answer.requestId)}>Follow its deliveries</Link>
          </Notice>
          {answer.unresolvedMembers > 0 && <p class="muted">{answer.unresolvedMembers} members name no installation now (an unknown external id, or an erased installation).</p>}
          <DataTable
            caption="Installations of the test send"
            rows={answer.diagnostics}
            rowKey={(d) => d.installationId}
            columns={[
              { header: 'Installation', cell: (d) => <Link href={envPath(environmentId, 'installations', d.installationId)}><code>{d.installationId}</code></Link> },
              { header: 'Platform', cell: (d) => d.platform },
              { header: 'Outcome', cell: (d) => `${DIAGNOSTIC_WORDS[d.code] ?? d.code} (${d.code})` },
            ]}
          />
        </div>
      )}
    </section>
  );
}

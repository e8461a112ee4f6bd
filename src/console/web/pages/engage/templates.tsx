import { useEffect, useMemo, useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, navigate } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, useSubmit } from '../../ui/forms';
import { when } from '../../ui/format';
import { PhoneFrames, SampleVariables, sampleOf, usePreviews, variablesOf, type VariableDef } from './preview';
import { EnvPageHeader, envPath } from './sends';

export interface Template {
  id: string;
  environmentId: string;
  key: string;
  status: 'DRAFT' | 'ACTIVE' | 'ARCHIVED';
  publishedVersion: number | null;
  latestVersion: number;
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
}

interface Version {
  version: number;
  state: 'DRAFT' | 'PUBLISHED' | 'SUPERSEDED';
  createdAt: string;
  publishedAt: string | null;
}

/** A version as stored: the template file with app ids and defaults filled in. */
export interface Definition {
  key: string;
  appIds: string[];
  defaultLocale: string;
  fallbackLocale?: string;
  variables: Record<string, VariableDef>;
  localizations: Record<string, { title: string; body: string; deepLink?: string; customData?: Record<string, unknown> }>;
  [more: string]: unknown;
}

interface TemplateDetailBody extends Template {
  versions: Version[];
  draft: Definition | null;
  published: Definition | null;
  sends: number;
  deliveries: Record<string, number>;
  testSends: number;
}

interface AppLine {
  id: string;
  name: string;
  platform: 'IOS' | 'ANDROID';
}

const STATUS_WORDS: Record<Template['status'], string> = {
  DRAFT: 'Draft: not published, sends are refused',
  ACTIVE: 'Active: a published version serves sends',
  ARCHIVED: 'Archived: no more sends',
};

/** The environment's apps (a template names them; up to 100 read). */
function useApps(environmentId: string) {
  const { data } = useCall<{ items: AppLine[] }, 'GET /engage/admin/environments/{environmentId}/apps'>('GET /engage/admin/environments/{environmentId}/apps', { params: { environmentId }, query: { size: 100 } });
  return data?.items;
}

/** The template file of a stored definition (apps by name where known), for the editor. */
function fileOf(def: Definition, apps: AppLine[] | undefined): Record<string, unknown> {
  const { key, appIds, variables, ...rest } = def;
  const vars = Object.fromEntries(
    Object.entries(variables).map(([n, v]) => [n, v.required ? { type: v.type } : { type: v.type, required: false, ...(v.default !== undefined ? { default: v.default } : {}) }]),
  );
  return { key, apps: appIds.map((id) => apps?.find((a) => a.id === id)?.name ?? id), ...rest, variables: vars };
}

/** A valid first file: the environment's apps, two locales, one variable (docs/templates.md has the format). */
function exampleFile(apps: AppLine[] | undefined) {
  return {
    key: 'order.shipped',
    apps: apps && apps.length > 0 ? apps.slice(0, 2).map((a) => a.name) : ['your-app'],
    defaultLocale: 'en',
    variables: { orderId: { type: 'string' }, amount: { type: 'number' } },
    localizations: {
      en: { title: 'Order {{orderId}} shipped', body: 'Total {{amount}}: it is on its way.', deepLink: 'shop://orders/{{orderId}}' },
      de: { title: 'Bestellung {{orderId}} versandt', body: 'Summe {{amount}}: sie ist unterwegs.' },
    },
    ttlSeconds: 3600,
    priority: 'high',
  };
}

/** The JSON text of the editor, or the reason it is not JSON. */
function parsed(text: string): { value?: unknown; problem?: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}

/** The template file editor: a labelled textarea whose JSON is checked as one types (the server checks the rest). */
function JsonEditor(props: { label: string; value: string; onInput: (v: string) => void; readOnly?: boolean }) {
  const problem = parsed(props.value).problem;
  return (
    <Field label={props.label} hint="A template file in JSON: key, apps, defaultLocale, variables, localizations (docs/templates.md). The server checks it and names the field it refuses.">
      {(a) => (
        <>
          <textarea {...a} class="json-editor" value={props.value} onInput={(e) => props.onInput((e.target as HTMLTextAreaElement).value)} spellcheck={false} readOnly={props.readOnly} aria-invalid={problem ? 'true' : undefined} rows={22} />
          <p class={problem ? 'msg-field-error' : 'hint'} aria-live="polite">
            {problem ? `Not valid JSON: ${problem}` : 'Valid JSON.'}
          </p>
        </>
      )}
    </Field>
  );
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const asObj = (v: unknown): Obj | undefined => (isObj(v) ? v : undefined);

/**
 * The essential fields of the file as a form (key, apps, default locale, its title and body):
 * read from the editor's JSON and written back into it, so either can be used.
 */
function EssentialFields(props: { text: string; onText: (v: string) => void; apps: AppLine[] | undefined; withKey: boolean }) {
  const { value } = parsed(props.text);
  if (!isObj(value)) return <p class="muted">Fix the JSON below to edit its essential fields here.</p>;
  const update = (change: (f: Obj) => void) => {
    const f = JSON.parse(props.text) as Obj;
    change(f);
    props.onText(JSON.stringify(f, null, 2));
  };
  const locale = typeof value.defaultLocale === 'string' ? value.defaultLocale : '';
  const locs = isObj(value.localizations) ? value.localizations : {};
  const texts = isObj(locs[locale]) ? (locs[locale] as Obj) : {};
  const apps = Array.isArray(value.apps) ? (value.apps as unknown[]).map(String) : [];
  const setText = (field: 'title' | 'body', v: string) =>
    update((f) => {
      const l = isObj(f.localizations) ? f.localizations : (f.localizations = {});
      l[locale] = { ...(isObj(l[locale]) ? l[locale] : {}), [field]: v };
    });
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return (
    <fieldset class="variables">
      <legend>Essential fields</legend>
      <p class="hint">They write into the file below; other locales, variables and settings are edited there.</p>
      {props.withKey && (
        <Field label="Key" hint="Lower-case letters, digits and . _ - (e.g. order.shipped): sends name it in their path. It cannot change later.">
          {(a) => <input {...a} value={str(value.key)} onInput={(e) => update((f) => (f.key = (e.target as HTMLInputElement).value))} autoComplete="off" spellcheck={false} />}
        </Field>
      )}
      {props.apps && props.apps.length > 0 && (
        <fieldset class="variables">
          <legend>Apps</legend>
          {props.apps.map((app) => {
            const on = apps.includes(app.name) || apps.includes(app.id);
            return (
              <label key={app.id} class="check">
                <input
                  type="checkbox"
                  checked={on}
                  onChange={() => update((f) => (f.apps = on ? apps.filter((x) => x !== app.name && x !== app.id) : [...apps, app.name]))}
                />{' '}
                {app.name} ({app.platform === 'IOS' ? 'iOS' : 'Android'})
              </label>
            );
          })}
        </fieldset>
      )}
      <Field label="Default locale" hint="A BCP 47 tag such as en or pt-BR: a key of localizations.">
        {(a) => (
          <input
            {...a}
            value={locale}
            onInput={(e) =>
              update((f) => {
                const next = (e.target as HTMLInputElement).value;
                const l = isObj(f.localizations) ? f.localizations : (f.localizations = {});
                // The default locale's texts move with it (a rename, not a new locale).
                if (locale && isObj(l[locale]) && next && !(next in l)) {
                  l[next] = l[locale];
                  delete l[locale];
                }
                f.defaultLocale = next;
              })
            }
            autoComplete="off"
          />
        )}
      </Field>
      <Field label={`Title (${locale || 'default locale'})`} hint="Up to 256 characters; {{name}} inserts a declared variable.">
        {(a) => <input {...a} value={str(texts.title)} onInput={(e) => setText('title', (e.target as HTMLInputElement).value)} autoComplete="off" />}
      </Field>
      <Field label={`Body (${locale || 'default locale'})`} hint="Up to 2048 characters.">
        {(a) => <input {...a} value={str(texts.body)} onInput={(e) => setText('body', (e.target as HTMLInputElement).value)} autoComplete="off" />}
      </Field>
    </fieldset>
  );
}

export function TemplateList({ environmentId }: { environmentId: string }) {
  const list = usePaged<Template, 'GET /engage/admin/environments/{environmentId}/templates'>('GET /engage/admin/environments/{environmentId}/templates', { params: { environmentId } });
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title="Templates">
        <Link class="button primary" href={envPath(environmentId, 'new-template')}>
          Create a template
        </Link>
      </EnvPageHeader>
      <DataTable
        caption="Templates"
        {...paged(list)}
        rowKey={(t) => t.id}
        empty="No template yet."
        columns={[
          { header: 'Key', cell: (t) => <Link href={envPath(environmentId, 'templates', t.key)}>{t.key}</Link> },
          { header: 'Status', cell: (t) => STATUS_WORDS[t.status] },
          { header: 'Published version', cell: (t) => t.publishedVersion ?? 'None' },
          { header: 'Latest version', cell: (t) => `${t.latestVersion}${t.latestVersion !== t.publishedVersion ? ' (draft)' : ''}` },
          { header: 'Updated', cell: (t) => when(t.updatedAt) },
        ]}
      />
    </>
  );
}

export function TemplateCreate({ environmentId }: { environmentId: string }) {
  const apps = useApps(environmentId);
  const [text, setText] = useState('');
  useEffect(() => {
    if (apps && text === '') setText(JSON.stringify(exampleFile(apps), null, 2));
  }, [apps]);
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title="Create a template" crumbs={[{ label: 'Templates', path: '/templates' }]} />
      <p>The first version is a draft: preview it, then publish it to serve sends.</p>
      <Form
        label="Create a template"
        submit="Create template"
        onSubmit={async () => {
          const { value, problem } = parsed(text);
          if (problem) throw new Error(`The template file is not valid JSON: ${problem}`);
          const t = await call<Template, 'POST /engage/admin/environments/{environmentId}/templates'>('POST /engage/admin/environments/{environmentId}/templates', { params: { environmentId }, body: value });
          navigate(envPath(environmentId, 'templates', t.key));
        }}
      >
        <EssentialFields text={text} onText={setText} apps={apps} withKey />
        <JsonEditor label="Template file" value={text} onInput={setText} />
      </Form>
    </>
  );
}

export function TemplateDetail({ environmentId, templateKey }: { environmentId: string; templateKey: string }) {
  const detail = useCall<TemplateDetailBody, 'GET /engage/admin/environments/{environmentId}/templates/{templateKey}'>('GET /engage/admin/environments/{environmentId}/templates/{templateKey}', {
    params: { environmentId, templateKey },
  });
  const apps = useApps(environmentId);
  const t = detail.data;
  const editable = t && !t.configurationManaged && t.status !== 'ARCHIVED';
  const current = t?.draft ?? t?.published ?? null;
  const [text, setText] = useState('');
  const [saved, setSaved] = useState('');
  const [notice, setNotice] = useState('');
  const [tick, setTick] = useState(0);
  const [archiving, setArchiving] = useState(false);
  // The editor starts from the draft (or the published version) once the template and its apps are read.
  useEffect(() => {
    if (current && apps && saved === '') {
      const file = JSON.stringify(fileOf(current, apps), null, 2);
      setText(file);
      setSaved(file);
    }
  }, [current, apps]);
  const publish = useSubmit(async () => {
    const r = await call<Template, 'POST /engage/admin/environments/{environmentId}/templates/{templateKey}/publish'>('POST /engage/admin/environments/{environmentId}/templates/{templateKey}/publish', {
      params: { environmentId, templateKey },
    });
    setNotice(`Version ${r.publishedVersion} is published: it serves sends from now on.`);
    detail.reload();
    setTick((n) => n + 1);
  });
  const hasDraft = !!t?.draft;
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title={`Template ${templateKey}`} crumbs={[{ label: 'Templates', path: '/templates' }]}>
        {t && hasDraft && editable && (
          <button type="button" class="primary" disabled={publish.busy} onClick={() => void publish.run()}>
            {publish.busy ? 'Publishing…' : `Publish version ${t.latestVersion}`}
          </button>
        )}
        {t && t.status !== 'ARCHIVED' && !t.configurationManaged && (
          <button type="button" class="danger" onClick={() => setArchiving(true)}>
            Archive
          </button>
        )}
      </EnvPageHeader>
      {detail.error && <ErrorBox error={detail.error} />}
      {publish.error && <ErrorBox error={publish.error} />}
      {notice && <Notice>{notice}</Notice>}
      {t && (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd>{STATUS_WORDS[t.status]}</dd>
            <dt>Published version</dt>
            <dd>{t.publishedVersion ?? 'None yet'}</dd>
            <dt>Draft</dt>
            <dd>{hasDraft ? `Version ${t.latestVersion}, not published` : 'None: an edit saved below makes one'}</dd>
            <dt>Sends</dt>
            <dd>
              <Link href={`${envPath(environmentId, 'sends')}?template=${encodeURIComponent(t.key)}`}>{t.sends} sends</Link> and {t.testSends} test sends
            </dd>
            <dt>Deliveries</dt>
            <dd>{Object.keys(t.deliveries).length ? Object.entries(t.deliveries).map(([s, n]) => `${n} ${s.toLowerCase()}`).join(', ') : 'None'}</dd>
            {t.configurationManaged && (
              <>
                <dt>Managed</dt>
                <dd>By engage apply: change it in the configuration file.</dd>
              </>
            )}
          </dl>
          <ConfirmByName
            open={archiving}
            title={`Archive template ${t.key}`}
            name={t.key}
            consequence="An archived template accepts no more sends nor test sends. Its versions and past sends stay; it cannot be published again."
            action="Archive template"
            onClose={() => setArchiving(false)}
            onConfirm={async () => {
              await call('POST /engage/admin/environments/{environmentId}/templates/{templateKey}/archive', { params: { environmentId, templateKey } });
              setArchiving(false);
              setNotice(`Template ${t.key} is archived.`);
              detail.reload();
            }}
          />
          <div class="template-work">
            <section aria-labelledby="edit-h" class="template-edit">
              <h2 id="edit-h">Edit the draft</h2>
              {editable ? (
                <Form
                  label="Edit the draft"
                  submit="Save draft"
                  onSubmit={async () => {
                    const { value, problem } = parsed(text);
                    if (problem) throw new Error(`The template file is not valid JSON: ${problem}`);
                    const r = await call<Template, 'PUT /engage/admin/environments/{environmentId}/templates/{templateKey}'>('PUT /engage/admin/environments/{environmentId}/templates/{templateKey}', {
                      params: { environmentId, templateKey },
                      body: value,
                    });
                    setSaved(text);
                    setNotice(`Draft version ${r.latestVersion} saved. The published version keeps serving sends until you publish.`);
                    detail.reload();
                    setTick((n) => n + 1);
                  }}
                >
                  <EssentialFields text={text} onText={setText} apps={apps} withKey={false} />
                  <JsonEditor label="Template file" value={text} onInput={setText} />
                  {text !== saved && <p class="muted">Unsaved changes: the preview shows what is typed; save the draft to keep it.</p>}
                </Form>
              ) : (
                <p class="muted">{t.status === 'ARCHIVED' ? 'An archived template cannot be edited.' : 'Managed by engage apply: edit the configuration file.'}</p>
              )}
            </section>
            <TemplatePreview environmentId={environmentId} template={t} tick={tick} unsaved={text !== saved && editable ? asObj(parsed(text).value) : undefined} />
          </div>
          <TestSend environmentId={environmentId} template={t} />
          <section aria-labelledby="versions-h">
            <h2 id="versions-h">Versions</h2>
            <DataTable
              caption="Versions"
              rows={[...t.versions].reverse()}
              rowKey={(v) => String(v.version)}
              columns={[
                { header: 'Version', cell: (v) => <Link href={envPath(environmentId, 'templates', t.key, 'versions', String(v.version))}>Version {v.version}</Link> },
                { header: 'State', cell: (v) => v.state },
                { header: 'Created', cell: (v) => when(v.createdAt) },
                { header: 'Published', cell: (v) => when(v.publishedAt) },
              ]}
            />
          </section>
        </>
      )}
    </>
  );
}

/** The variables and locales of an unsaved file, as far as it has them (the server checks the rest). */
function typedDefinition(file: Obj): Pick<Definition, 'variables' | 'localizations'> {
  const variables: Record<string, VariableDef> = {};
  if (isObj(file.variables))
    for (const [n, v] of Object.entries(file.variables)) {
      if (!isObj(v)) continue;
      const d = v.default as VariableDef['default'];
      variables[n] = { type: (typeof v.type === 'string' ? v.type : 'string') as VariableDef['type'], required: typeof v.required === 'boolean' ? v.required : d === undefined, ...(d !== undefined ? { default: d } : {}) };
    }
  return { variables, localizations: (isObj(file.localizations) ? file.localizations : {}) as Definition['localizations'] };
}

/**
 * The live preview: what is typed in the editor (rendered by the server from the unsaved file,
 * debounced) or a stored version, in each of its locales, on a phone per target app, with
 * sample variables.
 */
function TemplatePreview({ environmentId, template, tick, unsaved }: { environmentId: string; template: TemplateDetailBody; tick: number; unsaved: Obj | undefined }) {
  const [picked, setPicked] = useState('typed');
  // A choice the template no longer offers (nothing typed, the draft just published) falls back to the latest.
  const version = (picked === 'typed' && !unsaved) || (picked === 'draft' && !template.draft) || (picked === 'published' && !template.published) ? 'latest' : picked;
  const def = version === 'typed' && unsaved ? typedDefinition(unsaved) : version === 'published' ? template.published : version === 'draft' ? template.draft : (template.draft ?? template.published);
  const defs = def?.variables ?? {};
  const locales = def ? Object.keys(def.localizations) : [];
  const [values, setValues] = useState<Record<string, string>>({});
  const filled = useMemo(() => Object.fromEntries(Object.entries(defs).map(([n, d]) => [n, values[n] ?? sampleOf(n, d)])), [JSON.stringify(defs), values]);
  const previews = usePreviews(environmentId, template.key, version, locales, variablesOf(defs, filled), tick, version === 'typed' ? unsaved : undefined);
  return (
    <section aria-labelledby="preview-h" class="template-preview">
      <h2 id="preview-h">Preview</h2>
      <Field label="Version to preview">
        {(a) => (
          <select {...a} value={version} onChange={(e) => setPicked((e.target as HTMLSelectElement).value)}>
            {unsaved && <option value="typed">What is typed (unsaved)</option>}
            <option value="latest">Latest saved (the draft if any)</option>
            {template.draft && <option value="draft">The draft</option>}
            {template.published && <option value="published">The published version</option>}
          </select>
        )}
      </Field>
      <SampleVariables defs={defs} values={filled} onChange={setValues} />
      <p class="muted" role="status">
        {previews.loading ? 'Rendering…' : `Rendered in ${locales.length} locale${locales.length === 1 ? '' : 's'}, exactly as a send would.`}
      </p>
      {previews.items.map((r) => (
        <PhoneFrames key={r.locale} rendered={r} />
      ))}
    </section>
  );
}

interface TestSendAnswer {
  requestId: string;
  accepted: boolean;
  unresolvedMembers: number;
  resolvedLocale: string;
  renderedTitle: string;
  diagnostics: { installationId: string; platform: string; code: string; deliveryId: string | null }[];
}

const DIAGNOSTIC_WORDS: Record<string, string> = {
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
function TestSend({ environmentId, template }: { environmentId: string; template: TemplateDetailBody }) {
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

/** One version of a template: its state and the definition it holds, rendered in its default locale. */
export function TemplateVersionPage({ environmentId, templateKey, version }: { environmentId: string; templateKey: string; version: string }) {
  const v = useCall<Version & { definition: Definition }, 'GET /engage/admin/environments/{environmentId}/templates/{templateKey}/versions/{version}'>(
    'GET /engage/admin/environments/{environmentId}/templates/{templateKey}/versions/{version}',
    { params: { environmentId, templateKey, version } },
  );
  const d = v.data;
  return (
    <>
      <EnvPageHeader environmentId={environmentId} title={`Template ${templateKey}, version ${version}`} crumbs={[{ label: 'Templates', path: '/templates' }, { label: templateKey, path: `/templates/${encodeURIComponent(templateKey)}` }]} />
      {v.error && <ErrorBox error={v.error} />}
      {d && (
        <>
          <dl class="facts">
            <dt>State</dt>
            <dd>{d.state}</dd>
            <dt>Created</dt>
            <dd>{when(d.createdAt)}</dd>
            <dt>Published</dt>
            <dd>{when(d.publishedAt)}</dd>
            <dt>Locales</dt>
            <dd>{Object.keys(d.definition.localizations).join(', ')} (default {d.definition.defaultLocale})</dd>
          </dl>
          <VersionPreview environmentId={environmentId} templateKey={templateKey} version={String(d.version)} definition={d.definition} />
          <h2>Definition</h2>
          <pre class="payload" tabIndex={0} aria-label={`Definition of version ${d.version}`}>
            {JSON.stringify(d.definition, null, 2)}
          </pre>
        </>
      )}
    </>
  );
}

/** One stored version rendered in each of its locales with sample variables. */
function VersionPreview(props: { environmentId: string; templateKey: string; version: string; definition: Definition }) {
  const defs = props.definition.variables;
  const [values, setValues] = useState<Record<string, string>>({});
  const filled = Object.fromEntries(Object.entries(defs).map(([n, d]) => [n, values[n] ?? sampleOf(n, d)]));
  const previews = usePreviews(props.environmentId, props.templateKey, props.version, Object.keys(props.definition.localizations), variablesOf(defs, filled), 0);
  return (
    <section aria-labelledby="version-preview-h">
      <h2 id="version-preview-h">Preview</h2>
      <SampleVariables defs={defs} values={filled} onChange={setValues} />
      {previews.items.map((r) => (
        <PhoneFrames key={r.locale} rendered={r} />
      ))}
    </section>
  );
}

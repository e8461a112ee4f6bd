import { useEffect, useMemo, useState } from 'preact/hooks';
import { call } from '../../api';
import { Link, navigate } from '../../router';
import { DataTable, useCall, usePaged, paged } from '../../ui/data';
import { ErrorBox, Notice } from '../../ui/feedback';
import { ConfirmByName, Field, Form, useSubmit } from '../../ui/forms';
import { when } from '../../ui/format';
import { PhoneFrames, SampleVariables, sampleOf, usePreviews, variablesOf, type VariableDef } from './preview';
import { EnvPageHeader, envPath } from './sends';
import { Definition, EssentialFields, JsonEditor, Obj, STATUS_WORDS, Template, TemplateDetailBody, Version, asObj, exampleFile, fileOf, isObj, parsed, useApps } from './template-editor';
import { TestSend } from './template-test-send';

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

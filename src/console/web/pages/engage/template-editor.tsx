import { useCall } from '../../ui/data';
import { Field } from '../../ui/forms';
import { type VariableDef } from './preview';

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

export interface Version {
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

export interface TemplateDetailBody extends Template {
  versions: Version[];
  draft: Definition | null;
  published: Definition | null;
  sends: number;
  deliveries: Record<string, number>;
  testSends: number;
}

export interface AppLine {
  id: string;
  name: string;
  platform: 'IOS' | 'ANDROID';
}

export const STATUS_WORDS: Record<Template['status'], string> = {
  DRAFT: 'Draft: not published, sends are refused',
  ACTIVE: 'Active: a published version serves sends',
  ARCHIVED: 'Archived: no more sends',
};

/** The environment's apps (a template names them; up to 100 read). */
export function useApps(environmentId: string) {
  const { data } = useCall<{ items: AppLine[] }, 'GET /engage/admin/environments/{environmentId}/apps'>('GET /engage/admin/environments/{environmentId}/apps', { params: { environmentId }, query: { size: 100 } });
  return data?.items;
}

/** The template file of a stored definition (apps by name where known), for the editor. */
export function fileOf(def: Definition, apps: AppLine[] | undefined): Record<string, unknown> {
  const { key, appIds, variables, ...rest } = def;
  const vars = Object.fromEntries(
    Object.entries(variables).map(([n, v]) => [n, v.required ? { type: v.type } : { type: v.type, required: false, ...(v.default !== undefined ? { default: v.default } : {}) }]),
  );
  const file: Record<string, unknown> = { key, apps: appIds.map((id) => apps?.find((a) => a.id === id)?.name ?? id), ...rest, variables: vars };
  // An inbox-only template is stored with no push localizations ({}); its file leaves them out (docs/templates.md).
  if (Object.keys(def.localizations ?? {}).length === 0) delete file.localizations;
  return file;
}

/** A valid first file: the environment's apps, two locales, one variable (docs/templates.md has the format). */
export function exampleFile(apps: AppLine[] | undefined) {
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
export function parsed(text: string): { value?: unknown; problem?: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}

/** The template file editor: a labelled textarea whose JSON is checked as one types (the server checks the rest). */
export function JsonEditor(props: { label: string; value: string; onInput: (v: string) => void; readOnly?: boolean }) {
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

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
export const asObj = (v: unknown): Obj | undefined => (isObj(v) ? v : undefined);

/**
 * The essential fields of the file as a form (key, apps, default locale, its title and body):
 * read from the editor's JSON and written back into it, so either can be used.
 */
export function EssentialFields(props: { text: string; onText: (v: string) => void; apps: AppLine[] | undefined; withKey: boolean }) {
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

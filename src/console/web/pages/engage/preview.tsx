import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, call } from '../../api';
import { ErrorBox } from '../../ui/feedback';
import { Field } from '../../ui/forms';

/** A variable of a template as stored (the definition fills `required` in). */
export interface VariableDef {
  type: 'string' | 'number' | 'boolean' | 'date' | 'url';
  required: boolean;
  default?: string | number | boolean;
}

/** What POST …/templates/{key}/preview answers: the rendered texts and each app's provider payload. */
export interface Preview {
  templateKey: string;
  version: number | null;
  state: string;
  resolvedLocale: string;
  title: string;
  body: string;
  deepLink: string;
  customData: Record<string, unknown>;
  targets: { appId: string; appName: string; platform: 'IOS' | 'ANDROID'; provider: 'APNS' | 'FCM'; payload: Record<string, unknown>; payloadBytes: number }[];
}

/** A sample value of each type, so a preview renders before anything is typed. */
export function sampleOf(name: string, d: VariableDef): string {
  if (d.default !== undefined) return String(d.default);
  switch (d.type) {
    case 'number':
      return '1234.5';
    case 'boolean':
      return 'true';
    case 'date':
      return new Date().toISOString().slice(0, 10);
    case 'url':
      return 'https://example.com/';
    default:
      return `sample ${name}`;
  }
}

/** The typed sample values as a send's `variables` (an empty optional one left out). */
export function variablesOf(defs: Record<string, VariableDef>, values: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, d] of Object.entries(defs)) {
    const v = values[name] ?? '';
    if (v === '' && !d.required) continue;
    if (d.type === 'number') out[name] = v === '' || Number.isNaN(Number(v)) ? v : Number(v);
    else if (d.type === 'boolean') out[name] = v === 'true';
    else out[name] = v;
  }
  return out;
}

/** One input per variable of the template, typed by its declaration. */
export function SampleVariables(props: { defs: Record<string, VariableDef>; values: Record<string, string>; onChange: (values: Record<string, string>) => void }) {
  const names = Object.keys(props.defs);
  if (names.length === 0) return <p class="muted">The template declares no variable.</p>;
  const set = (name: string, v: string) => props.onChange({ ...props.values, [name]: v });
  return (
    <fieldset class="variables">
      <legend>Sample variables</legend>
      {names.map((name) => {
        const d = props.defs[name];
        const value = props.values[name] ?? '';
        const hint = `${d.type}${d.required ? ', required' : ', optional'}${d.type === 'date' ? ': YYYY-MM-DD or an RFC 3339 date-time' : ''}`;
        if (d.type === 'boolean')
          return (
            <Field key={name} label={name} hint={hint}>
              {(a) => (
                <select {...a} value={value} onChange={(e) => set(name, (e.target as HTMLSelectElement).value)}>
                  <option value="true">true</option>
                  <option value="false">false</option>
                </select>
              )}
            </Field>
          );
        return (
          <Field key={name} label={name} hint={hint}>
            {(a) => <input {...a} type={d.type === 'url' ? 'url' : 'text'} inputMode={d.type === 'number' ? 'decimal' : undefined} value={value} onInput={(e) => set(name, (e.target as HTMLInputElement).value)} autoComplete="off" />}
          </Field>
        );
      })}
    </fieldset>
  );
}

/** `value`, once it stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [JSON.stringify(value), ms]);
  return settled;
}

type Rendered = { locale: string; preview?: Preview; error?: ApiFailure };

/**
 * The previews of one version, or of an unsaved file, in each locale (one POST …/preview per
 * locale), re-run when the version, the file, the variables or `tick` change; what is typed is
 * debounced.
 */
export function usePreviews(environmentId: string, templateKey: string, version: string, locales: string[], variables: Record<string, unknown>, tick: number, file?: Record<string, unknown>) {
  const settled = useDebounced({ variables, file, locales }, 500);
  const [out, setOut] = useState<{ loading: boolean; items: Rendered[] }>({ loading: true, items: [] });
  const key = JSON.stringify([version, settled, tick]);
  useEffect(() => {
    const abort = new AbortController();
    setOut((o) => ({ ...o, loading: true }));
    Promise.all(
      settled.locales.map((locale) =>
        call<Preview, 'POST /engage/admin/environments/{environmentId}/templates/{templateKey}/preview'>('POST /engage/admin/environments/{environmentId}/templates/{templateKey}/preview', {
          params: { environmentId, templateKey },
          // What is typed: the unsaved file; otherwise a stored version.
          body: settled.file ? { file: settled.file, locale, variables: settled.variables } : { version: /^\d+$/.test(version) ? Number(version) : version, locale, variables: settled.variables },
          signal: abort.signal,
        }).then(
          (preview): Rendered => ({ locale, preview }),
          (error: unknown): Rendered => ({ locale, error: error instanceof ApiFailure ? error : new ApiFailure(0, 'network', undefined) }),
        ),
      ),
    ).then((items) => {
      if (!abort.signal.aborted) setOut({ loading: false, items });
    });
    return () => abort.abort();
  }, [key]);
  return out;
}

/** A push as the phone shows it on its lock screen: one frame per target app (iOS and Android render alike texts differently). */
export function PhoneFrames({ rendered }: { rendered: Rendered }) {
  const { locale, preview, error } = rendered;
  return (
    <section class="preview-locale" aria-label={`Preview in ${locale}`}>
      <h3>
        Locale <code>{locale}</code>
        {preview && preview.resolvedLocale.toLowerCase() !== locale.toLowerCase() && <span class="muted"> (resolved to {preview.resolvedLocale})</span>}
      </h3>
      {error && <ErrorBox error={error} />}
      {preview && (
        <div class="phones">
          {preview.targets.map((t) => (
            <figure key={t.appId} class={`phone phone-${t.platform.toLowerCase()}`}>
              <div class="phone-screen">
                <p class="phone-clock" aria-hidden="true">
                  9:41
                </p>
                <div class="notification">
                  <p class="notification-app">
                    <span class="app-icon" aria-hidden="true" />
                    {t.appName}
                    <span class="muted"> · now</span>
                  </p>
                  <p class="notification-title">{preview.title}</p>
                  <p class="notification-body">{preview.body}</p>
                </div>
              </div>
              <figcaption>
                {t.platform === 'IOS' ? 'iOS' : 'Android'} ({t.provider}, {t.payloadBytes} bytes of 4096) · {preview.version === null ? 'unsaved' : `version ${preview.version} ${preview.state.toLowerCase()}`}
                {preview.deepLink && (
                  <>
                    <br />
                    Opens <code>{preview.deepLink}</code>
                  </>
                )}
              </figcaption>
              <details>
                <summary>
                  {t.provider} payload for {t.appName} in {locale}
                </summary>
                <pre class="payload">{JSON.stringify(t.payload, null, 2)}</pre>
              </details>
            </figure>
          ))}
        </div>
      )}
    </section>
  );
}

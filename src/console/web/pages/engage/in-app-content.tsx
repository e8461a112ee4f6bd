import { useState } from 'preact/hooks';
import { Field } from '../../ui/forms';
import { FieldError, invalidBy } from './conditions-editor';
import { BUCKETS, MAX_BUTTONS, MAX_VARIANTS, emptyLayout, type Button, type LayoutDraft, type MessageDraft, type VariantDraft } from './in-app-model';
import { LayoutPreview } from './in-app-preview';

type Errors = Record<string, string>;
const LOCALE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
const percent = (parts: number) => `${Math.round(parts) / 100}%`;

/**
 * A message's content (issue 27 "console pages"): its locales (default and fallback), a LAYOUT per
 * locale, or, for an experiment, per variant and locale with the variants' weights; each layout
 * beside its live preview on a phone-sized frame.
 */
export function ContentEditor(props: { draft: MessageDraft; onChange: (d: MessageDraft) => void; errors: Errors }) {
  const { draft: d, onChange, errors } = props;
  const set = (patch: Partial<MessageDraft>) => onChange({ ...d, ...patch });
  const [adding, setAdding] = useState('');
  const [addError, setAddError] = useState('');
  const addLocale = () => {
    const l = adding.trim();
    if (!LOCALE.test(l)) return setAddError('A locale is a BCP 47 tag such as en, de or pt-BR.');
    if (d.locales.some((x) => x.toLowerCase() === l.toLowerCase())) return setAddError(`The message has ${l} already.`);
    setAddError('');
    setAdding('');
    set({ locales: [...d.locales, l] });
  };
  const removeLocale = (l: string) =>
    set({ locales: d.locales.filter((x) => x !== l), fallbackLocale: d.fallbackLocale === l ? '' : d.fallbackLocale });
  const toggleVariants = (on: boolean) => {
    // Turning variants on starts two of the content as it is; off keeps the first variant's.
    if (on) set({ useVariants: true, variants: d.variants.length ? d.variants : ['a', 'b'].map((key) => ({ key, weight: BUCKETS / 2, content: structuredClone(d.content) })) });
    else set({ useVariants: false, content: d.variants[0] ? structuredClone(d.variants[0].content) : d.content });
  };
  const setVariant = (i: number, v: VariantDraft) => set({ variants: d.variants.map((x, j) => (j === i ? v : x)) });
  const sum = d.variants.reduce((n, v) => n + (Number.isFinite(v.weight) ? v.weight : 0), 0);
  return (
    <section aria-labelledby="content-h" class="in-app-content">
      <h2 id="content-h">Content</h2>
      <div class="field-pair">
        <Field label="Default locale" hint="Shown where no locale of the device matches (and the fallback neither).">
          {(a) => (
            <select {...a} value={d.defaultLocale} onChange={(e) => set({ defaultLocale: (e.target as HTMLSelectElement).value })}>
              {d.locales.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Fallback locale" hint="Tried after the device's own locales, before the default.">
          {(a) => (
            <select {...a} value={d.fallbackLocale} onChange={(e) => set({ fallbackLocale: (e.target as HTMLSelectElement).value })}>
              <option value="">(none)</option>
              {d.locales.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <FieldError text={errors.defaultLocale ?? errors.fallbackLocale} />
      <ul class="locale-list" aria-label="Locales">
        {d.locales.map((l) => (
          <li key={l}>
            <code>{l}</code>
            {l === d.defaultLocale ? (
              <span class="muted"> (default)</span>
            ) : (
              <button type="button" onClick={() => removeLocale(l)} aria-label={`Remove locale ${l}`}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      <div class="msg-lookup">
        <Field label="Add a locale" hint="A BCP 47 tag: en, de, pt-BR. Each locale has its own layout below.">
          {(a) => (
            <input
              {...a}
              value={adding}
              onInput={(e) => setAdding((e.target as HTMLInputElement).value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  addLocale();
                }
              }}
              aria-invalid={addError ? 'true' : undefined}
              autoComplete="off"
              spellcheck={false}
            />
          )}
        </Field>
        <button type="button" onClick={addLocale}>
          Add locale
        </button>
        {addError && (
          <p class="msg-field-error" role="alert">
            {addError}
          </p>
        )}
      </div>
      <label class="check">
        <input type="checkbox" checked={d.useVariants} onChange={(e) => toggleVariants((e.target as HTMLInputElement).checked)} /> Run an experiment: variants with weights (each installation sees one)
      </label>
      {d.useVariants && (
        <fieldset class="variables">
          <legend>Variants</legend>
          <p class="hint">Weights in parts of 10,000; they must sum to 10,000. Devices report the variant's key with each interaction.</p>
          <FieldError text={errors.variants} />
          <table class="weights">
            <caption class="visually-hidden">Variants and weights</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Weight (parts of 10,000)</th>
                <th scope="col">
                  <span class="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {d.variants.map((v, i) => (
                <tr key={i}>
                  <td>
                    <input aria-label={`Variant ${i + 1} key`} {...invalidBy(errors[`variants[${i}].key`], `variants[${i}].key`)} value={v.key} onInput={(e) => setVariant(i, { ...v, key: (e.target as HTMLInputElement).value })} autoComplete="off" spellcheck={false} />
                    <FieldError text={errors[`variants[${i}].key`]} of={`variants[${i}].key`} />
                  </td>
                  <td>
                    <input
                      aria-label={`Variant ${i + 1} weight`}
                      type="number"
                      min={0}
                      max={BUCKETS}
                      value={v.weight}
                      onInput={(e) => setVariant(i, { ...v, weight: Number((e.target as HTMLInputElement).value) })}
                    />{' '}
                    <span class="muted">{percent(v.weight)}</span>
                  </td>
                  <td>
                    <button type="button" disabled={d.variants.length <= 2} onClick={() => set({ variants: d.variants.filter((_, j) => j !== i) })} aria-label={`Remove variant ${i + 1}`}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class={sum === BUCKETS ? 'muted' : 'warning'} role="status">
            Weights sum to {sum.toLocaleString('en-US')} of 10,000{sum === BUCKETS ? '.' : ': they must sum to exactly 10,000.'}
          </p>
          <button
            type="button"
            disabled={d.variants.length >= MAX_VARIANTS}
            onClick={() => set({ variants: [...d.variants, { key: `variant-${d.variants.length + 1}`, weight: 0, content: structuredClone(d.variants[0]?.content ?? d.content) }] })}
          >
            Add a variant
          </button>
          <Field label="Bucket by" hint="Whose identifier picks the variant: the installation's, or the signed-in profile's (every device of a person alike).">
            {(a) => (
              <select {...a} value={d.bucketBy} onChange={(e) => set({ bucketBy: (e.target as HTMLSelectElement).value as MessageDraft['bucketBy'] })}>
                <option value="installation">installation</option>
                <option value="profile">profile</option>
              </select>
            )}
          </Field>
        </fieldset>
      )}
      <FieldError text={errors.content} />
      {(d.useVariants ? d.variants : [undefined]).map((v, vi) =>
        d.locales.map((l) => {
          const where = v ? `Variant ${vi + 1}, ${l}` : l;
          const path = v ? `variants[${vi}].content.${l}` : `content.${l}`;
          const layout = (v ? v.content[l] : d.content[l]) ?? emptyLayout();
          const update = (next: LayoutDraft) => (v ? setVariant(vi, { ...v, content: { ...v.content, [l]: next } }) : set({ content: { ...d.content, [l]: next } }));
          return (
            <div class="layout-row" key={`${vi}-${l}`}>
              <LayoutFields where={where} heading={v ? `Variant ${v.key || vi + 1}, locale ${l}` : `Locale ${l}`} layout={layout} onChange={update} errors={errors} path={path} />
              <LayoutPreview layout={layout} where={v ? `variant ${v.key || vi + 1} in ${l}` : l} isDefault={l === d.defaultLocale} />
            </div>
          );
        }),
      )}
    </section>
  );
}

/** One LAYOUT's fields: title, body, image URL, up to three buttons (label, action, deep link). */
function LayoutFields(props: { where: string; heading: string; layout: LayoutDraft; onChange: (l: LayoutDraft) => void; errors: Errors; path: string }) {
  const { where, layout: l, errors, path } = props;
  const set = (patch: Partial<LayoutDraft>) => props.onChange({ ...l, ...patch });
  const setButton = (i: number, patch: Partial<Button>) => set({ buttons: l.buttons.map((b, j) => (j === i ? { ...b, ...patch } : b)) });
  const err = (field: string) => errors[`${path}.${field}`];
  const text = (field: 'title' | 'body' | 'imageUrl', label: string, opts: { area?: boolean; hint: string }) => (
    <label class="layout-field">
      <span>{label}</span>
      {opts.area ? (
        <textarea aria-label={`${where}: ${label.toLowerCase()}`} {...invalidBy(err(field), `${path}.${field}`)} rows={3} value={l[field]} onInput={(e) => set({ [field]: (e.target as HTMLTextAreaElement).value })} />
      ) : (
        <input
          aria-label={`${where}: ${label.toLowerCase()}`}
          {...invalidBy(err(field), `${path}.${field}`)}
          type={field === 'imageUrl' ? 'url' : 'text'}
          value={l[field]}
          onInput={(e) => set({ [field]: (e.target as HTMLInputElement).value })}
          autoComplete="off"
        />
      )}
      <span class="hint">{opts.hint}</span>
      <FieldError text={err(field)} of={`${path}.${field}`} />
    </label>
  );
  return (
    <fieldset class="variables layout-fields">
      <legend>{props.heading}</legend>
      {text('title', 'Title', { hint: 'Up to 255 characters.' })}
      {text('body', 'Body', { area: true, hint: 'Up to 4,096 characters.' })}
      {text('imageUrl', 'Image URL', { hint: 'Optional: an https URL the app loads (the preview does not fetch it).' })}
      {l.buttons.map((b, i) => {
        const name = `${where}: button ${i + 1}`;
        return (
          <div class="condition-row" role="group" aria-label={name} key={i}>
            <label>
              <span>Button {i + 1} label</span>
              <input aria-label={`${name} label`} {...invalidBy(err(`buttons[${i}].label`), `${path}.buttons[${i}].label`)} value={b.label} onInput={(e) => setButton(i, { label: (e.target as HTMLInputElement).value })} autoComplete="off" />
              <FieldError text={err(`buttons[${i}].label`)} of={`${path}.buttons[${i}].label`} />
            </label>
            <label>
              <span>Action</span>
              <select aria-label={`${name} action`} value={b.action} onChange={(e) => setButton(i, { action: (e.target as HTMLSelectElement).value as Button['action'] })}>
                <option value="DISMISS">Dismiss</option>
                <option value="DEEP_LINK">Open a deep link</option>
              </select>
            </label>
            {b.action === 'DEEP_LINK' && (
              <label>
                <span>Deep link</span>
                <input
                  aria-label={`${name} deep link`}
                  {...invalidBy(err(`buttons[${i}].deepLink`), `${path}.buttons[${i}].deepLink`)}
                  value={b.deepLink ?? ''}
                  onInput={(e) => setButton(i, { deepLink: (e.target as HTMLInputElement).value })}
                  autoComplete="off"
                  spellcheck={false}
                />
                <FieldError text={err(`buttons[${i}].deepLink`)} of={`${path}.buttons[${i}].deepLink`} />
              </label>
            )}
            <button type="button" onClick={() => set({ buttons: l.buttons.filter((_, j) => j !== i) })} aria-label={`Remove ${name}`}>
              Remove
            </button>
          </div>
        );
      })}
      <div class="actions">
        <button type="button" disabled={l.buttons.length >= MAX_BUTTONS} onClick={() => set({ buttons: [...l.buttons, { label: '', action: 'DISMISS' }] })} aria-label={`Add a button to ${where}`}>
          Add a button
        </button>
      </div>
    </fieldset>
  );
}

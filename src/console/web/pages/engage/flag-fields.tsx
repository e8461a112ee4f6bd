import { Field, bind } from '../../ui/forms';
import { BUCKETING_UNITS, FLAG_KINDS, type FlagDraft, type FlagKind, type VariantDraft } from './flag-model';
import type { AppLine } from './template-editor';

const KIND_WORDS: Record<FlagKind, string> = { BOOLEAN: 'Boolean (true or false)', STRING: 'Text', NUMBER: 'Number', JSON: 'JSON value' };
const BUCKET_WORDS: Record<string, string> = {
  installation: 'installation: each device on its own',
  profile: 'profile: every device of a signed-in user alike (devices without one by installation)',
  'profile-sticky': 'profile-sticky: as profile, and a device keeps what it got before sign-in',
};
const FIRST_VALUE: Record<FlagKind, [string, string]> = { BOOLEAN: ['true', 'false'], STRING: ['a', 'b'], NUMBER: ['1', '0'], JSON: ['{"a": 1}', '{"a": 0}'] };

/**
 * A flag's fields other than its rules: key (on create), kind, variants as rows key → value typed
 * by the kind, default and off variants, bucketing unit, target apps, description.
 */
export function FlagFields(props: { draft: FlagDraft; onChange: (d: FlagDraft) => void; apps: AppLine[] | undefined; withKey: boolean }) {
  const { draft: d, onChange } = props;
  const set = (patch: Partial<FlagDraft>) => onChange({ ...d, ...patch });
  const keys = d.variants.map((v) => v.key);
  const setVariant = (i: number, patch: Partial<VariantDraft>) => {
    const old = d.variants[i].key;
    const variants = d.variants.map((v, j) => (j === i ? { ...v, ...patch } : v));
    // A renamed variant stays the default, off or served variant it was.
    const rename = (k: string) => (patch.key !== undefined && k === old ? patch.key : k);
    onChange({
      ...d,
      variants,
      defaultVariant: rename(d.defaultVariant),
      offVariant: rename(d.offVariant),
      rules: d.rules.map((r) => ({ ...r, variant: rename(r.variant), split: r.split.map((s) => ({ ...s, variant: rename(s.variant) })) })),
    });
  };
  return (
    <>
      {props.withKey && (
        <Field label="Key" hint="Immutable: a lowercase letter, then up to 127 of a-z 0-9 _ . - (the SDK reads the flag by it).">
          {(a) => <input {...a} {...bind(d.key, (key) => set({ key }))} required autoComplete="off" spellcheck={false} />}
        </Field>
      )}
      <Field label="Description">{(a) => <input {...a} {...bind(d.description, (description) => set({ description }))} />}</Field>
      <Field label="Kind" hint="The type of every variant's value.">
        {(a) => (
          <select
            {...a}
            value={d.kind}
            onChange={(e) => {
              const kind = (e.target as HTMLSelectElement).value as FlagKind;
              // Values of the old kind rarely fit the new one: start the rows from an example of it.
              set({ kind, variants: d.variants.map((v, i) => ({ ...v, value: FIRST_VALUE[kind][i === 0 ? 0 : 1] })) });
            }}
          >
            {FLAG_KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_WORDS[k]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <fieldset class="variables">
        <legend>Variants</legend>
        <table class="weights">
          <caption class="visually-hidden">Variants</caption>
          <thead>
            <tr>
              <th scope="col">Variant key</th>
              <th scope="col">Value</th>
              <th scope="col">
                <span class="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {d.variants.map((v, i) => (
              <tr key={i}>
                <td>
                  <input aria-label={`Variant ${i + 1} key`} value={v.key} onInput={(e) => setVariant(i, { key: (e.target as HTMLInputElement).value })} autoComplete="off" spellcheck={false} />
                </td>
                <td>
                  {d.kind === 'BOOLEAN' ? (
                    <select aria-label={`Variant ${i + 1} value`} value={v.value} onChange={(e) => setVariant(i, { value: (e.target as HTMLSelectElement).value })}>
                      <option value="true">true</option>
                      <option value="false">false</option>
                    </select>
                  ) : (
                    <input
                      aria-label={`Variant ${i + 1} value`}
                      type={d.kind === 'NUMBER' ? 'number' : 'text'}
                      step="any"
                      value={v.value}
                      onInput={(e) => setVariant(i, { value: (e.target as HTMLInputElement).value })}
                      spellcheck={false}
                    />
                  )}
                </td>
                <td>
                  <button type="button" disabled={d.variants.length === 1} onClick={() => set({ variants: d.variants.filter((_, j) => j !== i) })} aria-label={`Remove variant ${v.key || i + 1}`}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" onClick={() => set({ variants: [...d.variants, { key: `variant-${d.variants.length + 1}`, value: FIRST_VALUE[d.kind][1] }] })}>
          Add a variant
        </button>
      </fieldset>
      <div class="field-pair">
        <VariantSelect label="Default variant" hint="Served when no rule matches." value={d.defaultVariant} keys={keys} onChange={(defaultVariant) => set({ defaultVariant })} />
        <VariantSelect label="Off variant" hint="Served while the flag is archived, and when a device is not targeted." value={d.offVariant} keys={keys} onChange={(offVariant) => set({ offVariant })} />
      </div>
      <Field label="Bucket by" hint="Whose identifier a rollout or an experiment hashes.">
        {(a) => (
          <select {...a} value={d.bucketBy} onChange={(e) => set({ bucketBy: (e.target as HTMLSelectElement).value as FlagDraft['bucketBy'] })}>
            {BUCKETING_UNITS.map((u) => (
              <option key={u} value={u}>
                {BUCKET_WORDS[u]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <fieldset class="choices">
        <legend>Target apps</legend>
        <p class="hint">None checked: every app of the environment.</p>
        {props.apps?.map((app) => {
          const on = d.targetApps.includes(app.id) || d.targetApps.includes(app.name);
          return (
            <label key={app.id} class="check">
              <input type="checkbox" checked={on} onChange={() => set({ targetApps: on ? d.targetApps.filter((x) => x !== app.id && x !== app.name) : [...d.targetApps, app.id] })} />{' '}
              {app.name} ({app.platform === 'IOS' ? 'iOS' : 'Android'})
            </label>
          );
        })}
      </fieldset>
    </>
  );
}

function VariantSelect(props: { label: string; hint: string; value: string; keys: string[]; onChange: (v: string) => void }) {
  return (
    <Field label={props.label} hint={props.hint}>
      {(a) => (
        <select {...a} value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
          {!props.keys.includes(props.value) && <option value={props.value}>{props.value || '(choose)'}</option>}
          {props.keys.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

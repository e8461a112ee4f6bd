import { ATTRIBUTES, KEYED_ATTRIBUTES, newCondition, operatorsFor, type ConditionDraft } from './flag-model';

/** The id of a field's error text, from the field's path or name (unique on a page). */
export const errorId = (of: string) => `err-${of.replace(/[^A-Za-z0-9_-]+/g, '-')}`;

/** A field's refusal by the server, in words beside the field (the whole answer is also in the form's alert). */
export function FieldError({ text, of }: { text?: string; of?: string }) {
  return text ? (
    <span class="msg-field-error" id={of === undefined ? undefined : errorId(of)}>
      {text}
    </span>
  ) : null;
}

/** A refused field's attributes: marked invalid and described by its error (after its hint, if it has one). */
export function invalidBy(text: string | undefined, of: string, hint?: string) {
  if (!text) return { 'aria-describedby': hint };
  return { 'aria-invalid': 'true' as const, 'aria-describedby': [hint, errorId(of)].filter(Boolean).join(' ') };
}

/**
 * Conditions in the flags' condition language as a form (issue 26: a flag rule's conditions;
 * issue 27: an in-app message's audience): attribute, its key for an installation's or profile's
 * own attribute, the operators that fit it, values separated by commas, negate. Every control's
 * label starts with its row's name, so a screen reader and the keyboard reach each one by name.
 */
export function ConditionsEditor(props: {
  /** The heading over the rows (an h3). */
  heading: string;
  /** The name of row i (0-based), which starts every control's label: "Rule 1, condition 2". */
  name: (i: number) => string;
  /** The add button's accessible name. */
  addLabel: string;
  conditions: ConditionDraft[];
  onChange: (c: ConditionDraft[]) => void;
  /** A field's error from the server, by row and part (`values`, `operator`…), shown beside it. */
  errorOf?: (i: number, part: string) => string | undefined;
}) {
  const { conditions } = props;
  const set = (i: number, patch: Partial<ConditionDraft>) => props.onChange(conditions.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  return (
    <div class="conditions">
      <h3 class="small-heading">
        {props.heading} {conditions.length === 0 && <span class="muted">(none: every device)</span>}</h3>
      {conditions.map((c, i) => {
        const name = props.name(i);
        const err = (part: string) => props.errorOf?.(i, part);
        const ops = operatorsFor(c.attribute + (KEYED_ATTRIBUTES.includes(c.attribute) ? 'x' : ''));
        return (
          <div class="condition-row" role="group" aria-label={name} key={i}>
            <label>
              <span>Attribute</span>
              <select
                aria-label={`${name}: attribute`}
                value={c.attribute}
                onChange={(e) => {
                  const attribute = (e.target as HTMLSelectElement).value;
                  const fits = operatorsFor(attribute + (KEYED_ATTRIBUTES.includes(attribute) ? 'x' : ''));
                  set(i, { attribute, operator: fits.includes(c.operator) ? c.operator : fits[0] });
                }}
              >
                {ATTRIBUTES.map((a) => (
                  <option key={a} value={a}>
                    {KEYED_ATTRIBUTES.includes(a) ? `${a}<key>` : a}
                  </option>
                ))}
              </select>
              <FieldError text={err('attribute')} />
            </label>
            {KEYED_ATTRIBUTES.includes(c.attribute) && (
              <label>
                <span>Attribute key</span>
                <input aria-label={`${name}: attribute key`} value={c.attributeKey} onInput={(e) => set(i, { attributeKey: (e.target as HTMLInputElement).value })} autoComplete="off" spellcheck={false} />
              </label>
            )}
            <label>
              <span>Operator</span>
              <select aria-label={`${name}: operator`} value={c.operator} onChange={(e) => set(i, { operator: (e.target as HTMLSelectElement).value as ConditionDraft['operator'] })}>
                {ops.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
              <FieldError text={err('operator')} />
            </label>
            {c.operator !== 'exists' && (
              <label>
                <span>Values (comma-separated)</span>
                <input
                  aria-label={`${name}: values`}
                  {...invalidBy(err('values'), `${name}: values`)}
                  value={c.values}
                  onInput={(e) => set(i, { values: (e.target as HTMLInputElement).value })}
                  autoComplete="off"
                  spellcheck={false}
                />
                <FieldError text={err('values')} of={`${name}: values`} />
              </label>
            )}
            <label class="check">
              <input type="checkbox" aria-label={`${name}: negate`} checked={c.negate} onChange={(e) => set(i, { negate: (e.target as HTMLInputElement).checked })} />
              <span>Negate</span>
            </label>
            <button type="button" onClick={() => props.onChange(conditions.filter((_, j) => j !== i))} aria-label={`Remove ${name}`}>
              Remove
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => props.onChange([...conditions, newCondition()])} aria-label={props.addLabel}>
        Add a condition
      </button>
    </div>
  );
}

import { ConditionsEditor } from './conditions-editor';
import { BUCKETS, newRule, percent, type RuleDraft, type Serve, type Split } from './flag-model';

/**
 * A flag's rules edited as a form (issue 26 "Administration"): ordered rules (the first that
 * matches serves), each with its conditions (attribute, operator, values, negate) and what it
 * serves: one variant, a rollout (a slider for a two-variant split, weights in parts of 10,000
 * for any) or an experiment (its id, weights and coverage). Every control has its own label
 * naming its rule and row, so a screen reader and the keyboard reach each one by name.
 */
export function RulesEditor(props: { rules: RuleDraft[]; variants: string[]; onChange: (rules: RuleDraft[]) => void }) {
  const { rules, variants } = props;
  const set = (i: number, r: RuleDraft) => props.onChange(rules.map((x, j) => (j === i ? r : x)));
  const move = (i: number, by: number) => {
    const next = [...rules];
    const [r] = next.splice(i, 1);
    next.splice(i + by, 0, r);
    props.onChange(next);
  };
  return (
    <section aria-labelledby="rules-h" class="flag-rules">
      <h2 id="rules-h">Rules</h2>
      <p class="muted">The first rule whose conditions all hold serves; when none does, the default variant serves. An archived flag serves its off variant.</p>
      {rules.length === 0 && <p class="empty">No rule: every device gets the default variant.</p>}
      <ol class="rule-list">
        {rules.map((r, i) => (
          <li key={i}>
            <fieldset class="rule">
              <legend>Rule {i + 1}</legend>
              <ConditionsEditor
                heading="Conditions"
                name={(j) => `Rule ${i + 1}, condition ${j + 1}`}
                addLabel={`Add a condition to rule ${i + 1}`}
                conditions={r.conditions}
                onChange={(conditions) => set(i, { ...r, conditions })}
              />
              <Outcome rule={i + 1} draft={r} variants={variants} onChange={(x) => set(i, x)} />
              <div class="actions">
                <button type="button" onClick={() => move(i, -1)} disabled={i === 0} aria-label={`Move up rule ${i + 1}`}>
                  Move up
                </button>
                <button type="button" onClick={() => move(i, 1)} disabled={i === rules.length - 1} aria-label={`Move down rule ${i + 1}`}>
                  Move down
                </button>
                <button type="button" class="danger" onClick={() => props.onChange(rules.filter((_, j) => j !== i))} aria-label={`Remove rule ${i + 1}`}>
                  Remove rule
                </button>
              </div>
            </fieldset>
          </li>
        ))}
      </ol>
      <button type="button" onClick={() => props.onChange([...rules, newRule(variants)])}>
        Add a rule
      </button>
    </section>
  );
}

const SERVES: { value: Serve; label: string }[] = [
  { value: 'variant', label: 'One variant' },
  { value: 'rollout', label: 'A rollout' },
  { value: 'experiment', label: 'An experiment' },
];

function Outcome(props: { rule: number; draft: RuleDraft; variants: string[]; onChange: (r: RuleDraft) => void }) {
  const { draft: r, rule, variants } = props;
  const name = `Rule ${rule}`;
  const split = r.split.length ? r.split : newRule(variants).split;
  return (
    <div class="outcome">
      <fieldset class="choice">
        <legend>{name} serves</legend>
        {SERVES.map((s) => (
          <label key={s.value} class="check">
            <input type="radio" name={`serve-${rule}`} value={s.value} checked={r.serve === s.value} onChange={() => props.onChange({ ...r, serve: s.value, split })} />
            <span>{s.label}</span>
          </label>
        ))}
      </fieldset>
      {r.serve === 'variant' && (
        <label>
          <span>Variant</span>
          <select aria-label={`${name}: variant`} value={r.variant} onChange={(e) => props.onChange({ ...r, variant: (e.target as HTMLSelectElement).value })}>
            {variants.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </label>
      )}
      {r.serve === 'experiment' && (
        <div class="condition-row">
          <label>
            <span>Experiment id</span>
            <input aria-label={`${name}: experiment id`} value={r.experimentId} onInput={(e) => props.onChange({ ...r, experimentId: (e.target as HTMLInputElement).value })} autoComplete="off" spellcheck={false} />
          </label>
          <label>
            <span>Coverage (parts of 10,000)</span>
            <input
              aria-label={`${name}: coverage in parts of 10,000`}
              type="number"
              min={0}
              max={BUCKETS}
              value={r.coverage}
              onInput={(e) => props.onChange({ ...r, coverage: Number((e.target as HTMLInputElement).value) })}
            />
          </label>
          <span class="muted">{percent(r.coverage)} of the devices this rule matches are in the experiment; the rest fall through to the next rule.</span>
        </div>
      )}
      {r.serve !== 'variant' && <SplitEditor name={name} split={split} variants={variants} onChange={(s) => props.onChange({ ...r, split: s })} />}
    </div>
  );
}

/** The weights of a rollout or an experiment: per-variant parts of 10,000, and a slider when two variants share it. */
function SplitEditor(props: { name: string; split: Split[]; variants: string[]; onChange: (s: Split[]) => void }) {
  const { split, name } = props;
  const sum = split.reduce((n, s) => n + (Number.isFinite(s.weight) ? s.weight : 0), 0);
  const set = (i: number, patch: Partial<Split>) => props.onChange(split.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const two = split.length === 2;
  return (
    <div class="split">
      {two && (
        <label class="slider">
          <span>
            Share of {split[0].variant}: <output>{percent(split[0].weight)}</output> ({split[1].variant}: {percent(split[1].weight)})
          </span>
          <input
            type="range"
            aria-label={`${name}: percentage of ${split[0].variant}`}
            aria-valuetext={`${percent(split[0].weight)} ${split[0].variant}, ${percent(split[1].weight)} ${split[1].variant}`}
            min={0}
            max={100}
            step={1}
            value={split[0].weight / 100}
            onInput={(e) => {
              const w = Math.round(Number((e.target as HTMLInputElement).value) * 100);
              props.onChange([{ ...split[0], weight: w }, { ...split[1], weight: BUCKETS - w }]);
            }}
          />
        </label>
      )}
      <table class="weights">
        <caption class="visually-hidden">{name}: weights</caption>
        <thead>
          <tr>
            <th scope="col">Variant</th>
            <th scope="col">Weight (parts of 10,000)</th>
            <th scope="col">
              <span class="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {split.map((s, i) => (
            <tr key={i}>
              <td>
                <select aria-label={`${name}: split ${i + 1} variant`} value={s.variant} onChange={(e) => set(i, { variant: (e.target as HTMLSelectElement).value })}>
                  {props.variants.map((v) => (
                    <option key={v} value={v}>
                      {v}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                <input
                  aria-label={`${name}: weight of ${s.variant}`}
                  type="number"
                  min={0}
                  max={BUCKETS}
                  value={s.weight}
                  onInput={(e) => set(i, { weight: Number((e.target as HTMLInputElement).value) })}
                />
              </td>
              <td>
                <button type="button" disabled={split.length === 1} onClick={() => props.onChange(split.filter((_, j) => j !== i))} aria-label={`Remove ${s.variant} from the split of ${name.toLowerCase()}`}>
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
      <button type="button" onClick={() => props.onChange([...split, { variant: props.variants[0] ?? '', weight: 0 }])}>
        Add a variant to the split
      </button>
    </div>
  );
}

import { useState } from 'preact/hooks';
import { call } from '../../api';
import { Field, Form, bind } from '../../ui/forms';
import type { FlagDetailBody } from './flag-model';

const FLAG = '/engage/admin/environments/{environmentId}/flags/{flagKey}';
/** A copy of src/engage/flags/schedules.ts ScheduleBounds.rolloutSteps (the bundle cannot import server code). */
const MAX_STEPS = 20;
const DAY = 86_400_000;

interface Step {
  at: string;
  percentage: string;
}

/** The datetime-local input's value (local time, minutes) of an instant. */
const localInput = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/**
 * A rollout plan (issue 26 "Scheduled changes"), as `engage flags schedule --rollout` and the
 * API's `{"rollout": {rule, variant, steps}}`: one of the saved rules that serves a rollout, the
 * variant it steps up, and its steps (a time in the operator's zone and a percentage each); the
 * server makes one scheduled change per step, listed above once made.
 */
export function RolloutPlanForm(props: { environmentId: string; flag: FlagDetailBody; onChanged: (message: string) => void }) {
  const { flag } = props;
  const params = { environmentId: props.environmentId, flagKey: flag.key };
  const rules = flag.definition.rules.map((r, i) => ({ index: i, variants: r.rollout?.variants.map((s) => s.variant) ?? [] })).filter((r) => r.variants.length > 0);
  // The saved flag changes under the form (a save, a rollback): a choice it no longer offers falls back to the first it does.
  const [chosenRule, setRule] = useState(rules[0]?.index ?? 0);
  const rule = rules.some((r) => r.index === chosenRule) ? chosenRule : (rules[0]?.index ?? 0);
  const variants = rules.find((r) => r.index === rule)?.variants ?? [];
  const [chosenVariant, setVariant] = useState(variants[0] ?? '');
  const variant = variants.includes(chosenVariant) ? chosenVariant : (variants[0] ?? '');
  const [steps, setSteps] = useState<Step[]>(() => [25, 50, 100].map((p, i) => ({ at: localInput(new Date(Date.now() + (i + 1) * DAY)), percentage: String(p) })));
  if (rules.length === 0) return <p class="muted">A rollout plan steps up a rule that serves a rollout: the saved flag has none.</p>;
  const setStep = (i: number, patch: Partial<Step>) => setSteps(steps.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  return (
    <Form
      label="Schedule a rollout plan"
      submit="Schedule the rollout plan"
      extra={
        steps.length < MAX_STEPS && (
          <button type="button" onClick={() => setSteps([...steps, { at: steps.length ? steps[steps.length - 1].at : localInput(new Date(Date.now() + DAY)), percentage: '100' }])}>
            Add a step
          </button>
        )
      }
      onSubmit={async () => {
        const body = steps.map((s, i) => {
          const at = new Date(s.at);
          if (!s.at || Number.isNaN(at.getTime())) throw new Error(`Step ${i + 1}: choose the date and time it applies at.`);
          return { at: at.toISOString(), percentage: Number(s.percentage) };
        });
        const r = await call<{ items: unknown[] }, `POST ${typeof FLAG}/schedules`>(`POST ${FLAG}/schedules`, { params, body: { rollout: { rule, variant, steps: body } } });
        props.onChanged(`The rollout plan is scheduled: ${r.items.length} change${r.items.length === 1 ? '' : 's'} of rule ${rule + 1}, ${variant} up to ${body[body.length - 1].percentage}%.`);
      }}
    >
      <p class="muted">Steps the saved rule's rollout up: at each time the variant gets the percentage, the split's other variants share the rest.</p>
      <Field label="Rule">
        {(a) => (
          <select
            {...a}
            value={String(rule)}
            onChange={(e) => {
              const next = Number((e.target as HTMLSelectElement).value);
              setRule(next);
              setVariant(rules.find((r) => r.index === next)?.variants[0] ?? '');
            }}
          >
            {rules.map((r) => (
              <option key={r.index} value={String(r.index)}>
                Rule {r.index + 1}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Variant stepped up">
        {(a) => (
          <select {...a} value={variant} onChange={(e) => setVariant((e.target as HTMLSelectElement).value)}>
            {variants.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        )}
      </Field>
      <fieldset class="choices">
        <legend>Steps</legend>
        {steps.map((s, i) => (
          <div key={i} class="row-actions">
            <Field label={`Step ${i + 1}: at`}>{(a) => <input {...a} type="datetime-local" {...bind(s.at, (at) => setStep(i, { at }))} required />}</Field>
            <Field label={`Step ${i + 1}: percentage`}>
              {(a) => <input {...a} type="number" min={0} max={100} step={0.01} {...bind(s.percentage, (percentage) => setStep(i, { percentage }))} required />}
            </Field>
            {steps.length > 1 && (
              <button type="button" onClick={() => setSteps(steps.filter((_, j) => j !== i))} aria-label={`Remove step ${i + 1}`}>
                Remove
              </button>
            )}
          </div>
        ))}
      </fieldset>
    </Form>
  );
}

import { Field, bind } from '../../ui/forms';
import { ConditionsEditor, FieldError, invalidBy } from './conditions-editor';
import { PROPERTY_OPERATORS, TRIGGER_TYPES, newPropertyCondition, newTrigger, type MessageDraft, type PeriodUnit, type PropertyConditionDraft, type TriggerDraft, type TriggerType } from './in-app-model';
import type { AppLine } from './template-editor';

type Errors = Record<string, string>;
const TRIGGER_WORDS: Record<TriggerType, string> = { APP_OPEN: 'The app opens (comes to the foreground)', EVENT: 'An event is tracked', SCREEN: 'A screen is viewed' };

/**
 * A message's fields other than its content (issue 27 "console pages"): key (on create),
 * description, target apps, triggers, priority, frequency cap, schedule window and the audience,
 * written with the flags' condition editor. A field the server refused shows its reason beside it.
 */
export function MessageFields(props: { draft: MessageDraft; onChange: (d: MessageDraft) => void; apps: AppLine[] | undefined; withKey: boolean; errors: Errors }) {
  const { draft: d, onChange, errors } = props;
  const set = (patch: Partial<MessageDraft>) => onChange({ ...d, ...patch });
  const invalid = (path: string) => (errors[path] ? ('true' as const) : undefined);
  return (
    <>
      {props.withKey && (
        <Field label="Key" hint="Immutable: a lowercase letter, then a-z 0-9 _ . - (reports and the CLI name the message by it).">
          {(a) => (
            <>
              <input {...a} {...bind(d.key, (key) => set({ key }))} {...invalidBy(errors.key, 'key', a['aria-describedby'])} required autoComplete="off" spellcheck={false} />
              <FieldError text={errors.key} of="key" />
            </>
          )}
        </Field>
      )}
      <Field label="Description">
        {(a) => (
          <>
            <input {...a} {...bind(d.description, (description) => set({ description }))} {...invalidBy(errors.description, 'description', a['aria-describedby'])} />
            <FieldError text={errors.description} of="description" />
          </>
        )}
      </Field>
      <fieldset class="choices">
        <legend>Target apps</legend>
        <p class="hint">None checked: every app of the environment.</p>
        {props.apps?.map((app) => {
          const on = d.targetApps.includes(app.id);
          return (
            <label key={app.id} class="check">
              <input type="checkbox" checked={on} onChange={() => set({ targetApps: on ? d.targetApps.filter((x) => x !== app.id) : [...d.targetApps, app.id] })} /> {app.name} (
              {app.platform === 'IOS' ? 'iOS' : 'Android'})
            </label>
          );
        })}
        <FieldError text={Object.entries(errors).find(([k]) => k.startsWith('targetApps'))?.[1]} />
      </fieldset>
      <Triggers triggers={d.triggers} onChange={(triggers) => set({ triggers })} errors={errors} />
      <section aria-labelledby="audience-h" class="flag-rules">
        <h2 id="audience-h">Audience</h2>
        <p class="muted">Who may see the message: all conditions must hold (the flags' condition language, evaluated by the server at sync; the device never sees it).</p>
        <ConditionsEditor
          heading="Conditions"
          name={(i) => `Audience condition ${i + 1}`}
          addLabel="Add a condition to the audience"
          conditions={d.audience}
          onChange={(audience) => set({ audience })}
          errorOf={(i, part) => errors[`audience[${i}].${part}`] ?? (part === 'values' ? errors[`audience[${i}]`] : undefined)}
        />
      </section>
      <section aria-labelledby="delivery-h">
        <h2 id="delivery-h">Priority, cap and schedule</h2>
        <Field label="Priority" hint="0 to 1,000: when several messages fire on one trigger, the highest shows first.">
          {(a) => (
            <>
              <input {...a} type="number" min={0} max={1000} step={1} {...bind(d.priority, (priority) => set({ priority }))} {...invalidBy(errors.priority, 'priority', a['aria-describedby'])} />
              <FieldError text={errors.priority} of="priority" />
            </>
          )}
        </Field>
        <label class="check">
          <input type="checkbox" checked={d.capped} onChange={(e) => set({ capped: (e.target as HTMLInputElement).checked })} /> Limit how often an installation sees it (frequency cap)
        </label>
        {d.capped && (
          <div class="field-pair">
            <Field label="At most (impressions)">
              {(a) => <input {...a} type="number" min={1} max={1000} {...bind(d.capImpressions, (capImpressions) => set({ capImpressions }))} aria-invalid={invalid('frequencyCap.impressions')} />}
            </Field>
            <Field label="Per period of">
              {(a) => <input {...a} type="number" min={1} {...bind(d.capPeriod, (capPeriod) => set({ capPeriod }))} aria-invalid={invalid('frequencyCap.periodSeconds')} />}
            </Field>
            <Field label="Period unit">
              {(a) => (
                <select {...a} value={d.capUnit} onChange={(e) => set({ capUnit: (e.target as HTMLSelectElement).value as PeriodUnit })}>
                  <option value="minutes">minutes</option>
                  <option value="hours">hours</option>
                  <option value="days">days</option>
                </select>
              )}
            </Field>
          </div>
        )}
        <FieldError text={errors['frequencyCap.impressions'] ?? errors['frequencyCap.periodSeconds']} />
        <div class="field-pair">
          <Field label="Shown from" hint="Your time zone; empty: from publication.">
            {(a) => <input {...a} type="datetime-local" {...bind(d.startsAt, (startsAt) => set({ startsAt }))} aria-invalid={invalid('schedule.startsAt')} />}
          </Field>
          <Field label="Shown until" hint="Your time zone; empty: until paused or archived.">
            {(a) => <input {...a} type="datetime-local" {...bind(d.endsAt, (endsAt) => set({ endsAt }))} aria-invalid={invalid('schedule.endsAt')} />}
          </Field>
        </div>
        <FieldError text={errors['schedule.endsAt'] ?? errors['schedule.startsAt']} />
      </section>
    </>
  );
}

/** The triggers: what makes the device show the message (app open, a tracked event with property conditions, a viewed screen). */
function Triggers(props: { triggers: TriggerDraft[]; onChange: (t: TriggerDraft[]) => void; errors: Errors }) {
  const { triggers, errors } = props;
  const set = (i: number, patch: Partial<TriggerDraft>) => props.onChange(triggers.map((t, j) => (j === i ? { ...t, ...patch } : t)));
  return (
    <section aria-labelledby="triggers-h">
      <h2 id="triggers-h">Triggers</h2>
      <p class="muted">The device shows the message when any of these happens (offline too: triggers are evaluated on the device).</p>
      <FieldError text={errors.triggers} />
      {triggers.map((t, i) => {
        const name = `Trigger ${i + 1}`;
        const at = `triggers[${i}]`;
        return (
          <fieldset class="rule" key={i}>
            <legend>{name}</legend>
            <div class="condition-row">
              <label>
                <span>When</span>
                <select aria-label={`${name}: type`} value={t.type} onChange={(e) => set(i, { type: (e.target as HTMLSelectElement).value as TriggerType })}>
                  {TRIGGER_TYPES.map((x) => (
                    <option key={x} value={x}>
                      {TRIGGER_WORDS[x]}
                    </option>
                  ))}
                </select>
              </label>
              {t.type === 'EVENT' && (
                <label>
                  <span>Event name</span>
                  <input aria-label={`${name}: event name`} {...invalidBy(errors[`${at}.eventName`], `${at}.eventName`)} value={t.eventName} onInput={(e) => set(i, { eventName: (e.target as HTMLInputElement).value })} autoComplete="off" spellcheck={false} />
                  <FieldError text={errors[`${at}.eventName`]} of={`${at}.eventName`} />
                </label>
              )}
              {t.type === 'SCREEN' && (
                <label>
                  <span>Screen key</span>
                  <input aria-label={`${name}: screen key`} {...invalidBy(errors[`${at}.screenKey`], `${at}.screenKey`)} value={t.screenKey} onInput={(e) => set(i, { screenKey: (e.target as HTMLInputElement).value })} autoComplete="off" spellcheck={false} />
                  <FieldError text={errors[`${at}.screenKey`]} of={`${at}.screenKey`} />
                </label>
              )}
            </div>
            {t.type === 'EVENT' && <PropertyConditions trigger={i + 1} conditions={t.conditions} onChange={(conditions) => set(i, { conditions })} errors={errors} at={at} />}
            <div class="actions">
              <button type="button" class="danger" disabled={triggers.length === 1} onClick={() => props.onChange(triggers.filter((_, j) => j !== i))} aria-label={`Remove trigger ${i + 1}`}>
                Remove trigger
              </button>
            </div>
          </fieldset>
        );
      })}
      <button type="button" disabled={triggers.length >= 10} onClick={() => props.onChange([...triggers, newTrigger()])}>
        Add a trigger
      </button>
    </section>
  );
}

/** An EVENT trigger's conditions on the event's properties (all must hold). */
function PropertyConditions(props: { trigger: number; conditions: PropertyConditionDraft[]; onChange: (c: PropertyConditionDraft[]) => void; errors: Errors; at: string }) {
  const { conditions, trigger, errors } = props;
  const set = (i: number, patch: Partial<PropertyConditionDraft>) => props.onChange(conditions.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  return (
    <div class="conditions">
      <h3 class="small-heading">
        Property conditions {conditions.length === 0 && <span class="muted">(none: every event of that name)</span>}
      </h3>
      {conditions.map((c, i) => {
        const name = `Trigger ${trigger}, property condition ${i + 1}`;
        const err = (part: string) => errors[`${props.at}.conditions[${i}].${part}`];
        return (
          <div class="condition-row" role="group" aria-label={name} key={i}>
            <label>
              <span>Property</span>
              <input aria-label={`${name}: property`} value={c.property} onInput={(e) => set(i, { property: (e.target as HTMLInputElement).value })} autoComplete="off" spellcheck={false} />
              <FieldError text={err('property')} />
            </label>
            <label>
              <span>Operator</span>
              <select aria-label={`${name}: operator`} value={c.operator} onChange={(e) => set(i, { operator: (e.target as HTMLSelectElement).value as PropertyConditionDraft['operator'] })}>
                {PROPERTY_OPERATORS.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            </label>
            {c.operator !== 'exists' && (
              <label>
                <span>Values (comma-separated)</span>
                <input aria-label={`${name}: values`} {...invalidBy(err('values'), `${props.at}.conditions[${i}].values`)} value={c.values} onInput={(e) => set(i, { values: (e.target as HTMLInputElement).value })} autoComplete="off" spellcheck={false} />
                <FieldError text={err('values')} of={`${props.at}.conditions[${i}].values`} />
              </label>
            )}
            <button type="button" onClick={() => props.onChange(conditions.filter((_, j) => j !== i))} aria-label={`Remove ${name}`}>
              Remove
            </button>
          </div>
        );
      })}
      <p class="hint">Values: true, false and numbers are typed; write "5" in double quotes for the text 5.</p>
      <button type="button" onClick={() => props.onChange([...conditions, newPropertyCondition()])} aria-label={`Add a property condition to trigger ${trigger}`}>
        Add a property condition
      </button>
    </div>
  );
}

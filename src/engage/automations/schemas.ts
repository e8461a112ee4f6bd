/**
 * An automation's definition (issue 28 "Definitions"): a graph of steps with one start, as data.
 * The shape (TypeBox, checked by ajv like every other schema) and the rules a schema cannot
 * state, checked at publish (`publishViolations`): the graph is connected from its start and
 * acyclic, every branch ends (every path reaches an exit or a step with no next, which ends the
 * run COMPLETED; an `onFailure` edge is one more branch, held to the same rules), every step names steps that exist, every `{{variable}}` names something a run
 * has. That templates and in-app messages exist is checked by the service, which can read them.
 * Every bound is named here and in docs/automations.md.
 */
import { checker, Enum, FreeValue, Strict, T, Uuid, violation, ViolationCode, type Static, type Violation } from '../../platform/http/schema';
import { conditionViolations, FlagCondition } from '../flags/schemas';
import { PropertyCondition } from '../in-app/schemas';
import { FreeObject, Key, KEY_PATTERN } from '../shared/schemas';

export const AutomationBounds = {
  nameLength: 200,
  descriptionLength: 1_000,
  targetApps: 50,
  audienceConditions: 20,
  steps: 100,
  conditionsPerStep: 20,
  /** The trigger's context, as JSON in UTF-8. */
  contextBytes: 16 * 1024,
  /** The trigger's context, in nesting levels. */
  contextDepth: 8,
  waitSeconds: { min: 1, max: 366 * 86_400 },
  webhookTimeoutSeconds: { min: 1, max: 30, default: 15 },
  reentryIntervalSeconds: { min: 1, max: 366 * 86_400 },
  runsPerProfile: { min: 1, max: 1_000_000 },
  inAppPeriodSeconds: { min: 60, max: 366 * 86_400 },
} as const;

export const AUTOMATION_STATUSES = ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'] as const;
export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];
export const RUN_STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const STEP_STATUSES = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'SKIPPED'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
export const REENTRY_MODES = ['NEVER', 'AFTER_END', 'ALWAYS'] as const;

/** A step id: a key. */
const StepId = (description?: string) => T.String({ pattern: KEY_PATTERN, description });
/**
 * What a run can read, in conditions and `{{…}}` placeholders: `context.<key>` (the trigger's
 * context and what webhook steps mapped into it), `event.properties.<key>` (the entry event's),
 * and the profile's attributes (flag references: `profile.externalId`, `profile.attributes.<key>`, `profile.tags`).
 */
const KEY = KEY_PATTERN.slice(1, -1);
/** A key of the context or of the event's properties (free keys: letters of either case, digits, `_`, `-`). */
const FREE_KEY = '[A-Za-z0-9_-]{1,128}';
export const RUN_REFERENCE = `^(?:context\\.${FREE_KEY}|event\\.properties\\.${FREE_KEY}|profile\\.externalId|profile\\.attributes\\.${KEY})$`;
const RUN_REFERENCE_RE = new RegExp(RUN_REFERENCE);

/** A condition of a condition step: the flags' language over the profile, plus `context.*` and `event.properties.*` (compared as free values). */
export const RunCondition = Strict({
  attribute: T.String({ minLength: 1, maxLength: 200, description: 'a flag attribute reference, `context.<key>` or `event.properties.<key>`' }),
  operator: FlagCondition.properties.operator,
  values: FlagCondition.properties.values,
  negate: FlagCondition.properties.negate,
});
export type RunCondition = Static<typeof RunCondition>;

const EventMatch = Strict({
  eventName: T.String({ pattern: '^[a-z][a-z0-9_]{1,63}$', description: 'an EVENT_TRACKED name' }),
  conditions: T.Optional(T.Array(PropertyCondition, { maxItems: 10, description: 'all must hold on the event\'s properties' })),
});
export type EventMatch = Static<typeof EventMatch>;

const Next = T.Optional(StepId('the step after this one; absent: the run ends COMPLETED here'));
/**
 * "Continue on failure" (Knock, Braze Canvas, Novu users' request; docs/decisions.md): the steps
 * whose effect can fail for good (a webhook refused or out of retries, a send refused, an in-app
 * message gone) may name a step to go to then. The execution stays FAILED with its error; the run
 * goes on there instead of ending FAILED.
 */
const OnFailure = T.Optional(StepId('when this step fails for good: the step to go to (the execution stays FAILED); absent: the run ends FAILED'));
const Templated = (description: string) => FreeObject({ maxProperties: 100, values: FreeValue(), description });

const PushStep = Strict({
  type: T.Literal('push'),
  template: Key({ description: 'a transactional template of the environment (sent to the run\'s profile)' }),
  variables: T.Optional(Templated('template variables; string values may be `{{reference}}` placeholders')),
  locale: T.Optional(T.String({ minLength: 1, maxLength: 35 })),
  next: Next,
  onFailure: OnFailure,
});
const InAppStep = Strict({
  type: T.Literal('in-app'),
  message: Key({ description: 'an in-app message of the environment' }),
  periodSeconds: T.Integer({ minimum: AutomationBounds.inAppPeriodSeconds.min, maximum: AutomationBounds.inAppPeriodSeconds.max, description: 'how long the message stays eligible for the profile' }),
  saveToInbox: T.Optional(T.Boolean({ description: 'also write an inbox entry for the profile with the message\'s layout (expiring with the period)' })),
  next: Next,
  onFailure: OnFailure,
});
const WebhookStep = Strict({
  type: T.Literal('webhook'),
  method: Enum(['POST', 'PUT', 'PATCH'] as const),
  // No user:password@ in the authority (delivery.ts refuses it at every attempt: a header carries credentials).
  url: T.String({ minLength: 1, maxLength: 2_048, pattern: '^https?://[^\\s/?#@]+([/?#]\\S*)?$', description: 'http or https, without credentials (send them in a header)' }),
  // A value HTTP allows (delivery.ts refuses any other at every attempt): tab, visible ASCII, space, obs-text.
  headers: T.Optional(T.Record(T.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }), T.String({ maxLength: 1_024, pattern: '^[\\t\\x20-\\x7e\\x80-\\xff]*$' }), { maxProperties: 20 })),
  body: T.Optional(Templated('the JSON body\'s `data`; string values may be `{{reference}}` placeholders')),
  timeoutSeconds: T.Optional(T.Integer({ minimum: AutomationBounds.webhookTimeoutSeconds.min, maximum: AutomationBounds.webhookTimeoutSeconds.max })),
  responseMapping: T.Optional(
    T.Record(T.String({ pattern: KEY_PATTERN }), T.String({ pattern: '^[A-Za-z0-9_.-]{1,200}$' }), { maxProperties: 20, description: 'context key → a dotted path in the response\'s JSON' }),
  ),
  next: Next,
  onFailure: OnFailure,
});
const ProfileUpdateStep = Strict({
  type: T.Literal('profile-update'),
  set: T.Optional(Templated('profile attributes to set; string values may be `{{reference}}` placeholders')),
  remove: T.Optional(T.Array(T.String({ pattern: KEY_PATTERN }), { maxItems: 100, uniqueItems: true })),
  addTags: T.Optional(T.Array(T.String({ minLength: 1, maxLength: 64 }), { maxItems: 100, uniqueItems: true })),
  removeTags: T.Optional(T.Array(T.String({ minLength: 1, maxLength: 64 }), { maxItems: 100, uniqueItems: true })),
  next: Next,
});
const ConditionStep = Strict({
  type: T.Literal('condition'),
  conditions: T.Array(RunCondition, { minItems: 1, maxItems: AutomationBounds.conditionsPerStep, description: 'all must hold' }),
  then: T.Optional(StepId('when they hold; absent: the run ends COMPLETED')),
  else: T.Optional(StepId('when they do not; absent: the run ends COMPLETED')),
});
const WaitStep = Strict({
  type: T.Literal('wait'),
  /** Exactly one of seconds, timeOfDay, event. */
  seconds: T.Optional(T.Integer({ minimum: AutomationBounds.waitSeconds.min, maximum: AutomationBounds.waitSeconds.max })),
  timeOfDay: T.Optional(T.String({ pattern: '^(?:[01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM in the profile\'s time zone (its `time_zone` attribute, else its first installation\'s, else UTC)' })),
  event: T.Optional(Strict({ ...EventMatch.properties, timeoutSeconds: T.Integer({ minimum: AutomationBounds.waitSeconds.min, maximum: AutomationBounds.waitSeconds.max }) })),
  next: Next,
  timeoutNext: T.Optional(StepId('event waits: the step after a timeout; absent: the run ends COMPLETED')),
});
const ExitStep = Strict({ type: T.Literal('exit') });

export const Step = T.Union([PushStep, InAppStep, WebhookStep, ProfileUpdateStep, ConditionStep, WaitStep, ExitStep]);
export type Step = Static<typeof Step>;
export const STEP_KINDS = ['push', 'in-app', 'webhook', 'profile-update', 'condition', 'wait', 'exit'] as const;

export const AutomationDefinition = Strict({
  key: Key(),
  name: T.String({ minLength: 1, maxLength: AutomationBounds.nameLength }),
  description: T.Optional(T.String({ maxLength: AutomationBounds.descriptionLength })),
  targetApps: T.Optional(T.Array(Uuid(), { maxItems: AutomationBounds.targetApps, uniqueItems: true, description: 'app ids; absent or empty: every app' })),
  audience: T.Optional(T.Array(FlagCondition, { maxItems: AutomationBounds.audienceConditions, description: 'all must hold for the profile with one of its installations' })),
  reentry: T.Optional(
    Strict({
      mode: Enum(REENTRY_MODES, { description: 'NEVER: once per profile; AFTER_END: again once the previous run ended; ALWAYS: any time (minIntervalSeconds apart)' }),
      minIntervalSeconds: T.Optional(T.Integer({ minimum: AutomationBounds.reentryIntervalSeconds.min, maximum: AutomationBounds.reentryIntervalSeconds.max })),
      maxRunsPerProfile: T.Optional(T.Integer({ minimum: AutomationBounds.runsPerProfile.min, maximum: AutomationBounds.runsPerProfile.max })),
    }),
  ),
  entries: Strict({
    api: T.Optional(T.Boolean({ description: 'the trigger endpoint, under the automation\'s rotatable automationApiKey' })),
    event: T.Optional(EventMatch),
  }),
  exit: T.Optional(EventMatch),
  start: StepId('the first step'),
  steps: T.Record(T.String({ pattern: KEY_PATTERN }), Step, { minProperties: 1, maxProperties: AutomationBounds.steps }),
});
export type AutomationDefinition = Static<typeof AutomationDefinition>;

const checkShape = checker(AutomationDefinition);

/** The shape's violations and the cross-field rules that hold for a draft too (entries, references to steps). */
export function draftViolations(value: unknown, at = ''): Violation[] {
  const shape = checkShape.all(value, at);
  if (shape.length > 0) return shape;
  if (JSON.stringify(value).includes('\\u0000')) return [violation(ViolationCode.value, at || 'body', 'holds a NUL character (\\u0000), which text values may not contain')];
  const d = value as AutomationDefinition;
  const out: Violation[] = [];
  const f = (name: string) => (at === '' ? name : `${at}.${name}`);
  if (!d.entries.api && !d.entries.event) out.push(violation(ViolationCode.required, f('entries'), 'needs an api entry, an event entry, or both'));
  (d.audience ?? []).forEach((c, i) => out.push(...conditionViolations(c, f(`audience[${i}]`))));
  for (const [id, s] of Object.entries(d.steps)) {
    if (s.type === 'condition') s.conditions.forEach((c, i) => out.push(...runConditionViolations(c, f(`steps.${id}.conditions[${i}]`))));
    if (s.type === 'wait') {
      const kinds = [s.seconds, s.timeOfDay, s.event].filter((x) => x !== undefined).length;
      if (kinds !== 1) out.push(violation(ViolationCode.value, f(`steps.${id}`), 'a wait needs exactly one of seconds, timeOfDay, event'));
      if (s.timeoutNext !== undefined && s.event === undefined) out.push(violation(ViolationCode.value, f(`steps.${id}.timeoutNext`), 'only an event wait has a timeout'));
    }
  }
  return out;
}

function runConditionViolations(c: RunCondition, at: string): Violation[] {
  if (/^(?:context|event\.properties)\./.test(c.attribute)) {
    if (!RUN_REFERENCE_RE.test(c.attribute)) return [violation(ViolationCode.value, `${at}.attribute`, 'must be context.<key> or event.properties.<key> (keys: 1 to 128 of A-Z a-z 0-9 _ -)')];
    // Compared as an attribute of free type: any operator, the value decides.
    return conditionViolations({ ...c, attribute: 'installation.attributes.value' }, at);
  }
  return conditionViolations(c, at);
}

/** The steps each step leads to. */
export function successors(s: Step): string[] {
  switch (s.type) {
    case 'condition':
      return [s.then, s.else].filter((x): x is string => x !== undefined);
    case 'wait':
      return [s.next, s.timeoutNext].filter((x): x is string => x !== undefined);
    case 'exit':
      return [];
    case 'push':
    case 'in-app':
    case 'webhook':
      return [s.next, s.onFailure].filter((x): x is string => x !== undefined);
    default:
      return s.next !== undefined ? [s.next] : [];
  }
}

/** `{{reference}}` placeholders of a templated value. */
export function placeholders(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') for (const m of v.matchAll(/\{\{\s*([^}\s]+)\s*\}\}/g)) out.push(m[1]);
  else if (Array.isArray(v)) for (const x of v) placeholders(x, out);
  else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) placeholders(x, out);
  return out;
}

/**
 * What publishing adds to a draft's rules: the start and every successor name a step; every step
 * is reachable from the start; there is no cycle (a run always ends); every placeholder is a run
 * reference, and `event.properties.*` ones only when the automation has an event entry.
 */
export function publishViolations(d: AutomationDefinition): Violation[] {
  const out = draftViolations(d);
  if (out.length > 0) return out;
  const ids = new Set(Object.keys(d.steps));
  if (!ids.has(d.start)) out.push(violation(ViolationCode.value, 'start', `names no step (${d.start})`));
  for (const [id, s] of Object.entries(d.steps)) {
    for (const n of successors(s)) if (!ids.has(n)) out.push(violation(ViolationCode.value, `steps.${id}`, `leads to ${n}, which is no step`));
    const refs = s.type === 'condition' ? s.conditions.map((c) => c.attribute).filter((a) => /^(?:context|event)\./.test(a)) : placeholders(s);
    for (const r of refs) {
      if (!RUN_REFERENCE_RE.test(r)) out.push(violation(ViolationCode.value, `steps.${id}`, `{{${r}}} is not something a run has (context.<key>, event.properties.<key>, profile.externalId, profile.attributes.<key>)`));
      else if (r.startsWith('event.') && !d.entries.event) out.push(violation(ViolationCode.value, `steps.${id}`, `${r}: the automation has no event entry, so a run has no entry event`));
    }
  }
  if (out.length > 0) return out;
  // Reachability and cycles: a depth-first walk from the start, colouring steps.
  const state = new Map<string, 1 | 2>();
  const walk = (id: string, path: string[]): void => {
    state.set(id, 1);
    for (const n of successors(d.steps[id])) {
      if (state.get(n) === 1) out.push(violation(ViolationCode.value, `steps.${id}`, `makes a cycle (${[...path, id, n].join(' -> ')}): a run must end`));
      else if (!state.has(n)) walk(n, [...path, id]);
    }
    state.set(id, 2);
  };
  walk(d.start, []);
  for (const id of ids) if (!state.has(id)) out.push(violation(ViolationCode.value, `steps.${id}`, 'is not reachable from the start'));
  return out;
}

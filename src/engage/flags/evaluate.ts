/**
 * Flag evaluation (issue 26): a definition (schemas.ts, already validated) and one context give
 * `{variantKey, value, reason, experimentId?}` with OpenFeature's reasons. Pure: no clock, no
 * store. A definition is compiled once into closures (`compileFlag`); `evaluate` keeps the
 * compiled form per definition object. Never throws on odd context data: a missing attribute or
 * one of the wrong type does not match (docs/decisions.md "Flag evaluation core").
 */
import { parseDateTime } from '../../platform/http/schema';
import { chooseVariant, lastUnitBucketer } from './bucketing';
import { attributeType, type FlagCondition, type FlagDefinition, type FlagRule, type Operator } from './schemas';
import { compareSemVer, parseSemVer, type SemVer } from './semver';

/** OpenFeature resolution reasons this core gives (open-feature js-sdk). */
export type FlagReason = 'STATIC' | 'TARGETING_MATCH' | 'SPLIT' | 'DEFAULT' | 'DISABLED';

export interface FlagResult {
  variantKey: string;
  value: unknown;
  reason: FlagReason;
  /** The experiment whose split served the variant (FLAG_EXPOSED reports it back). */
  experimentId?: string;
}

/**
 * The variant an installation was served by a split while it was anonymous, kept by the caller
 * (the sync, later) for `profile-sticky` flags: recorded from the installation's last anonymous
 * evaluation when it binds. `experimentId` is the experiment's (absent for a rollout).
 */
export interface AnonymousAssignment {
  variantKey: string;
  experimentId?: string;
}

type Channel = 'PUSH' | 'EMAIL' | 'SMS' | 'WHATSAPP';

export interface FlagContext {
  /** The installation's id (a UUID): the bucketing unit of `installation` flags and of anonymous ones. */
  installationId: string;
  /** The app's id. */
  app: string;
  platform: string;
  appVersion?: string | null;
  osVersion?: string | null;
  locale?: string | null;
  timeZone?: string | null;
  attributes?: Readonly<Record<string, unknown>> | null;
  /** Keys of the lists the installation is subscribed to. */
  subscriptions?: readonly string[] | null;
  /** The bound profile; absent or null while anonymous. */
  profile?: {
    /** The profile's id (a UUID): the bucketing unit of `profile` flags while bound. */
    id: string;
    externalId: string;
    attributes?: Readonly<Record<string, unknown>> | null;
    tags?: readonly string[] | null;
    /** List key → channels on which the profile is subscribed to it. */
    subscriptions?: Readonly<Record<string, readonly Channel[]>> | null;
  } | null;
  /** Flag key → what the installation was served while anonymous (profile-sticky flags only read it). */
  anonymousAssignments?: Readonly<Record<string, AnonymousAssignment>> | null;
}

/** A compiled flag: evaluating it does no parsing, no allocation beyond the result. */
export interface CompiledFlag {
  readonly key: string;
  evaluate(context: FlagContext): FlagResult;
  /** Like evaluate, and also how many rules were looked at (the benchmark's unit). */
  evaluateCounting(context: FlagContext, counter: { rules: number }): FlagResult;
}

const compiled = new WeakMap<FlagDefinition, CompiledFlag>();

/** Evaluates `flag` for `context`, compiling the definition on its first use. */
export function evaluate(flag: FlagDefinition, context: FlagContext): FlagResult {
  let c = compiled.get(flag);
  if (!c) compiled.set(flag, (c = compileFlag(flag)));
  return c.evaluate(context);
}

type Test = (ctx: FlagContext) => boolean;
type Serve = (ctx: FlagContext) => FlagResult | undefined;

export function compileFlag(flag: FlagDefinition): CompiledFlag {
  // Results are shared and frozen (shallow): callers read them, never change them.
  const result = (variantKey: string, reason: FlagReason, experimentId?: string): FlagResult =>
    Object.freeze(experimentId === undefined ? { variantKey, value: flag.variants[variantKey], reason } : { variantKey, value: flag.variants[variantKey], reason, experimentId });
  const off = result(flag.offVariant, 'DISABLED');
  const fallback = result(flag.defaultVariant, flag.rules.length === 0 ? 'STATIC' : 'DEFAULT');
  const apps = flag.targetApps && flag.targetApps.length > 0 ? new Set(flag.targetApps.map((a) => a.toLowerCase())) : undefined;
  const archived = flag.status === 'ARCHIVED';
  // One bucketer per seed for the whole flag: its rules' splits (a targeted rollout, then one for
  // everyone) usually share the flag's seed, and so hash the unit once per evaluation.
  const bucketers = new Map<string, (id: string) => number>();
  const bucketerOf = (seed: string) => {
    let b = bucketers.get(seed);
    if (!b) bucketers.set(seed, (b = lastUnitBucketer(seed)));
    return b;
  };
  const rules = flag.rules.map((rule) => compileRule(flag, rule, result, bucketerOf));

  const evaluateCounting = (ctx: FlagContext, counter: { rules: number }): FlagResult => {
    if (archived) return off;
    if (apps && (typeof ctx.app !== 'string' || !apps.has(ctx.app.toLowerCase()))) return off;
    for (let i = 0; i < rules.length; i++) {
      counter.rules++;
      const r = rules[i];
      if (!r.when(ctx)) continue;
      const served = r.serve(ctx);
      if (served) return served;
    }
    return fallback;
  };
  const scratch = { rules: 0 };
  return {
    key: flag.key,
    evaluate: (ctx) => evaluateCounting(ctx, scratch),
    evaluateCounting,
  };
}

function compileRule(
  flag: FlagDefinition,
  rule: FlagRule,
  result: (variantKey: string, reason: FlagReason, experimentId?: string) => FlagResult,
  bucketerOf: (seed: string) => (id: string) => number,
): { when: Test; serve: Serve } {
  const when = allOf((rule.conditions ?? []).map(compileCondition));
  if (rule.variant !== undefined) {
    const fixed = result(rule.variant, 'TARGETING_MATCH');
    return { when, serve: () => fixed };
  }
  const split = rule.experiment ?? rule.rollout!;
  const experimentId = rule.experiment?.experimentId;
  const coverage = rule.experiment ? rule.experiment.coverage : undefined;
  const seed = split.seed ?? experimentId ?? flag.seed ?? flag.key;
  const bucket = bucketerOf(seed);
  const weights = split.variants.map((v) => v.weight);
  const served = split.variants.map((v) => result(v.variant, 'SPLIT', experimentId));
  // A variant with weight 0 is never served, so a sticky assignment to it is not kept.
  const live = new Map(split.variants.flatMap((v, i) => (v.weight > 0 ? [[v.variant, served[i]] as const] : [])));
  const unit = flag.bucketBy;
  const key = flag.key;
  const serve: Serve = (ctx) => {
    const profile = ctx.profile;
    let id: string | undefined;
    if (unit === 'installation' || !profile) id = ctx.installationId;
    else {
      if (unit === 'profile-sticky') {
        const kept = ctx.anonymousAssignments?.[key];
        if (kept && kept.experimentId === experimentId) {
          const r = live.get(kept.variantKey);
          if (r) return r;
        }
      }
      id = profile.id;
    }
    const b = typeof id === 'string' ? bucket(id) : -1;
    if (b < 0) return undefined;
    const i = chooseVariant(b, weights, coverage);
    return i < 0 ? undefined : served[i];
  };
  return { when, serve };
}

function allOf(tests: Test[]): Test {
  switch (tests.length) {
    case 0:
      return () => true;
    case 1:
      return tests[0];
    case 2: {
      const [a, b] = tests;
      return (ctx) => a(ctx) && b(ctx);
    }
    case 3: {
      const [a, b, c] = tests;
      return (ctx) => a(ctx) && b(ctx) && c(ctx);
    }
    default:
      return (ctx) => {
        for (let i = 0; i < tests.length; i++) if (!tests[i](ctx)) return false;
        return true;
      };
  }
}

/** Reads the attribute a reference names; undefined when the context does not hold it. */
export function readerOf(ref: string): (ctx: FlagContext) => unknown {
  switch (ref) {
    case 'installationId':
      return (ctx) => ctx.installationId;
    case 'app':
      return (ctx) => ctx.app;
    case 'platform':
      return (ctx) => ctx.platform;
    case 'appVersion':
      return (ctx) => ctx.appVersion;
    case 'osVersion':
      return (ctx) => ctx.osVersion;
    case 'locale':
      return (ctx) => ctx.locale;
    case 'timeZone':
      return (ctx) => ctx.timeZone;
    case 'installation.subscriptions':
      return (ctx) => ctx.subscriptions;
    case 'profile':
      return (ctx) => ctx.profile ?? undefined;
    case 'profile.externalId':
      return (ctx) => ctx.profile?.externalId;
    case 'profile.tags':
      return (ctx) => ctx.profile?.tags;
    case 'profile.subscriptions':
      // Lists subscribed on at least one channel.
      return (ctx) => {
        const subs = ctx.profile?.subscriptions;
        if (!subs || typeof subs !== 'object') return undefined;
        const lists: string[] = [];
        for (const list of Object.keys(subs)) if (Array.isArray(subs[list]) && subs[list].length > 0) lists.push(list);
        return lists;
      };
  }
  if (ref.startsWith('profile.subscriptions.')) {
    const channel = ref.slice('profile.subscriptions.'.length);
    return (ctx) => {
      const subs = ctx.profile?.subscriptions;
      if (!subs || typeof subs !== 'object') return undefined;
      const lists: string[] = [];
      for (const list of Object.keys(subs)) if (Array.isArray(subs[list]) && subs[list].includes(channel as Channel)) lists.push(list);
      return lists;
    };
  }
  const own = Object.prototype.hasOwnProperty;
  if (ref.startsWith('installation.attributes.')) {
    const name = ref.slice('installation.attributes.'.length);
    return (ctx) => {
      const a = ctx.attributes;
      return a && typeof a === 'object' && own.call(a, name) ? a[name] : undefined;
    };
  }
  if (ref.startsWith('profile.attributes.')) {
    const name = ref.slice('profile.attributes.'.length);
    return (ctx) => {
      const a = ctx.profile?.attributes;
      return a && typeof a === 'object' && own.call(a, name) ? a[name] : undefined;
    };
  }
  return () => undefined;
}

/**
 * A condition as a closure. The operator is applied to a present value of the right type; a
 * missing attribute (undefined or null) or a value of another type makes the condition false
 * whatever `negate` says, so a rule never captures a context for lacking data. `exists` is the
 * one operator defined on a missing value: negated, it matches exactly the contexts without it.
 */
export function compileCondition(c: FlagCondition): Test {
  const read = readerOf(c.attribute);
  const negate = c.negate === true;
  if (c.operator === 'exists') {
    return negate ? (ctx) => !present(read(ctx)) : (ctx) => present(read(ctx));
  }
  const op = operatorOf(c.operator, c.values ?? [], attributeType(c.attribute) === 'set');
  // op answers true, false, or undefined for a value it cannot compare.
  return negate
    ? (ctx) => {
        const v = read(ctx);
        return v !== undefined && v !== null && op(v) === false;
      }
    : (ctx) => {
        const v = read(ctx);
        return v !== undefined && v !== null && op(v) === true;
      };
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

type Op = (v: unknown) => boolean | undefined;

function operatorOf(operator: Exclude<Operator, 'exists'>, values: readonly (string | number | boolean)[], setValued: boolean): Op {
  switch (operator) {
    case 'equals': {
      const want = values[0];
      return (v) => (typeof v === typeof want ? v === want : undefined);
    }
    case 'in':
    case 'notIn': {
      const set = new Set<unknown>(values);
      const type = typeof values[0];
      const inside = operator === 'in';
      return (v) => (typeof v === type ? set.has(v) === inside : undefined);
    }
    case 'contains': {
      const wanted = values as readonly string[];
      const set = new Set(wanted);
      return (v) => {
        if (typeof v === 'string' && !setValued) {
          for (let i = 0; i < wanted.length; i++) if (v.includes(wanted[i])) return true;
          return false;
        }
        if (!Array.isArray(v)) return undefined;
        for (let i = 0; i < v.length; i++) if (set.has(v[i] as string)) return true;
        return false;
      };
    }
    case 'startsWith': {
      const wanted = values as readonly string[];
      return (v) => {
        if (typeof v !== 'string') return undefined;
        for (let i = 0; i < wanted.length; i++) if (v.startsWith(wanted[i])) return true;
        return false;
      };
    }
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      const n = values[0] as number;
      const cmp = comparison(operator);
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? cmp(v < n ? -1 : v > n ? 1 : 0) : undefined);
    }
    case 'before':
    case 'after': {
      const t = parseDateTime(values[0] as string);
      const before = operator === 'before';
      // A profile's date repeats across its flags' rules: the last one parsed is kept.
      let lastText: string | undefined;
      let last = NaN;
      return (v) => {
        if (typeof v !== 'string') return undefined;
        if (v !== lastText) {
          last = parseDateTime(v);
          lastText = v;
        }
        const x = last;
        if (Number.isNaN(x)) return undefined;
        return before ? x < t : x > t;
      };
    }
    case 'semverEq':
    case 'semverLt':
    case 'semverLte':
    case 'semverGt':
    case 'semverGte': {
      const want = parseSemVer(values[0])!;
      const cmp = comparison(operator);
      // App versions repeat across contexts: remember the last few parsed.
      const cache = new Map<string, SemVer | null>();
      return (v) => {
        if (typeof v !== 'string') return undefined;
        let s = cache.get(v);
        if (s === undefined) {
          s = parseSemVer(v) ?? null;
          if (cache.size >= 256) cache.clear();
          cache.set(v, s);
        }
        return s === null ? undefined : cmp(compareSemVer(s, want));
      };
    }
  }
}

function comparison(operator: 'lt' | 'lte' | 'gt' | 'gte' | 'semverEq' | 'semverLt' | 'semverLte' | 'semverGt' | 'semverGte'): (order: number) => boolean {
  switch (operator) {
    case 'semverEq':
      return (o) => o === 0;
    case 'lt':
    case 'semverLt':
      return (o) => o < 0;
    case 'lte':
    case 'semverLte':
      return (o) => o <= 0;
    case 'gt':
    case 'semverGt':
      return (o) => o > 0;
    case 'gte':
    case 'semverGte':
      return (o) => o >= 0;
  }
}

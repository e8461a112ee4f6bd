#!/usr/bin/env node
/**
 * Flag evaluation in process (issue 26 "Performance": at least 1,000,000 rule evaluations per
 * second). An environment of 200 flags — 50 whose rules have three conditions, 10 experiments,
 * the rest simple (no rule, one condition, a rollout) — each validated by the schema, compiled
 * once, then evaluated for 10,000 contexts (half bound to a profile), every flag for every
 * context, for a number of passes. A rule evaluation is one rule looked at for one context (its
 * conditions tested, and its split hashed when they hold); the flag evaluations are counted too.
 *
 * Run:  node --import tsx bench/flags-eval.mjs [--contexts 10000] [--passes 5]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';

const { flagViolations } = await import('../src/engage/flags/schemas.ts');
const { compileFlag } = await import('../src/engage/flags/evaluate.ts');

const { values: args } = parseArgs({
  options: {
    contexts: { type: 'string', default: '10000' },
    passes: { type: 'string', default: '5' },
  },
});
const CONTEXTS = Number(args.contexts);
const PASSES = Number(args.passes);

// A seeded generator (mulberry32): the same flags and contexts on every run.
let state = 42;
function random() {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(random() * list.length)];
const hex = (n) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;

const APPS = [uuid(), uuid()];
const LOCALES = ['en-US', 'en-GB', 'fr-FR', 'de-DE', 'es-ES', 'pt-BR', 'ja-JP'];
const VERSIONS = ['1.9.0', '2.0.0-beta.2', '2.0.0', '2.1.3', '2.4.0', '3.0.0'];
const TAGS = ['beta', 'vip', 'churn-risk', 'staff', 'new'];
const LISTS = ['news', 'offers', 'product', 'digest'];

/** Three conditions of different kinds: the rules of the 50 targeted flags. */
function threeConditions(i) {
  return [
    { attribute: 'platform', operator: 'in', values: [i % 2 ? 'IOS' : 'ANDROID'] },
    { attribute: 'appVersion', operator: pick(['semverGte', 'semverLt']), values: [pick(VERSIONS)] },
    pick([
      { attribute: 'installation.attributes.level', operator: 'gte', values: [Math.floor(random() * 10)] },
      { attribute: 'locale', operator: 'startsWith', values: [pick(LOCALES).slice(0, 2)] },
      { attribute: 'profile.tags', operator: 'contains', values: [pick(TAGS)] },
      { attribute: 'profile.attributes.plan', operator: 'in', values: ['pro', 'team'] },
      { attribute: 'installation.subscriptions', operator: 'contains', values: [pick(LISTS)], negate: true },
      { attribute: 'profile.attributes.since', operator: 'before', values: ['2026-06-01T00:00:00Z'] },
    ]),
  ];
}

const boolFlag = (key, over) => ({
  key,
  kind: 'BOOLEAN',
  variants: { on: true, off: false },
  defaultVariant: 'off',
  offVariant: 'off',
  status: 'ACTIVE',
  bucketBy: pick(['installation', 'profile', 'profile-sticky']),
  rules: [],
  ...over,
});

const flags = [];
for (let i = 0; i < 50; i++) {
  // Targeted: two rules of three conditions each, then a rollout for everyone else.
  flags.push(
    boolFlag(`targeted-${i}`, {
      rules: [
        { conditions: threeConditions(i), variant: 'on' },
        { conditions: threeConditions(i + 1), rollout: { variants: [{ variant: 'on', weight: 3000 }, { variant: 'off', weight: 7000 }] } },
        { rollout: { variants: [{ variant: 'on', weight: 1000 }, { variant: 'off', weight: 9000 }] } },
      ],
    }),
  );
}
for (let i = 0; i < 10; i++) {
  flags.push({
    key: `experiment-${i}`,
    kind: 'STRING',
    variants: { control: 'control', a: 'variant-a', b: 'variant-b', off: 'control' },
    defaultVariant: 'control',
    offVariant: 'off',
    status: 'ACTIVE',
    bucketBy: 'profile-sticky',
    rules: [
      { conditions: [{ attribute: 'installationId', operator: 'in', values: Array.from({ length: 100 }, uuid) }], variant: 'a' },
      {
        conditions: [{ attribute: 'appVersion', operator: 'semverGte', values: ['2.0.0'] }],
        experiment: { experimentId: `exp-${i}`, variants: [{ variant: 'control', weight: 3400 }, { variant: 'a', weight: 3300 }, { variant: 'b', weight: 3300 }], coverage: 5000 },
      },
    ],
  });
}
for (let i = 0; i < 140; i++) {
  const shape = i % 4;
  if (shape === 0) flags.push(boolFlag(`static-${i}`));
  else if (shape === 1) flags.push(boolFlag(`single-${i}`, { rules: [{ conditions: [{ attribute: 'locale', operator: 'in', values: [pick(LOCALES), pick(LOCALES)] }], variant: 'on' }] }));
  else if (shape === 2) flags.push(boolFlag(`rollout-${i}`, { rules: [{ rollout: { variants: [{ variant: 'on', weight: 2500 }, { variant: 'off', weight: 7500 }] } }] }));
  else flags.push(boolFlag(`archived-${i}`, { status: 'ARCHIVED', rules: [{ variant: 'on' }] }));
}
for (const f of flags) {
  const bad = flagViolations(f);
  if (bad.length > 0) throw new Error(`${f.key}: ${bad[0].message}`);
}

const contexts = Array.from({ length: CONTEXTS }, (_, i) => {
  const bound = i % 2 === 0;
  const ctx = {
    installationId: uuid(),
    app: pick(APPS),
    platform: pick(['IOS', 'ANDROID']),
    appVersion: pick(VERSIONS),
    osVersion: pick(['17.4.1', '14.0.0', '18.1.0']),
    locale: pick(LOCALES),
    timeZone: 'Europe/Paris',
    attributes: { level: Math.floor(random() * 10), theme: pick(['dark', 'light']) },
    subscriptions: LISTS.filter(() => random() < 0.5),
    profile: bound
      ? {
          id: uuid(),
          externalId: `user-${i}`,
          attributes: { plan: pick(['free', 'pro', 'team']), since: pick(['2025-01-01T00:00:00Z', '2026-09-01T00:00:00Z']) },
          tags: TAGS.filter(() => random() < 0.3),
          subscriptions: { news: ['PUSH'], offers: random() < 0.5 ? ['EMAIL'] : [] },
        }
      : null,
    anonymousAssignments: bound && random() < 0.5 ? { 'experiment-0': { variantKey: 'b', experimentId: 'exp-0' } } : null,
  };
  return ctx;
});

const t0 = performance.now();
const compiled = flags.map(compileFlag);
const compileMs = performance.now() - t0;

function pass(counter, list = compiled) {
  let checksum = 0;
  for (let c = 0; c < contexts.length; c++) {
    const ctx = contexts[c];
    for (let f = 0; f < list.length; f++) {
      const r = list[f].evaluateCounting(ctx, counter);
      checksum += r.variantKey.length;
    }
  }
  return checksum;
}

// One warm-up pass (the JIT), then the measured ones.
pass({ rules: 0 });
const counter = { rules: 0 };
const reasons = new Map();
for (const ctx of contexts.slice(0, 1000)) for (const f of compiled) { const r = f.evaluate(ctx); reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1); }
const start = performance.now();
let checksum = 0;
for (let p = 0; p < PASSES; p++) checksum += pass(counter);
const seconds = (performance.now() - start) / 1000;
const flagEvaluations = PASSES * contexts.length * compiled.length;

const fmt = (n) => Math.round(n).toLocaleString('en-US');
console.log(`node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`${flags.length} flags compiled in ${compileMs.toFixed(1)} ms; ${contexts.length} contexts × ${PASSES} passes (checksum ${checksum})`);
console.log(`reasons over the first 1,000 contexts: ${[...reasons].map(([k, v]) => `${k} ${v}`).join(', ')}`);
console.log(`flag evaluations: ${fmt(flagEvaluations)} in ${seconds.toFixed(2)} s = ${fmt(flagEvaluations / seconds)}/s`);
console.log(`rule evaluations: ${fmt(counter.rules)} = ${fmt(counter.rules / seconds)}/s (${(counter.rules / flagEvaluations).toFixed(2)} rules per flag)`);
// The 50 flags whose rules have three conditions, alone: the costliest rules.
const targeted = compiled.slice(0, 50);
const heavy = { rules: 0 };
const heavyStart = performance.now();
for (let p = 0; p < PASSES; p++) checksum += pass(heavy, targeted);
const heavySeconds = (performance.now() - heavyStart) / 1000;
console.log(`the 50 three-condition flags alone: ${fmt(heavy.rules)} rule evaluations = ${fmt(heavy.rules / heavySeconds)}/s (${(heavy.rules / (PASSES * contexts.length * 50)).toFixed(2)} rules per flag)`);
console.log(`all ${flags.length} flags for one context: ${((seconds / (PASSES * contexts.length)) * 1e6).toFixed(1)} µs`);

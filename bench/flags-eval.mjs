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
import { LISTS, LOCALES, TAGS, VERSIONS, flagSet, seeded } from './lib/flag-set.mjs';

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

// The flag set and the seeded generator the contexts are drawn from after it (bench/lib/flag-set.mjs).
const g = seeded(42);
const { random, pick, uuid } = g;
const APPS = [uuid(), uuid()];
const flags = flagSet(g);
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

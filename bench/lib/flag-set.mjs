/**
 * The flag set of issue 26 "Performance", shared by bench/flags-eval.mjs (in process) and
 * bench/sync.mjs (on the server): 200 flags — 50 whose rules have three conditions, 10
 * experiments, 140 simple ones (no rule, one condition, a rollout, archived) — drawn from a
 * seeded generator (mulberry32), so every run has the same flags. The generator is exported: a
 * script that draws its contexts from it after the flags gets the same contexts on every run too.
 */

/** A seeded generator and the helpers drawn from it. */
export function seeded(seed = 42) {
  let state = seed;
  function random() {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  const pick = (list) => list[Math.floor(random() * list.length)];
  const hex = (n) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
  return { random, pick, hex, uuid };
}

export const LOCALES = ['en-US', 'en-GB', 'fr-FR', 'de-DE', 'es-ES', 'pt-BR', 'ja-JP'];
export const VERSIONS = ['1.9.0', '2.0.0-beta.2', '2.0.0', '2.1.3', '2.4.0', '3.0.0'];
export const TAGS = ['beta', 'vip', 'churn-risk', 'staff', 'new'];
/** The subscription lists the rules name (bench/sync.mjs creates them among its 20). */
export const LISTS = ['news', 'offers', 'product', 'digest'];

/**
 * The 200 flag files (docs/flags.md's format), drawn from `g` (seeded()). `experimentIds`:
 * the installation ids the experiments' first rule lists (100 each); drawn from `g` when absent.
 */
export function flagSet(g, { experimentIds } = {}) {
  const { random, pick, uuid } = g;

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
    const ids = Array.from({ length: 100 }, uuid);
    flags.push({
      key: `experiment-${i}`,
      kind: 'STRING',
      variants: { control: 'control', a: 'variant-a', b: 'variant-b', off: 'control' },
      defaultVariant: 'control',
      offVariant: 'off',
      status: 'ACTIVE',
      bucketBy: 'profile-sticky',
      rules: [
        { conditions: [{ attribute: 'installationId', operator: 'in', values: experimentIds ? experimentIds.slice(i * 100, i * 100 + 100) : ids }], variant: 'a' },
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
  return flags;
}

import { describe, expect, it } from 'vitest';
import type { SyncResponse } from './schemas';
import { shared, syncResponseText } from './wire';

const response = (documents: SyncResponse['documents'], tombstones: SyncResponse['tombstones'] = []): SyncResponse => ({
  cursor: 'AQ8DAAECAwQFBgcICQoLDA0ODwAB',
  generation: 3,
  revision: 9_007_199_254_740_991,
  fullSnapshot: false,
  documents,
  tombstones,
  serverTime: '2026-11-27T01:00:00.000Z',
  refreshAfterSeconds: 900,
});

describe('the sync response text', () => {
  it('is the text JSON.stringify makes of the response, shared payloads included, whatever the keys and values hold', () => {
    const channel = shared({ key: 'news', kind: 'ANDROID_CHANNEL', name: 'Nouvelles “du jour” \u2028 é', importance: 'HIGH', vibration: [0, 250] });
    const flag = shared({ variantKey: 'on', value: { nested: ['a', 1, null, true], quote: '"\\</script>' }, reason: 'SPLIT', experimentId: 'exp-1', revision: 4 });
    const r = response(
      [
        { module: 'FEATURE_FLAGS', key: 'weird "key"\n\u0007', revision: 0, payload: flag },
        { module: 'FEATURE_FLAGS', key: 'plain', revision: 12, payload: flag },
        { module: 'PREFERENCES', key: 'quiet-hours', revision: 7, payload: { quietHours: null, timeZone: 'Europe/Paris', absent: undefined } },
        { module: 'PUSH', key: 'channel/news', revision: 5, payload: channel },
        { module: 'IN_APP', key: 'settings', revision: 2, payload: {} },
      ],
      [{ module: 'PUSH', key: 'category/gone', revision: 8 }],
    );
    expect(syncResponseText(r)).toBe(JSON.stringify(r));
    expect(syncResponseText(response([]))).toBe(JSON.stringify(response([])));
    expect(syncResponseText({ ...response([]), fullSnapshot: true })).toBe(JSON.stringify({ ...response([]), fullSnapshot: true }));
  });

  it('keeps a shared payload frozen, so its kept text cannot go stale', () => {
    const p = shared({ variantKey: 'on' }) as Record<string, unknown>;
    expect(Object.isFrozen(p)).toBe(true);
    expect(() => {
      'use strict';
      p.variantKey = 'off';
    }).toThrow(TypeError);
    expect(syncResponseText(response([{ module: 'FEATURE_FLAGS', key: 'f', revision: 1, payload: p }]))).toContain('"payload":{"variantKey":"on"}');
  });

  it("reuses a shared payload's document text only for the same module, key and revision", () => {
    const flag = shared({ variantKey: 'on', value: true, reason: 'STATIC' });
    const a = response([{ module: 'FEATURE_FLAGS', key: 'a', revision: 3, payload: flag }]);
    const b = response([{ module: 'FEATURE_FLAGS', key: 'a', revision: 4, payload: flag }, { module: 'IN_APP', key: 'b', revision: 3, payload: flag }]);
    const c = response([{ module: 'FEATURE_FLAGS', key: 'a', revision: 9_007_199_254_740_991, payload: flag }, { module: 'FEATURE_FLAGS', key: 'a', revision: 0, payload: flag }]);
    for (const r of [a, b, a, b, c, a]) expect(syncResponseText(r)).toBe(JSON.stringify(r));
  });
});

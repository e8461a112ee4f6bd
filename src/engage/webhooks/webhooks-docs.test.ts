import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SVIX_SCHEDULE_MS } from './delivery';
import { DEFAULT_OVERLAP_SECONDS } from './schemas';
import { newSigningSecret, webhookHeaders } from './signing';

const human = (ms: number) => (ms >= 3_600_000 ? `${ms / 3_600_000} h` : ms >= 60_000 ? `${ms / 60_000} min` : `${ms / 1000} s`);

/** docs/webhooks.md's receiver code, run as written: the guide cannot drift from what is sent. */
const page = readFileSync(path.resolve(import.meta.dirname, '../../../docs/webhooks.md'), 'utf8');

function byHandVerifier(): (secret: string, headers: Record<string, string>, rawBody: string) => boolean {
  const block = [...page.matchAll(/```js\n([\s\S]*?)\n```/g)].map((m) => m[1]).find((b) => b.includes('function verify'));
  if (!block) throw new Error('docs/webhooks.md has no by-hand verifier');
  const code = block.replace(/^import .*$/m, '');
  return new Function('createHmac', 'timingSafeEqual', `${code}\nreturn verify;`)(createHmac, timingSafeEqual) as ReturnType<typeof byHandVerifier>;
}

describe('docs/webhooks.md', () => {
  it('the by-hand verifier accepts what engage signs with either secret of a rotation, and refuses another secret, a changed body, a stale timestamp', () => {
    const verify = byHandVerifier();
    const [newer, older] = [newSigningSecret(), newSigningSecret()];
    const body = '{"type":"order.shipped","data":{"id":7}}';
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders([newer, older], 'run.step', now, body);
    expect(verify(newer, headers, body)).toBe(true);
    expect(verify(older, headers, body)).toBe(true);
    expect(verify(newSigningSecret(), headers, body)).toBe(false);
    expect(verify(newer, headers, body.replace('7', '8'))).toBe(false);
    expect(verify(newer, webhookHeaders([newer], 'run.step', now - 301, body), body)).toBe(false);
  });

  it('names the schedule, the overlap default and the allow-list setting the code has', () => {
    const text = page.replace(/\s+/g, ' ');
    expect(text).toContain(`then after ${SVIX_SCHEDULE_MS.slice(1, -1).map(human).join(', ')} and ${human(SVIX_SCHEDULE_MS.at(-1)!)}`);
    expect(text).toContain(`default ${DEFAULT_OVERLAP_SECONDS.toLocaleString('en')}`);
    expect(text).toContain('ENGAGE_WEBHOOK_ALLOW_PRIVATE');
  });
});

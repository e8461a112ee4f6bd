import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyFileProblemAll } from './apply';

/** Every JSON example of docs/apply.md is a file `engage apply` accepts (the schema and the checks after it). */
describe('docs/apply.md', () => {
  const text = readFileSync(path.resolve(import.meta.dirname, '../docs/apply.md'), 'utf8');
  const blocks = [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]);

  it('holds the identity and the engagement examples, each accepted', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) expect(applyFileProblemAll(JSON.parse(block))).toBeNull();
    expect(blocks.some((b) => (JSON.parse(b) as { environments?: unknown[] }).environments?.length)).toBe(true);
  });
});

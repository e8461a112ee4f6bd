import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs');

/**
 * The JSON example a docs page marks with `<!-- example: NAME -->` before its ```json block,
 * read from the page itself so the tests and the docs cannot drift.
 */
export function docsExample(page: string, name: string): Record<string, unknown> {
  const text = readFileSync(path.join(docs, page), 'utf8');
  const marker = `<!-- example: ${name} -->`;
  const at = text.indexOf(marker);
  const block = at < 0 ? null : /^\s*```json\n([\s\S]*?)\n```/.exec(text.slice(at + marker.length));
  if (!block) throw new Error(`docs/${page} has no example ${name}`);
  return JSON.parse(block[1]) as Record<string, unknown>;
}

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Management routes are declared in their context (`<context>/admin-routes.ts`) and registered
// in one place, src/admin-routes.ts (issue 22 point 4): no other production module mounts them.
const ROOT = path.resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

describe('management route groups are registered in one place', () => {
  it('only src/admin-routes.ts imports a context’s admin-routes.ts', () => {
    const importers = [...sources('src'), ...sources('cmd')].filter(
      (f) => f !== path.join('src', 'admin-routes.ts') && /from '\.{1,2}\/[^']+\/admin-routes'/.test(readFileSync(path.join(ROOT, f), 'utf8')),
    );
    expect(importers).toEqual([]);
  });

  it('src/admin-routes.ts registers every context’s admin-routes.ts', () => {
    const declared = sources('src').filter((f) => path.basename(f) === 'admin-routes.ts' && f !== path.join('src', 'admin-routes.ts'));
    expect(declared.length).toBeGreaterThan(0);
    const registry = readFileSync(path.join(ROOT, 'src', 'admin-routes.ts'), 'utf8');
    for (const f of declared) expect(registry, f).toContain(`from './${path.relative('src', f).replace(/\.ts$/, '')}'`);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { is } from 'drizzle-orm';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as schema from './schema';
import { DYNAMIC_WRITERS, TABLE_OWNERS } from './owners';

/**
 * "One writing context per table" (db/owners.ts), checked over the source: every SQL text in
 * src (string literals and templates, tests and test fixtures aside) that INSERTs into, UPDATEs
 * or DELETEs from a table, and every `updateStatement('<table>', …)`, must sit in the table's
 * owning context.
 */

const ROOT = path.resolve(__dirname, '../..');

/** Writes that break the rule today, `<file> -> <table>`: this list only shrinks. */
const KNOWN_VIOLATIONS: string[] = [];

/** The context of a file, as the `engage/own-stores` lint rule (eslint.config.js) names it. */
function contextOf(file: string): string {
  const [top, sub] = file.split('/').slice(1);
  if (['identity', 'engage', 'platform'].includes(top) && sub && !sub.includes('.')) return `${top}/${sub}`;
  return top;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sourceFiles(rel));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && e.name !== 'testing.ts') out.push(rel);
  }
  return out;
}

// Uppercase keywords as this codebase writes SQL, a lowercase table name (optionally quoted);
// `${}` stands for a substitution. `DO UPDATE SET`, `FOR UPDATE SKIP LOCKED` name no table.
const WRITE = /\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+"?([a-z_][a-z0-9_]*|\$\{\})"?/g;

interface Write {
  file: string;
  table: string;
}

/** The tables each SQL text of `file` writes (`${}` for a table named at run time). */
function writesOf(file: string): Write[] {
  const src = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Write[] = [];
  const scan = (text: string) => {
    for (const m of text.matchAll(WRITE)) out.push({ file, table: m[1] });
  };
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) scan(node.text);
    else if (ts.isTemplateExpression(node)) scan(node.head.text + node.templateSpans.map((s) => '${}' + s.literal.text).join(''));
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'updateStatement') {
      const [table] = node.arguments;
      out.push({ file, table: table && ts.isStringLiteral(table) ? table.text : '${}' });
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

const writes = sourceFiles('src').flatMap(writesOf);

describe('one writing context per table (db/owners.ts)', () => {
  it('names an owner for every table of the schema, and no other', () => {
    const tables = Object.values(schema)
      .filter((t) => is(t, SQLiteTable))
      .map((t) => getTableConfig(t as SQLiteTable).name);
    const declared = Object.keys(TABLE_OWNERS).filter((t) => t !== 'engage_migrations');
    expect(declared.sort()).toEqual([...new Set(tables)].sort());
  });

  it('finds the writes it checks (the scan is not blind)', () => {
    expect(writes).toContainEqual({ file: 'src/engage/operations/store.ts', table: 'operations' });
    expect(writes).toContainEqual({ file: 'src/identity/users/store.ts', table: 'users' });
  });

  it('every table is written only by its owning context', () => {
    const unknown = writes.filter((w) => w.table !== '${}' && !(w.table in TABLE_OWNERS)).map((w) => `${w.file} -> ${w.table}`);
    expect(unknown, 'writes to tables db/owners.ts does not know').toEqual([]);
    const violations = [
      ...new Set(writes.filter((w) => w.table in TABLE_OWNERS && TABLE_OWNERS[w.table] !== contextOf(w.file)).map((w) => `${w.file} -> ${w.table}`)),
    ].sort();
    expect(violations).toEqual([...KNOWN_VIOLATIONS].sort());
  });

  it('a table named at run time is written only by a file declared in DYNAMIC_WRITERS', () => {
    const dynamic = [...new Set(writes.filter((w) => w.table === '${}').map((w) => w.file))].sort();
    expect(dynamic).toEqual(Object.keys(DYNAMIC_WRITERS).sort());
  });
});

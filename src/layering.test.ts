import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The house is layered (cmd → app → contexts → platform → db): the import graph of src/ and cmd/
// has no cycle, and no production file in src/ or cmd/ reaches into test/ (fixtures and helpers
// live there and import the production code, never the other way round). Type-only imports count:
// a layer that needs a type from a higher one is still upside down.
const ROOT = path.resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

function resolveSpecifier(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.join(path.dirname(from), spec);
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(path.join(ROOT, candidate))) return path.normalize(candidate);
  }
  return undefined;
}

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false);
  const specs: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      specs.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) specs.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specs.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specs;
}

const files = [...sources('src'), ...sources('cmd')];
const graph = new Map<string, string[]>(
  files.map((file) => [file, importsOf(file).flatMap((spec) => resolveSpecifier(file, spec) ?? [])]),
);

/** Each cycle once, as the path around it (Tarjan's strongly connected components, then one cycle per component). */
function cycles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const strongConnect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) strongConnect(v);
  // A shortest way round from the component's first file back to itself, for the failure message.
  return components.map((component) => {
    const members = new Set(component);
    const start = [...component].sort()[0];
    const previous = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
      const v = queue.shift()!;
      for (const w of graph.get(v) ?? []) {
        if (!members.has(w)) continue;
        if (w === start) {
          const loop = [v];
          while (loop[0] !== start) loop.unshift(previous.get(loop[0])!);
          return [...loop, start];
        }
        if (!previous.has(w)) {
          previous.set(w, v);
          queue.push(w);
        }
      }
    }
    return component;
  });
}

describe('layering', () => {
  it('the import graph of src/ and cmd/ has no cycle', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles().map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('no production file in src/ or cmd/ imports from test/', () => {
    const offenders = [...graph.keys()]
      .filter((file) => !file.endsWith('.test.ts'))
      .flatMap((file) =>
        importsOf(file)
          .filter((spec) => spec.startsWith('.') && path.normalize(path.join(path.dirname(file), spec)).startsWith(`test${path.sep}`))
          .map((spec) => `${file} imports ${spec}`),
      );
    expect(offenders).toEqual([]);
  });
});

// Builds the web console's assets (issue 25) with esbuild, in memory: one script and one
// stylesheet, named by their content hash so they can be cached for ever. build.mjs embeds the
// result in the executable; outside it (tests, `npm run dev`) src/console/assets.ts calls this
// at first use. Offline: esbuild and preact come from node_modules.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * @returns {Promise<{ name: string, type: string, body: string, gzip: string }[]>} bodies base64
 */
export async function buildConsole() {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: here,
    entryPoints: { app: path.join(here, 'main.tsx') },
    outdir: 'out',
    write: false,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome115', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    sourcemap: false,
    entryNames: '[name]-[hash]',
    logLevel: 'warning',
    loader: { '.svg': 'text' },
  });
  if (result.warnings.length > 0) throw new Error(`esbuild reported ${result.warnings.length} warning(s) for the console`);
  const types = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
  return result.outputFiles.map((f) => {
    const name = path.basename(f.path);
    const body = Buffer.from(f.contents);
    return {
      name,
      type: types[path.extname(name)] ?? 'application/octet-stream',
      sha256: createHash('sha256').update(body).digest('base64'),
      body: body.toString('base64'),
      gzip: gzipSync(body, { level: 9 }).toString('base64'),
    };
  });
}

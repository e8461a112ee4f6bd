import { DomainError } from '../../platform/errors';
import { ACCESS_KEY_PREFIX } from '../environments/service';
import { checkTemplateFile } from '../messaging/schemas';
import type { ApplyEnvironment } from './schema';

/**
 * What the engagement part of the file points at, read before anything is planned or written
 * (issue 24): the provider keys (files or variables), the access keys of `keyEnv` and the
 * template files. A missing variable or file, or content of the wrong form, is an error naming
 * its place in the file; no value is ever part of a message.
 */
export interface EngageInputs {
  /** By `i/j` (environment, app): the APNs .p8 key (PEM). */
  apnsKeys: Map<string, string>;
  /** By `i/j`: the FCM service account (parsed JSON). */
  serviceAccounts: Map<string, unknown>;
  /** By `i/j` (environment, access key): the key of `keyEnv`. */
  accessKeys: Map<string, string>;
  /** By `i/j` (environment, template): the template file, its key set. */
  templates: Map<string, Record<string, unknown>>;
  /** By `i/j` (environment, flag): the flag file, its key set (checked by the flags service). */
  flags: Map<string, Record<string, unknown>>;
  /** By `i/j` (environment, message): the message file, its key set (checked by the in-app service). */
  inAppMessages: Map<string, Record<string, unknown>>;
  /** By `i/j` (environment, automation): the automation file, its key set (checked by the automations service). */
  automations: Map<string, Record<string, unknown>>;
}

/** An access key from a variable has the form of the keys engage makes: svc_key_ and at least 32 base64url characters. */
const ACCESS_KEY_FORM = new RegExp(`^${ACCESS_KEY_PREFIX}[A-Za-z0-9_-]{32,200}$`);

/**
 * Where a JSON parse failed, never what is there: the parser's message quotes the text (`Unexpected
 * token …, "<the text's first characters>"... is not valid JSON`), and a `file` pointed at a key by mistake would put
 * the key's first characters in a CI log.
 */
export function whereInJson(err: unknown): string {
  const m = /\(line (\d+) column (\d+)\)/.exec(err instanceof Error ? err.message : '');
  return m ? ` (line ${m[1]}, column ${m[2]})` : '';
}

export const placeError = (place: string, reason: string) => new DomainError('invalid', 'invalid_request', `${place}: ${reason}`);

export function readEngageInputs(
  environments: readonly ApplyEnvironment[],
  io: { env: NodeJS.ProcessEnv; readFile: (path: string) => string },
): EngageInputs {
  const inputs: EngageInputs = { apnsKeys: new Map(), serviceAccounts: new Map(), accessKeys: new Map(), templates: new Map(), flags: new Map(), inAppMessages: new Map(), automations: new Map() };
  const variable = (place: string, name: string) => {
    const v = io.env[name];
    if (v === undefined || v === '') throw placeError(place, `environment variable ${name} is not set`);
    return v;
  };
  const file = (place: string, path: string) => {
    try {
      return io.readFile(path);
    } catch (e) {
      throw placeError(place, `cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  };
  for (const [i, e] of environments.entries()) {
    for (const [j, a] of (e.apps ?? []).entries()) {
      const at = `environments[${i}].apps[${j}]`;
      if (a.apns) {
        const pem = a.apns.privateKeyFile ? file(`${at}.apns.privateKeyFile`, a.apns.privateKeyFile) : variable(`${at}.apns.privateKeyEnv`, a.apns.privateKeyEnv!);
        if (!pem.includes('-----BEGIN PRIVATE KEY-----')) throw placeError(`${at}.apns`, 'the key is not a .p8 private key (PEM)');
        inputs.apnsKeys.set(`${i}/${j}`, pem);
      }
      if (a.fcm) {
        const where = a.fcm.serviceAccountFile ? `${at}.fcm.serviceAccountFile` : `${at}.fcm.serviceAccountEnv`;
        const text = a.fcm.serviceAccountFile ? file(where, a.fcm.serviceAccountFile) : variable(where, a.fcm.serviceAccountEnv!);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          // Never the parser's message: it may quote the key.
          throw placeError(where, 'the service account is not JSON');
        }
        inputs.serviceAccounts.set(`${i}/${j}`, parsed);
      }
    }
    for (const [j, k] of (e.accessKeys ?? []).entries()) {
      if (!k.keyEnv) continue;
      const at = `environments[${i}].accessKeys[${j}].keyEnv`;
      const key = variable(at, k.keyEnv);
      if (!ACCESS_KEY_FORM.test(key)) throw placeError(at, `environment variable ${k.keyEnv} must hold an access key: ${ACCESS_KEY_PREFIX} and at least 32 letters, digits, - or _`);
      inputs.accessKeys.set(`${i}/${j}`, key);
    }
    for (const [j, t] of (e.templates ?? []).entries()) {
      const at = `environments[${i}].templates[${j}]`;
      let content: unknown = t.definition;
      if (t.file) {
        try {
          content = JSON.parse(file(`${at}.file`, t.file));
        } catch (err) {
          if (err instanceof DomainError) throw err;
          throw placeError(`${at}.file`, `${t.file} is not JSON${whereInJson(err)}`);
        }
      }
      const def = content as Record<string, unknown> | null;
      if (!def || typeof def !== 'object' || Array.isArray(def)) throw placeError(at, 'the template must be a JSON object');
      if (def.key !== undefined && def.key !== t.key) throw placeError(`${at}.${t.file ? 'file' : 'definition'}`, `the template's key ${String(def.key)} is not ${t.key}`);
      const full = { ...def, key: t.key };
      const bad = checkTemplateFile(full);
      if (bad) throw placeError(`${at}.${t.file ? 'file' : 'definition'}`, bad.message);
      inputs.templates.set(`${i}/${j}`, full);
    }
    // Flags and in-app messages: a JSON object from a file or inline, its key the declared one (the owning service checks the rest).
    const sections = [
      ['flags', 'flag', e.flags, inputs.flags],
      ['inAppMessages', 'message', e.inAppMessages, inputs.inAppMessages],
      ['automations', 'automation', e.automations, inputs.automations],
    ] as const;
    for (const [section, what, list, into] of sections) {
      for (const [j, f] of (list ?? []).entries()) {
        const at = `environments[${i}].${section}[${j}]`;
        const where = `${at}.${f.file ? 'file' : 'definition'}`;
        let content: unknown = f.definition;
        if (f.file) {
          try {
            content = JSON.parse(file(`${at}.file`, f.file));
          } catch (err) {
            if (err instanceof DomainError) throw err;
            throw placeError(`${at}.file`, `${f.file} is not JSON${whereInJson(err)}`);
          }
        }
        const def = content as Record<string, unknown> | null;
        if (!def || typeof def !== 'object' || Array.isArray(def)) throw placeError(at, `the ${what} must be a JSON object`);
        if (def.key !== undefined && def.key !== f.key) throw placeError(where, `the ${what}'s key ${String(def.key)} is not ${f.key}`);
        into.set(`${i}/${j}`, { ...def, key: f.key });
      }
    }
  }
  return inputs;
}

/** A service's refusal of one declared object, named by its place in the file. */
export async function at<T>(place: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof DomainError && !e.message.startsWith('environments[')) throw new DomainError(e.kind, e.code, `${place}: ${e.message}`, e.headers);
    throw e;
  }
}

import { checkString, isObject, missing, noExtra, violation, ViolationCode, type Violation } from '../shared/check';

/** BootstrapInstallationRequest of spec 01 (no additional properties). */
export interface BootstrapRequest {
  platform: 'IOS' | 'ANDROID';
  locale: string;
  timezone: string;
  sdkVersion: string;
  appVersion: string;
  appBuild?: string;
  deviceModel?: string;
  osVersion?: string;
  recoveryToken?: string;
}

const FIELDS: [keyof BootstrapRequest, boolean, number][] = [
  ['locale', true, 35],
  ['timezone', true, 64],
  ['sdkVersion', true, 64],
  ['appVersion', true, 64],
  ['appBuild', false, 64],
  ['deviceModel', false, 128],
  ['osVersion', false, 64],
];
const ALLOWED = new Set<string>(['platform', 'recoveryToken', ...FIELDS.map((f) => f[0])]);
const PLATFORM = { values: ['ANDROID', 'IOS'] };

export function checkBootstrap(body: unknown): Violation | null {
  if (!isObject(body)) return violation(ViolationCode.type, 'body', 'must be a JSON object');
  const extra = noExtra(body, ALLOWED, '');
  if (extra) return extra;
  if (body.platform === undefined) return missing('platform');
  const p = checkString(body.platform, 'platform', PLATFORM);
  if (p) return p;
  for (const [name, required, max] of FIELDS) {
    const v = body[name];
    if (v === undefined) {
      if (required) return missing(name);
      continue;
    }
    const bad = checkString(v, name, { max });
    if (bad) return bad;
  }
  // The contract bounds nothing else; 1024 keeps an absurd token from reaching the hash.
  return body.recoveryToken === undefined ? null : checkString(body.recoveryToken, 'recoveryToken', { max: 1024 });
}

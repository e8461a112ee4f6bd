import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readEngageInputs } from './inputs';
import { environmentsProblem, type ApplyEnvironment } from './schema';

const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const KEY = `svc_key_${'a'.repeat(43)}`;
const env = (over: Partial<ApplyEnvironment> = {}): ApplyEnvironment => ({
  name: 'prod',
  apps: [{ name: 'ios', platform: 'IOS', apns: { keyId: 'K1', teamId: 'T1', topic: 'com.a', privateKeyEnv: 'APNS' } }],
  accessKeys: [{ name: 'backend', apps: ['ios'], keyEnv: 'KEY' }],
  templates: [{ key: 'order.shipped', definition: { apps: ['ios'], defaultLocale: 'en', localizations: { en: { title: 't', body: 'b' } } } }],
  ...over,
});

describe('the engagement part of engage.json', () => {
  it('names the place of what the schema cannot say', () => {
    expect(environmentsProblem([env()])).toBeNull();
    const cases: [ApplyEnvironment[], string][] = [
      [[env(), env()], 'environments[1].name: duplicate prod'],
      [[env({ apps: [{ name: 'a', platform: 'ANDROID', apns: { keyId: 'K', teamId: 'T', topic: 'x', privateKeyEnv: 'A' } }], accessKeys: [], templates: [] })], 'environments[0].apps[0].apns: APNs credentials are for IOS apps'],
      [[env({ apps: [{ name: 'ios', platform: 'IOS', apns: { keyId: 'K', teamId: 'T', topic: 'x' } }] })], 'environments[0].apps[0].apns: must have exactly one of privateKeyFile and privateKeyEnv'],
      [[env({ accessKeys: [{ name: 'k', apps: ['ios', 'web'] }] })], "environments[0].accessKeys[0].apps[1]: app web is not among the environment's apps in this file"],
      [[env({ templates: [{ key: 'x.y' }] })], 'environments[0].templates[0]: must have exactly one of file and definition'],
      [[env({ templates: [{ key: 'x.y', definition: { key: 'other' } }] })], 'environments[0].templates[0].definition.key: must be x.y (or left out)'],
    ];
    for (const [file, problem] of cases) expect(environmentsProblem(file)).toBe(problem);
  });

  it('reads keys, service accounts and templates before anything is planned; a message never holds a value', () => {
    const io = { env: { APNS: pem, KEY }, readFile: () => '' };
    const inputs = readEngageInputs([env()], io);
    expect(inputs.apnsKeys.get('0/0')).toBe(pem);
    expect(inputs.accessKeys.get('0/0')).toBe(KEY);
    expect(inputs.templates.get('0/0')).toMatchObject({ key: 'order.shipped', defaultLocale: 'en' });
    expect(() => readEngageInputs([env()], { ...io, env: { KEY } })).toThrow(/^environments\[0\]\.apps\[0\]\.apns\.privateKeyEnv: environment variable APNS is not set$/);
    expect(() => readEngageInputs([env()], { ...io, env: { APNS: 'secret-ish', KEY } })).toThrow(/^environments\[0\]\.apps\[0\]\.apns: the key is not a \.p8 private key \(PEM\)$/);
    expect(() => readEngageInputs([env()], { ...io, env: { APNS: pem, KEY: 'svc_key_short' } })).toThrow(/^environments\[0\]\.accessKeys\[0\]\.keyEnv: environment variable KEY must hold an access key/);
    const fcm = env({ apps: [{ name: 'a', platform: 'ANDROID', fcm: { serviceAccountFile: 'sa.json' } }], accessKeys: [], templates: [] });
    expect(() => readEngageInputs([fcm], { env: {}, readFile: () => '{"private_key": "-----BEGIN' })).toThrow(/^environments\[0\]\.apps\[0\]\.fcm\.serviceAccountFile: the service account is not JSON$/);
    expect(() => readEngageInputs([fcm], { env: {}, readFile: () => { throw Object.assign(new Error('x'), { code: 'ENOENT' }); } })).toThrow(/^environments\[0\]\.apps\[0\]\.fcm\.serviceAccountFile: cannot read sa\.json \(ENOENT\)$/);
    // A file that is not JSON is named with the parser's place, never with its text (a key pointed at by mistake).
    const secret = 'KEYMATERIAL+SECRET';
    const flagFile = env({ apps: [], accessKeys: [], templates: [{ key: 'order.shipped', file: 't.json' }], flags: [{ key: 'f', file: 'key.pem' }] });
    const parseError = (readFile: (p: string) => string) => {
      try {
        readEngageInputs([flagFile], { env: {}, readFile });
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(parseError(() => secret)).toBe('environments[0].templates[0].file: t.json is not JSON');
    expect(parseError((p) => (p === 't.json' ? '{"key": "order.shipped", "defaultLocale": "en", "apps": ["ios"], "localizations": {"en": {"title": "t", "body": "b"}}}' : `{"k": ${secret}}`))).toBe(
      'environments[0].flags[0].file: key.pem is not JSON',
    );
    expect(parseError(() => `{\n  "k": 1,\n  ${secret}\n}`)).toBe('environments[0].templates[0].file: t.json is not JSON (line 3, column 3)');
    const badTemplate = env({ templates: [{ key: 'order.shipped', definition: { apps: [], defaultLocale: 'en', localizations: { en: { title: 't', body: 'b' } } } }] });
    expect(() => readEngageInputs([badTemplate], io)).toThrow(/^environments\[0\]\.templates\[0\]\.definition: apps/);
  });
});

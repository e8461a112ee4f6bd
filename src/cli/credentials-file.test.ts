import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { credentialsPath, findSignIn, normaliseUrl, removeSignIn, saveSignIn, withCredentialsLock, type StoredSignIn } from './credentials-file';

let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'engage-creds-'));
  env = { XDG_CONFIG_HOME: path.join(home, 'xdg'), HOME: home };
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const signIn = (url: string): StoredSignIn => ({
  url, issuer: `${url}/t/control`, clientId: 'engage-cli', tokenEndpoint: `${url}/t/control/oauth2/token`, revocationEndpoint: `${url}/t/control/oauth2/revoke`,
  accessToken: 'at', accessTokenExpiresAt: 1, refreshToken: 'rt', scope: 'openid', subject: 's',
});

describe('the credentials file', () => {
  it('lives under XDG_CONFIG_HOME, else ~/.config, written 0600 in a 0700 directory', () => {
    expect(credentialsPath(env)).toBe(path.join(home, 'xdg', 'engage', 'credentials.json'));
    expect(credentialsPath({ HOME: home })).toBe(path.join(home, '.config', 'engage', 'credentials.json'));
    expect(credentialsPath({ HOME: home, XDG_CONFIG_HOME: 'relative' })).toBe(path.join(home, '.config', 'engage', 'credentials.json'));
    mkdirSync(path.join(home, 'xdg', 'engage'), { recursive: true, mode: 0o755 });
    chmodSync(path.join(home, 'xdg', 'engage'), 0o755);
    saveSignIn(signIn('https://a.example'), env);
    expect(statSync(credentialsPath(env)).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(credentialsPath(env))).mode & 0o777).toBe(0o700);
  });

  it('keeps one sign-in per URL and finds the only one, or the one named', () => {
    expect(() => findSignIn(undefined, env)).toThrow(/^not signed in: run engage login/);
    saveSignIn(signIn('https://a.example'), env);
    expect(findSignIn(undefined, env).url).toBe('https://a.example');
    saveSignIn(signIn('https://b.example'), env);
    expect(() => findSignIn(undefined, env)).toThrow(/several servers/);
    expect(findSignIn('https://B.example/', env).url).toBe('https://b.example');
    expect(findSignIn(undefined, { ...env, ENGAGE_URL: 'https://a.example' }).url).toBe('https://a.example');
    expect(() => findSignIn('https://c.example', env)).toThrow(/^not signed in to https:\/\/c\.example/);
    expect(removeSignIn('https://a.example', env)).toBe(true);
    expect(removeSignIn('https://a.example', env)).toBe(false);
    expect(Object.keys((JSON.parse(readFileSync(credentialsPath(env), 'utf8')) as { signIns: object }).signIns)).toEqual(['https://b.example']);
  });

  it('keeps the engagement sign-in beside the identity one (issue 24), reading files written before it', () => {
    // A file of before issue 24: keyed by URL, no api field: the identity sign-in.
    mkdirSync(path.dirname(credentialsPath(env)), { recursive: true });
    writeFileSync(credentialsPath(env), JSON.stringify({ version: 1, signIns: { 'https://a.example': signIn('https://a.example') } }));
    expect(findSignIn(undefined, env).url).toBe('https://a.example');
    expect(() => findSignIn(undefined, env, 'engage')).toThrow(/^not signed in for the engage API: run engage login --url <server URL> --api engage$/);
    expect(() => findSignIn('https://a.example', env, 'engage')).toThrow(/^not signed in to https:\/\/a\.example for the engage API: run engage login --url https:\/\/a\.example --api engage$/);
    saveSignIn({ ...signIn('https://a.example'), api: 'engage', resource: 'https://a.example/t/control/engage/admin', accessToken: 'engage-at' }, env);
    expect(findSignIn(undefined, env).accessToken).toBe('at');
    expect(findSignIn('https://a.example', env, 'engage').accessToken).toBe('engage-at');
    expect(Object.keys((JSON.parse(readFileSync(credentialsPath(env), 'utf8')) as { signIns: object }).signIns)).toEqual(['https://a.example', 'https://a.example#engage']);
    expect(removeSignIn('https://a.example', env, 'engage')).toBe(true);
    expect(findSignIn(undefined, env).accessToken).toBe('at');
    expect(() => findSignIn(undefined, env, 'engage')).toThrow(/not signed in/);
  });

  it('refuses a file that is not its own, and URLs that are not a server', () => {
    mkdirSync(path.dirname(credentialsPath(env)), { recursive: true });
    writeFileSync(credentialsPath(env), '{"something":"else"}');
    expect(() => findSignIn(undefined, env)).toThrow(/not an engage credentials file/);
    expect(normaliseUrl('https://Engage.Example.com/')).toBe('https://engage.example.com');
    for (const bad of ['engage.example.com', 'ftp://x', 'https://x/?a=1', 'https://u:p@x']) expect(() => normaliseUrl(bad)).toThrow(/--url/);
  });

  it('serialises refreshes: one holder of the lock at a time, the lock removed after', async () => {
    const order: string[] = [];
    const run = (name: string) =>
      withCredentialsLock(async () => {
        order.push(`${name} in`);
        await new Promise((r) => setTimeout(r, 20));
        order.push(`${name} out`);
      }, env);
    await Promise.all([run('a'), run('b')]);
    expect([order.slice(0, 2), order.slice(2)].every(([i, o]) => i.split(' ')[0] === o.split(' ')[0])).toBe(true);
    expect(() => statSync(`${credentialsPath(env)}.lock`)).toThrow();
  });
});

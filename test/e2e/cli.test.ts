/**
 * The administration commands of dist/engage, run as an operator would: identity (resources,
 * clients, credentials, users) on a tenant, engagement (environments, apps, access keys), the
 * human table output, and the rule that a secret is printed once, at creation, and never again.
 * One sandbox; the steps run in order and each reads the state the previous ones left.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunOptions, type RunResult, type Sandbox } from '../helpers/binary';

interface ResourceJson { uri: string; audience: string; status: string; scopes: string[] }
interface ClientIssuedJson { clientId: string; clientSecret: string | null }
interface ClientJson { clientId: string; applicationType: string; tokenEndpointAuthMethod: string; redirectUris: string[]; scopes: string[]; status: string }
interface CredentialIssuedJson { credentialId: string; credentialSecret: string }
interface CredentialJson { credentialId: string; resourceUri: string; status: string; createdAt: string }
interface UserJson { id: string; subject: string; email: string; emailVerified: boolean; status: string }
interface EnvironmentJson { id: string; name: string; createdAt: string; identityTenantId: string | null }
interface AppJson { id: string; environmentId: string; platform: string; name: string; appKey: string; status: string }
interface AccessKeyJson { id: string; environmentId: string; name: string | null; appIds: string[]; status: string; rotatedAt: string | null; revokedAt: string | null }

const PASSWORD = 'correct horse battery staple';

/** Every command run, in order, with what it printed: the secret check at the end reads it. */
const transcript: { args: string[]; out: string }[] = [];
/** Each secret printed at creation, with the transcript position of the command that printed it. */
const secrets: { what: string; value: string; at: number }[] = [];

/** All property names of a JSON value, at any depth. */
function keysDeep(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(keysDeep);
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [k, ...keysDeep(x)]);
  return [];
}

describe('dist/engage administration commands', () => {
  let sb: Sandbox;

  const exec = async (args: string[], opts?: RunOptions): Promise<RunResult> => {
    const r = await sb.run(args, opts);
    transcript.push({ args, out: r.stdout + r.stderr });
    return r;
  };
  /** `args --json`: exit 0, nothing on stderr, exactly one JSON document on stdout. */
  const json = async <T>(args: string[], opts?: RunOptions): Promise<T> => {
    const r = await exec([...args, '--json'], opts);
    expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
    return JSON.parse(r.stdout) as T;
  };
  const remember = (what: string, value: string) => secrets.push({ what, value, at: transcript.length - 1 });
  /** Exit 1, nothing on stdout, exactly one `engage: ...` line on stderr. */
  const fails = async (args: string[], message: RegExp, opts?: RunOptions): Promise<void> => {
    const r = await exec(args, opts);
    expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
    expect(r.stderr).toMatch(/^engage: [^\n]+\n$/);
    expect(r.stderr).toMatch(message);
  };

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-cli-' });
  });

  afterAll(async () => {
    await sb?.cleanup();
  });

  describe('identity administration on a tenant', () => {
    const T = ['--tenant', 'acme'];
    const API = 'https://api.acme.test';
    let webSecret: string;
    let credential: CredentialIssuedJson;

    it('tenants create --json makes the tenant the other commands name', async () => {
      expect(await json(['tenants', 'create', '--slug', 'acme'])).toMatchObject({ slug: 'acme', status: 'ACTIVE' });
    });

    it('resources create registers an API that resources list shows with its scopes', async () => {
      const created = await json<ResourceJson>(['resources', 'create', ...T, '--uri', API, '--audience', 'acme-api', '--scope', 'api.read api.write']);
      expect(created).toEqual({ uri: API, audience: 'acme-api', status: 'ACTIVE', scopes: ['api.read', 'api.write'] });
      expect(await json<ResourceJson[]>(['resources', 'list', ...T])).toEqual([created]);
    });

    it('clients create prints a confidential WEB client secret once and null for a public NATIVE client', async () => {
      const web = await json<ClientIssuedJson>(['clients', 'create', ...T, '--client-id', 'web', '--name', 'Web', '--type', 'WEB', '--auth', 'CLIENT_SECRET_BASIC', '--redirect-uri', 'https://app.acme.test/cb', '--scope', 'openid email', 'api.read']);
      expect(Object.keys(web).sort()).toEqual(['clientId', 'clientSecret']);
      expect(web.clientId).toBe('web');
      expect(web.clientSecret).toMatch(/^\S{32,}$/);
      webSecret = web.clientSecret!;
      remember('client secret', webSecret);

      const native = await json<ClientIssuedJson>(['clients', 'create', ...T, '--client-id', 'ios', '--name', 'iOS', '--type', 'NATIVE', '--auth', 'NONE', '--redirect-uri', 'com.acme.app:/cb', '--scope', 'openid offline_access']);
      expect(native).toEqual({ clientId: 'ios', clientSecret: null });
    });

    it('clients create refuses a bad redirect URI, a malformed scope, an unknown default resource, a taken id', async () => {
      const base = [...T, '--name', 'Bad', '--type', 'WEB', '--auth', 'CLIENT_SECRET_BASIC'];
      await fails(['clients', 'create', ...base, '--client-id', 'bad1', '--redirect-uri', 'not a uri', '--scope', 'openid'], /redirect/i);
      await fails(['clients', 'create', ...base, '--client-id', 'bad2', '--redirect-uri', 'https://app.acme.test/cb#frag', '--scope', 'openid'], /redirect/i);
      await fails(['clients', 'create', ...base, '--client-id', 'bad3', '--redirect-uri', 'https://app.acme.test/cb', '--scope', 'bad"scope'], /scope/i);
      await fails(['clients', 'create', ...base, '--client-id', 'bad4', '--redirect-uri', 'https://app.acme.test/cb', '--scope', 'api.read', '--default-resource', 'https://nope.test'], /nope\.test/);
      await fails(['clients', 'create', ...base, '--client-id', 'web', '--redirect-uri', 'https://app.acme.test/cb', '--scope', 'openid'], /web/);
    });

    it('clients list shows both clients and never a secret, nor a field named like one', async () => {
      const r = await exec(['clients', 'list', ...T, '--json']);
      expect(r.code).toBe(0);
      const list = JSON.parse(r.stdout) as ClientJson[];
      expect(list.map((c) => c.clientId).sort()).toEqual(['ios', 'web']);
      expect(list.find((c) => c.clientId === 'web')).toMatchObject({
        applicationType: 'WEB',
        tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC',
        redirectUris: ['https://app.acme.test/cb'],
        scopes: ['openid', 'email', 'api.read'],
        status: 'ACTIVE',
      });
      expect(list.find((c) => c.clientId === 'ios')).toMatchObject({ applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE' });
      expect(keysDeep(list).filter((k) => /secret|digest|hash/i.test(k))).toEqual([]);
      expect(r.stdout).not.toContain(webSecret);
    });

    it('clients create --web-origin (repeatable), clients update, disable and enable', async () => {
      const S = ['--tenant', 'spa-tenant'];
      await json(['tenants', 'create', '--slug', 'spa-tenant']);
      await json(['clients', 'create', ...S, '--client-id', 'spa', '--name', 'SPA', '--type', 'WEB', '--auth', 'NONE', '--redirect-uri', 'https://spa.acme.test/cb', '--scope', 'openid', '--web-origin', 'https://spa.acme.test', '--web-origin', 'http://localhost:5173']);
      const listed = async () => (await json<(ClientJson & { webOrigins: string[] | null })[]>(['clients', 'list', ...S]))[0];
      expect(await listed()).toMatchObject({ clientId: 'spa', webOrigins: ['https://spa.acme.test', 'http://localhost:5173'], status: 'ACTIVE' });
      await fails(['clients', 'create', ...S, '--client-id', 'spa2', '--name', 'SPA', '--type', 'WEB', '--auth', 'NONE', '--redirect-uri', 'https://spa.acme.test/cb', '--scope', 'openid', '--web-origin', 'https://spa.acme.test/'], /webOrigins/);
      expect(await json(['clients', 'update', ...S, '--client-id', 'spa', '--web-origin', 'https://other.acme.test'])).toMatchObject({ webOrigins: ['https://other.acme.test'] });
      expect(await json(['clients', 'update', ...S, '--client-id', 'spa', '--no-web-origins'])).toMatchObject({ webOrigins: [] });
      expect(await json(['clients', 'update', ...S, '--client-id', 'spa', '--default-web-origins'])).toMatchObject({ webOrigins: null });
      await fails(['clients', 'update', ...S, '--client-id', 'spa'], /at least one/);
      await fails(['clients', 'update', ...S, '--client-id', 'spa', '--no-web-origins', '--default-web-origins'], /at most one/);
      await fails(['clients', 'update', ...S, '--client-id', 'ghost', '--no-web-origins'], /ghost/);
      expect(await json(['clients', 'disable', ...S, '--client-id', 'spa'])).toMatchObject({ status: 'DISABLED' });
      expect(await listed()).toMatchObject({ status: 'DISABLED' });
      expect(await json(['clients', 'enable', ...S, '--client-id', 'spa'])).toMatchObject({ status: 'ACTIVE' });
    });

    it('credentials issue prints the secret once; list shows the credential ACTIVE without it', async () => {
      credential = await json<CredentialIssuedJson>(['credentials', 'issue', ...T, '--resource', API]);
      expect(Object.keys(credential).sort()).toEqual(['credentialId', 'credentialSecret']);
      expect(credential.credentialId).toMatch(/\S/);
      expect(credential.credentialSecret).toMatch(/^\S{32,}$/);
      remember('credential secret', credential.credentialSecret);

      const list = await json<CredentialJson[]>(['credentials', 'list', ...T]);
      expect(list).toEqual([{ credentialId: credential.credentialId, resourceUri: API, status: 'ACTIVE', createdAt: expect.any(String) }]);
      expect(keysDeep(list).filter((k) => /secret/i.test(k))).toEqual([]);

      await fails(['credentials', 'issue', ...T, '--resource', 'https://nope.test'], /nope\.test/);
    });

    it('credentials revoke makes the credential REVOKED, and only once', async () => {
      const revoked = await json<CredentialJson[]>(['credentials', 'revoke', ...T, '--credential', credential.credentialId]);
      expect(revoked).toMatchObject([{ credentialId: credential.credentialId, status: 'REVOKED' }]);
      expect(await json<CredentialJson[]>(['credentials', 'list', ...T])).toMatchObject([{ credentialId: credential.credentialId, status: 'REVOKED' }]);
      await fails(['credentials', 'revoke', ...T, '--credential', credential.credentialId], /REVOKED/);
      await fails(['credentials', 'revoke', ...T, '--credential', 'no-such-credential'], /no-such-credential/);
    });

    it('users create reads the password from stdin; users list shows no password or hash', async () => {
      const user = await json<UserJson>(['users', 'create', ...T, '--email', 'ada@acme.test', '--verified', '--password-stdin'], { stdin: `${PASSWORD}\n` });
      expect(user).toMatchObject({ email: 'ada@acme.test', emailVerified: true, status: 'ACTIVE' });

      const r = await exec(['users', 'list', ...T, '--json']);
      expect(r.code).toBe(0);
      const list = JSON.parse(r.stdout) as UserJson[];
      expect(list).toEqual([user]);
      expect(keysDeep(list).filter((k) => /password|hash|secret/i.test(k))).toEqual([]);
      for (const out of [r.stdout, JSON.stringify(user)]) {
        expect(out).not.toContain(PASSWORD);
        expect(out).not.toContain('$argon2');
      }
    });

    it('a second user with the same email, or an unknown tenant, fails with one line and changes nothing', async () => {
      await fails(['users', 'create', ...T, '--email', 'ada@acme.test', '--password-stdin'], /ada@acme\.test/, { stdin: 'another password\n' });
      await fails(['users', 'create', '--tenant', 'nope', '--email', 'bob@acme.test'], /nope/);
      await fails(['clients', 'list', '--tenant', 'nope'], /nope/);
      await fails(['resources', 'create', '--tenant', 'nope', '--uri', API, '--audience', 'a', '--scope', 's'], /nope/);
      const list = await json<UserJson[]>(['users', 'list', ...T]);
      expect(list.map((u) => u.email)).toEqual(['ada@acme.test']);
    });
  });

  describe('engagement administration', () => {
    const E = ['--environment', 'prod'];
    let env: EnvironmentJson;
    let app: AppJson;
    let key: AccessKeyJson & { key: string };

    it('environments create and list', async () => {
      env = await json<EnvironmentJson>(['environments', 'create', '--name', 'prod']);
      expect(env).toEqual({ id: expect.any(String), name: 'prod', createdAt: expect.any(String), identityTenantId: null, displayName: 'prod', status: 'ACTIVE', configurationManaged: false });
      expect(await json<EnvironmentJson[]>(['environments', 'list'])).toEqual([env]);
      await fails(['environments', 'create', '--name', 'prod'], /prod/);
    });

    it('apps create prints a public svc_app_ key; apps list shows the app', async () => {
      app = await json<AppJson>(['apps', 'create', ...E, '--platform', 'IOS', '--name', 'ios']);
      expect(app).toMatchObject({ environmentId: env.id, platform: 'IOS', name: 'ios', status: 'ACTIVE' });
      expect(app.appKey).toMatch(/^svc_app_[A-Za-z0-9_-]{20,}$/);
      expect(await json<AppJson[]>(['apps', 'list', ...E])).toEqual([app]);
      await fails(['apps', 'create', '--environment', 'nope', '--platform', 'IOS', '--name', 'x'], /nope/);
    });

    it('access-keys create prints the key once; access-keys list never shows it', async () => {
      key = await json(['access-keys', 'create', ...E, '--app', 'ios', '--name', 'backend']);
      expect(key).toMatchObject({ environmentId: env.id, name: 'backend', appIds: [app.id], status: 'ACTIVE', rotatedAt: null, revokedAt: null });
      expect(key.key).toMatch(/^svc_key_[A-Za-z0-9_-]{20,}$/);
      remember('access key', key.key);

      const r = await exec(['access-keys', 'list', ...E, '--json']);
      expect(r.code).toBe(0);
      const list = JSON.parse(r.stdout) as AccessKeyJson[];
      const { key: _secret, ...view } = key;
      expect(list).toEqual([view]);
      expect(keysDeep(list).filter((k) => /^key$|secret|digest/i.test(k))).toEqual([]);
      expect(r.stdout).not.toContain(key.key);
    });

    it('access-keys rotate prints a new key for the same id; the old one is never printed again', async () => {
      const rotated = await json<AccessKeyJson & { key: string }>(['access-keys', 'rotate', key.id]);
      expect(rotated).toMatchObject({ id: key.id, appIds: [app.id], status: 'ACTIVE', revokedAt: null });
      expect(rotated.rotatedAt).toEqual(expect.any(String));
      expect(rotated.key).toMatch(/^svc_key_/);
      expect(rotated.key).not.toBe(key.key);
      remember('rotated access key', rotated.key);
      expect(transcript.at(-1)!.out).not.toContain(key.key);
      expect(await json<AccessKeyJson[]>(['access-keys', 'list', ...E])).toMatchObject([{ id: key.id, status: 'ACTIVE', rotatedAt: rotated.rotatedAt }]);
    });

    it('access-keys revoke shows the key revoked in the list; a revoked key cannot be rotated', async () => {
      const revoked = await json<AccessKeyJson>(['access-keys', 'revoke', key.id]);
      expect(revoked).toMatchObject({ id: key.id, status: 'REVOKED' });
      expect(revoked.revokedAt).toEqual(expect.any(String));
      expect(revoked).not.toHaveProperty('key');
      expect(await json<AccessKeyJson[]>(['access-keys', 'list', ...E])).toMatchObject([{ id: key.id, status: 'REVOKED', revokedAt: revoked.revokedAt }]);
      await fails(['access-keys', 'rotate', key.id], new RegExp(key.id));
      await fails(['access-keys', 'revoke', 'no-such-key'], /no-such-key/);
    });

    it('apps disable shows the app DISABLED in apps list', async () => {
      expect(await json<AppJson>(['apps', 'disable', 'ios', ...E])).toMatchObject({ id: app.id, status: 'DISABLED' });
      expect(await json<AppJson[]>(['apps', 'list', ...E])).toEqual([{ ...app, status: 'DISABLED' }]);
    });
  });

  describe('usage errors', () => {
    it('a missing option, an unknown option or a bad choice is one line on stderr and a non-zero exit', async () => {
      for (const args of [['tenants', 'create'], ['tenants', 'list', '--bogus'], ['clients', 'create', '--tenant', 'acme', '--client-id', 'x', '--name', 'X', '--type', 'FOO']]) {
        const r = await exec(args);
        expect({ args, code: r.code === 0, stdout: r.stdout }).toEqual({ args, code: false, stdout: '' });
        expect(r.stderr).toMatch(/^error: [^\n]+\n$/);
      }
    });
    it('a reader that stops early (| head) ends the command quietly: status 141 as after SIGPIPE, no stack trace', async () => {
      const child = spawn(sb.bin, ['automations', 'create', '--print-schema'], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // closed before the command writes: its first write meets EPIPE
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect({ code, stderr }).toEqual({ code: 141, stderr: '' });
    });
  });

  describe('human output', () => {
    it('without --json a list prints an aligned table under a header row', async () => {
      const r = await exec(['clients', 'list', '--tenant', 'acme']);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(() => JSON.parse(r.stdout)).toThrow();
      const lines = r.stdout.replace(/\n$/, '').split('\n');
      expect(lines).toHaveLength(3); // header + web + ios
      const header = lines[0];
      const columns = header.split(/ {2,}/);
      expect(columns.slice(0, 3)).toEqual(['clientId', 'displayName', 'applicationType']);
      expect(columns).toContain('status');
      // Every column starts at the same offset on every line, after at least two spaces.
      const starts = columns.map((c) => header.indexOf(c));
      for (const line of lines.slice(1)) {
        for (const s of starts.slice(1)) {
          expect(line.slice(s - 2, s), line).toBe('  ');
          expect(line[s], line).toMatch(/\S/);
        }
      }
      expect(lines.slice(1).map((l) => l.split(/\s+/)[0]).sort()).toEqual(['ios', 'web']);
    });

    it('without --json clients create prints the secret in a table and a warning on stderr', async () => {
      const r = await exec(['clients', 'create', '--tenant', 'acme', '--client-id', 'cli', '--name', 'Cli', '--type', 'WEB', '--auth', 'CLIENT_SECRET_BASIC', '--redirect-uri', 'https://cli.acme.test/cb', '--scope', 'openid']);
      expect(r.code).toBe(0);
      const [header, row, ...rest] = r.stdout.replace(/\n$/, '').split('\n');
      expect(header.split(/\s+/)).toEqual(['clientId', 'clientSecret']);
      expect(rest).toEqual([]);
      const [id, secret] = row.split(/\s+/);
      expect(id).toBe('cli');
      expect(secret).toMatch(/^\S{32,}$/);
      remember('client secret (table)', secret);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/shown only now/);
    });
  });

  describe('secrets are printed once', () => {
    it('later list commands of every kind run cleanly', async () => {
      for (const args of [
        ['clients', 'list', '--tenant', 'acme'],
        ['credentials', 'list', '--tenant', 'acme'],
        ['users', 'list', '--tenant', 'acme'],
        ['access-keys', 'list', '--environment', 'prod'],
        ['apps', 'list', '--environment', 'prod'],
      ]) {
        for (const mode of [[], ['--json']]) expect((await exec([...args, ...mode])).code).toBe(0);
      }
    });

    it('no secret appears in any output after the one that printed it', () => {
      expect(secrets.map((s) => s.what)).toEqual(['client secret', 'credential secret', 'access key', 'rotated access key', 'client secret (table)']);
      for (const s of secrets) {
        expect(transcript[s.at].out, s.what).toContain(s.value);
        const again = transcript.slice(s.at + 1).filter((t) => t.out.includes(s.value));
        expect(again.map((t) => t.args.join(' ')), `${s.what} printed again`).toEqual([]);
      }
      // The password given on stdin was never printed at all.
      expect(transcript.filter((t) => t.out.includes(PASSWORD)).map((t) => t.args.join(' '))).toEqual([]);
    });
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redactedConfig } from './config';

describe('loadConfig', () => {
  it('applies defaults < file < environment < flags', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'engage-cfg-'));
    const file = path.join(dir, 'engage.json');
    writeFileSync(file, JSON.stringify({ port: 9000, host: '0.0.0.0', logLevel: 'debug', accessTokenTtl: 120 }));
    const cfg = loadConfig({
      file,
      env: { ENGAGE_PORT: '9100', ENGAGE_LOG_LEVEL: 'warn' },
      flags: { port: '9200', dataDir: dir },
    });
    expect(cfg.port).toBe(9200); // flag beats env and file
    expect(cfg.logLevel).toBe('warn'); // env beats file
    expect(cfg.host).toBe('0.0.0.0'); // file beats default
    expect(cfg.accessTokenTtl).toBe(120);
    expect(cfg.refreshTokenTtl).toBe(30 * 86400); // default
    expect(cfg.dataDir).toBe(dir);
    expect(cfg.masterKeyFile).toBe(path.join(dir, 'master.key'));
    expect(cfg.publicUrl).toBe('http://127.0.0.1:9200');
    expect(cfg.databasePoolSize).toBe(20); // default
    expect(loadConfig({ env: { ENGAGE_DATABASE_POOL_SIZE: '40' }, flags: { dataDir: dir } }).databasePoolSize).toBe(40);
    expect(loadConfig({ env: { ENGAGE_DATABASE_POOL_SIZE: '40' }, flags: { dataDir: dir, databasePoolSize: '8' } }).databasePoolSize).toBe(8);
  });

  it.each([
    [{ flags: { port: '70000' } }, /port \(--port\)/],
    [{ env: { ENGAGE_PORT: 'eighty' } }, /port \(ENGAGE_PORT\)/],
    [{ env: { ENGAGE_LOG_LEVEL: 'loud' } }, /logLevel \(ENGAGE_LOG_LEVEL\).*debug, info/],
    [{ flags: { publicUrl: 'ftp://x' } }, /publicUrl .*http or https/],
    [{ flags: { publicUrl: 'https://x.example/base' } }, /publicUrl .*no path/],
    [{ flags: { publicUrl: 'not a url' } }, /publicUrl .*not a URL/],
    [{ env: { ENGAGE_ACCESS_TOKEN_TTL: '5' } }, /accessTokenTtl/],
    [{ env: { ENGAGE_TRUSTED_PROXIES: '-1' } }, /trustedProxies \(ENGAGE_TRUSTED_PROXIES\)/],
    [{ flags: { trustedProxies: 'yes' } }, /trustedProxies/],
    [{ env: { ENGAGE_DATABASE_POOL_SIZE: '0' } }, /databasePoolSize \(ENGAGE_DATABASE_POOL_SIZE\)/],
  ])('rejects a bad setting with a message naming it (%#)', (sources, message) => {
    expect(() => loadConfig(sources)).toThrow(ConfigError);
    expect(() => loadConfig(sources)).toThrow(message);
  });

  it('rejects unknown keys and unreadable files', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'engage-cfg-'));
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ prot: 1 }));
    expect(() => loadConfig({ file })).toThrow(/unknown setting prot/);
    expect(() => loadConfig({ file: path.join(dir, 'missing.json') })).toThrow(/cannot read configuration file/);
  });

  it('trusts no proxy by default; ENGAGE_TRUSTED_PROXIES sets how many', () => {
    expect(loadConfig({}).trustedProxies).toBe(0);
    expect(loadConfig({ env: { ENGAGE_TRUSTED_PROXIES: '2' } }).trustedProxies).toBe(2);
  });

  it('caps mobile edge request bodies at 8 MiB by default; ENGAGE_MAX_REQUEST_BYTES or --max-request-bytes sets it', () => {
    expect(loadConfig({}).maxRequestBytes).toBe(8 * 1024 * 1024);
    expect(loadConfig({ env: { ENGAGE_MAX_REQUEST_BYTES: '20000000' } }).maxRequestBytes).toBe(20_000_000);
    expect(() => loadConfig({ flags: { maxRequestBytes: '1000' } })).toThrow(/maxRequestBytes \(--max-request-bytes\)/);
  });

  it('keeps an explicit public URL and strips a trailing slash', () => {
    expect(loadConfig({ flags: { publicUrl: 'https://id.example.com/' } }).publicUrl).toBe('https://id.example.com');
  });
});

describe('databaseUrl', () => {
  it('comes from the flag, ENGAGE_DATABASE_URL or the file, and is checked without echoing the password', () => {
    expect(loadConfig({}).databaseUrl).toBeUndefined();
    expect(loadConfig({ env: { ENGAGE_DATABASE_URL: 'postgres://u:pw@db:5432/engage' } }).databaseUrl).toBe('postgres://u:pw@db:5432/engage');
    expect(loadConfig({ env: { ENGAGE_DATABASE_URL: 'postgres://a@x/y' }, flags: { databaseUrl: 'postgresql://b@z/w' } }).databaseUrl).toBe('postgresql://b@z/w');
    for (const bad of ['mysql://u:Sup3rSecret@db/engage', 'postgres://u:Sup3rSecret@[db/engage', 'Sup3rSecret']) {
      let err: unknown;
      try {
        loadConfig({ env: { ENGAGE_DATABASE_URL: bad } });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect(String((err as Error).message)).toMatch(/databaseUrl \(ENGAGE_DATABASE_URL\)/);
      expect(inspect(err)).not.toContain('Sup3rSecret');
    }
  });

  it('is shown redacted', () => {
    const cfg = loadConfig({ env: { ENGAGE_DATABASE_URL: 'postgres://u:Sup3rSecret@db/engage' } });
    expect(JSON.stringify(redactedConfig(cfg))).not.toContain('Sup3rSecret');
    expect(redactedConfig(cfg).databaseUrl).toBe('postgres://u:***@db/engage');
  });
});

describe('accessLog', () => {
  it('is on by default; ENGAGE_ACCESS_LOG=false or the flag (serve --no-access-log) turns it off', () => {
    expect(loadConfig({}).accessLog).toBe(true);
    expect(loadConfig({ env: { ENGAGE_ACCESS_LOG: 'false' } }).accessLog).toBe(false);
    expect(loadConfig({ env: { ENGAGE_ACCESS_LOG: 'true' }, flags: { accessLog: 'false' } }).accessLog).toBe(false);
    expect(() => loadConfig({ env: { ENGAGE_ACCESS_LOG: 'off' } })).toThrow(/accessLog \(ENGAGE_ACCESS_LOG\): expected true or false/);
  });
});

describe('workLease', () => {
  it('is unset by default (each worker keeps its own 30 s); ENGAGE_WORK_LEASE takes whole seconds from 3 to 3600', () => {
    expect(loadConfig({}).workLease).toBeUndefined();
    expect(loadConfig({ env: { ENGAGE_WORK_LEASE: '5' } }).workLease).toBe(5);
    for (const bad of ['2', '0', '3601', '1.5', 'soon']) {
      expect(() => loadConfig({ env: { ENGAGE_WORK_LEASE: bad } }), bad).toThrow(/workLease \(ENGAGE_WORK_LEASE\): expected an integer from 3 to 3600/);
    }
  });
});

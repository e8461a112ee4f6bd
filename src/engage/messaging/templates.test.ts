import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { templateFile } from '../../../test/fixtures/messaging';
import { ACTOR } from '../../../test/fixtures/actor';

describe('templates (engage templates create|update|publish|archive|show|list)', () => {
  let h: Harness;
  let env: string;
  beforeAll(async () => {
    h = await createHarness();
    const e = h.services.engage.environments;
    env = (await e.create({ name: 'tpl' }, ACTOR)).id;
    await e.createApp({ environment: env, platform: 'IOS', name: 'shop-ios' }, ACTOR);
    await e.createApp({ environment: env, platform: 'ANDROID', name: 'shop-android' }, ACTOR);
  });
  afterAll(() => h.close());
  const t = () => h.services.engage.messaging.templates;

  it('checks the file with its schema and cross-field rules, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ key: 'Bad Key' }, 'key: must match ^[a-z][a-z0-9_.-]{0,127}$'],
      [{ apps: [] }, 'apps: must have at least 1 item'],
      [{ apps: ['nope'] }, 'apps[0]: no app nope in this environment'],
      [{ priority: 'urgent' }, 'priority: must be one of normal, high'],
      [{ ttlSeconds: -1 }, 'ttlSeconds: must be >= 0'],
      [{ rateLimitPerMinute: 0 }, 'rateLimitPerMinute: must be >= 1'],
      [{ variables: { x: { type: 'money' } }, localizations: { en: { title: 't', body: 'b' } } }, 'variables.x.type: must be one of string, number, boolean, date, url'],
      [{ variables: { x: { type: 'number', required: false, default: 'ten' } }, localizations: { en: { title: 't', body: 'b' } } }, 'variables.x.default: must be a number'],
      [{ variables: { x: { type: 'date', required: false, default: '2026-02-30' } }, localizations: { en: { title: 't', body: 'b' } } }, 'variables.x.default: must be an RFC 3339 date (YYYY-MM-DD) or date-time'],
      [{ variables: { x: { type: 'number', required: true, default: 1 } }, localizations: { en: { title: 't', body: 'b' } } }, 'variables.x.default: only an optional variable (required: false) has a default'],
      [{ defaultLocale: 'fr' }, 'localizations: must hold the default locale fr'],
      [{ variables: {}, localizations: { en: { title: 'Hi {{name}}', body: 'b' } } }, 'localizations.en.title: {{name}} is not a declared variable'],
      [{ localizations: { en: { title: 't' } } }, 'localizations.en.body: is required'],
      [{ localizations: { en: { title: 't', body: 'b', deepLink: ' java\tscript:alert(1)' } } }, 'localizations.en.deepLink: the javascript: scheme is refused'],
      [{ localizations: { en: { title: 't', body: 'b', deepLink: 'FILE:///etc/passwd' } } }, 'localizations.en.deepLink: the file: scheme is refused'],
      [{ unknown: 1 }, 'unknown: is not an allowed property'],
    ];
    for (const [over, message] of cases) await expect(t().create({ environment: env, file: templateFile(over) }, ACTOR)).rejects.toThrow(message);
    expect(await t().list(env)).toEqual([]);
  });

  it('versions: create a draft, publish, edit into a new draft, publish supersedes; the key is immutable', async () => {
    const created = await t().create({ environment: env, file: templateFile() }, ACTOR);
    // Issue 23 point 1: DRAFT until a version is published (sends answer template_not_active till then).
    expect(created).toMatchObject({ key: 'order.shipped', status: 'DRAFT', publishedVersion: null, latestVersion: 1 });
    expect((await t().list(env)).map((x) => [x.key, x.status])).toEqual([['order.shipped', 'DRAFT']]);
    expect(await t().show(env, 'order.shipped')).toMatchObject({ status: 'DRAFT' });
    await expect(t().create({ environment: env, file: templateFile() }, ACTOR)).rejects.toThrow('template order.shipped already exists');
    expect(await t().publish(env, 'order.shipped', ACTOR)).toMatchObject({ status: 'ACTIVE', publishedVersion: 1, latestVersion: 1 });
    expect((await t().list(env)).map((x) => [x.key, x.status])).toEqual([['order.shipped', 'ACTIVE']]);
    await expect(t().publish(env, 'order.shipped', ACTOR)).rejects.toThrow('has no draft to publish');
    // A new draft beside a published version: still ACTIVE (the published version keeps serving).
    expect(await t().update({ environment: env, key: 'order.shipped', file: templateFile({ priority: 'normal' }) }, ACTOR)).toMatchObject({ status: 'ACTIVE', publishedVersion: 1, latestVersion: 2 });
    // A second edit before publishing replaces the draft.
    expect(await t().update({ environment: env, key: 'order.shipped', file: templateFile({ priority: 'normal', ttlSeconds: 60 }) }, ACTOR)).toMatchObject({ latestVersion: 2 });
    await expect(t().update({ environment: env, key: 'order.shipped', file: templateFile({ key: 'other' }) }, ACTOR)).rejects.toThrow('key: is immutable');
    const shown = await t().show(env, 'order.shipped');
    expect(shown.versions.map((v) => [v.version, v.state])).toEqual([[1, 'PUBLISHED'], [2, 'DRAFT']]);
    expect(shown.draft).toMatchObject({ priority: 'normal', ttlSeconds: 60 });
    expect(shown.published).toMatchObject({ priority: 'high', ttlSeconds: 3600 });
    expect({ sends: shown.sends, deliveries: shown.deliveries }).toEqual({ sends: 0, deliveries: {} });
    await t().publish(env, 'order.shipped', ACTOR);
    expect((await t().show(env, 'order.shipped')).versions.map((v) => v.state)).toEqual(['SUPERSEDED', 'PUBLISHED']);
    expect(await t().archive(env, 'order.shipped', ACTOR)).toMatchObject({ status: 'ARCHIVED' });
    await expect(t().update({ environment: env, key: 'order.shipped', file: templateFile() }, ACTOR)).rejects.toThrow('is archived');
    expect((await t().list(env)).map((x) => x.key)).toEqual(['order.shipped']);
  });

  it('templates are per environment', async () => {
    const e = h.services.engage.environments;
    const other = (await e.create({ name: 'tpl-other' }, ACTOR)).id;
    await e.createApp({ environment: other, platform: 'IOS', name: 'shop-ios' }, ACTOR);
    await t().create({ environment: other, file: templateFile({ apps: ['shop-ios'], key: 'only.there' }) }, ACTOR);
    await expect(t().show(env, 'only.there')).rejects.toThrow('template only.there not found');
  });
});

describe('provider credentials (engage apps set-apns | set-fcm)', () => {
  let h: Harness;
  let ios: string;
  let android: string;
  beforeAll(async () => {
    h = await createHarness();
    const e = h.services.engage.environments;
    const env = (await e.create({ name: 'creds' }, ACTOR)).id;
    ios = (await e.createApp({ environment: env, platform: 'IOS', name: 'i' }, ACTOR)).id;
    android = (await e.createApp({ environment: env, platform: 'ANDROID', name: 'a' }, ACTOR)).id;
  });
  afterAll(() => h.close());
  const c = () => h.services.engage.messaging.credentials;
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  it('seals the APNs key at rest and shows only what is public', async () => {
    const shown = await c().setApns({ app: ios, keyPem: ec, keyId: 'K1', teamId: 'T1', topic: 'com.example.app', sandbox: true }, ACTOR);
    expect(shown).toMatchObject({ appId: ios, provider: 'APNS', keyId: 'K1', teamId: 'T1', topic: 'com.example.app', sandbox: true });
    expect(JSON.stringify(shown)).not.toContain('PRIVATE KEY');
    const row = await h.sql.get<{ sealed: string; info: string }>('SELECT sealed, info FROM push_credentials WHERE app_id = ?', [ios]);
    expect(row!.sealed).toMatch(/^v1\./);
    expect(row!.sealed + row!.info).not.toContain('PRIVATE KEY');
    expect((await c().open(ios, 'APNS'))!.keyPem).toBe(ec);
  });

  it('refuses a key of the wrong kind, the wrong platform, a bad service account', async () => {
    await expect(c().setApns({ app: ios, keyPem: rsa, keyId: 'K1', teamId: 'T1', topic: 'com.example.app', sandbox: false }, ACTOR)).rejects.toThrow('key-file: not an EC key');
    await expect(c().setApns({ app: ios, keyPem: 'junk', keyId: 'K1', teamId: 'T1', topic: 'com.example.app', sandbox: false }, ACTOR)).rejects.toThrow(/^key-file: /);
    await expect(c().setApns({ app: android, keyPem: ec, keyId: 'K1', teamId: 'T1', topic: 'x', sandbox: false }, ACTOR)).rejects.toThrow('APNs credentials are for IOS apps');
    await expect(c().setFcm({ app: android, serviceAccount: { project_id: 'p', client_email: 'e' } }, ACTOR)).rejects.toThrow('service-account.private_key: is required');
    await expect(c().setFcm({ app: ios, serviceAccount: {} }, ACTOR)).rejects.toThrow('FCM credentials are for ANDROID apps');
    const ok = await c().setFcm({ app: android, serviceAccount: { type: 'service_account', project_id: 'p', client_email: 'e@x', private_key: rsa } }, ACTOR);
    expect(ok).toMatchObject({ provider: 'FCM', projectId: 'p', clientEmail: 'e@x', tokenUri: 'https://oauth2.googleapis.com/token' });
  });
});

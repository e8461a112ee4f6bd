/** Fixtures of the messaging tests (imported only by *.test.ts): fakes, an environment with both apps, devices. */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { startApnsFake, type ApnsFake } from '../../../test/fakes/apns-fake';
import { startFcmFake, type FcmFake } from '../../../test/fakes/fcm-fake';
import { createTestCa, type TestCa } from '../../../test/fakes/test-ca';
import { bearer, bind, bootstrap, ingest, json, op, type Session } from '../testing';

export const TOPIC = 'com.example.shop';
export const KEY_ID = 'ABC123DEFG';
export const TEAM_ID = 'TEAM123456';

let ca: TestCa | undefined;
export const testCa = () => (ca ??= createTestCa());

export interface PushWorld {
  h: Harness;
  apns: ApnsFake;
  fcm: FcmFake;
  envId: string;
  ios: { id: string; appKey: string };
  android: { id: string; appKey: string };
  /** A key for both apps. */
  accessKey: string;
  close(): Promise<void>;
}

export const templateFile = (over: Record<string, unknown> = {}) => ({
  key: 'order.shipped',
  apps: ['shop-ios', 'shop-android'],
  defaultLocale: 'en',
  fallbackLocale: 'en',
  variables: {
    orderId: { type: 'string' },
    amount: { type: 'number' },
    shippedOn: { type: 'date' },
    gift: { type: 'boolean', required: false, default: false },
    trackingUrl: { type: 'url', required: false },
  },
  localizations: {
    en: { title: 'Order {{orderId}} shipped', body: 'Total {{amount}}, shipped {{shippedOn}}', deepLink: 'shop://orders/{{orderId}}', customData: { orderId: '{{orderId}}', gift: '{{gift}}' } },
    de: { title: 'Bestellung {{orderId}} versandt', body: 'Summe {{amount}}, versandt am {{shippedOn}}' },
  },
  ttlSeconds: 3600,
  priority: 'high',
  rateLimitPerMinute: 1000,
  collapseId: 'order',
  ...over,
});

export const VARS = { orderId: 'A-17', amount: 1234.5, shippedOn: '2026-03-04' };

export async function createPushWorld(): Promise<PushWorld> {
  const c = testCa();
  // The fakes read the harness clock: provider tokens are judged at the services' "now".
  let clockNow = () => Date.now();
  const apns = await startApnsFake({ ca: c, topic: TOPIC, now: () => clockNow() });
  const fcm = await startFcmFake({ ca: c, projectId: 'test-project', now: () => clockNow() });
  const h = await createHarness({ apnsUrl: apns.url, apnsSandboxUrl: apns.url, fcmUrl: fcm.url, pushCaFile: c.caFile });
  clockNow = () => h.clock.now().getTime();
  const env = h.services.engage.environments;
  const environment = await env.create({ name: 'shop' });
  const ios = await env.createApp({ environment: environment.id, platform: 'IOS', name: 'shop-ios' });
  const android = await env.createApp({ environment: environment.id, platform: 'ANDROID', name: 'shop-android' });
  const key = await env.createAccessKey({ environment: environment.id, apps: [ios.id, android.id] });
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  apns.addKey(KEY_ID, TEAM_ID, keyPem);
  const m = h.services.engage.messaging;
  await m.credentials.setApns({ app: ios.id, keyPem, keyId: KEY_ID, teamId: TEAM_ID, topic: TOPIC, sandbox: false });
  await m.credentials.setFcm({ app: android.id, serviceAccount: fcm.serviceAccount() });
  await m.templates.create({ environment: environment.id, file: templateFile() });
  await m.templates.publish(environment.id, 'order.shipped');
  return {
    h,
    apns,
    fcm,
    envId: environment.id,
    ios,
    android,
    accessKey: key.key,
    async close() {
      m.close();
      await h.close();
      await apns.close();
      await fcm.close();
    },
  };
}

export const apnsToken = () => randomBytes(32).toString('hex');

/** A device: bootstrapped, with a push token and permission, bound to `externalId` when given. */
export async function device(
  w: PushWorld,
  opts: { platform?: 'IOS' | 'ANDROID'; token?: string | null; permission?: string; externalId?: string; ops?: unknown[] } = {},
): Promise<Session & { token: string | null }> {
  const platform = opts.platform ?? 'IOS';
  const s = await bootstrap(w.h, platform === 'IOS' ? w.ios.appKey : w.android.appKey, { platform });
  const token = opts.token === undefined ? (platform === 'IOS' ? apnsToken() : `fcm-${randomBytes(16).toString('hex')}`) : opts.token;
  const ops: unknown[] = [op('PUSH_PERMISSION_SET', { state: opts.permission ?? 'AUTHORIZED' })];
  if (token !== null) ops.push(op('PUSH_TOKEN_SET', { token }));
  await ingest(w.h, s, [...ops, ...(opts.ops ?? [])]);
  if (opts.externalId) s.generation = await bind(w.h, w.accessKey, s, opts.externalId);
  return { ...s, token };
}

export function send(w: PushWorld, body: Record<string, unknown>, opts: { key?: string; template?: string; env?: string } = {}) {
  return w.h.request(
    `/api/v1/environments/${opts.env ?? w.envId}/transactional/${opts.template ?? 'order.shipped'}/send`,
    json(body, bearer(opts.key ?? w.accessKey)),
  );
}

export const sendBody = (recipient: { type: string; value: string }, over: Record<string, unknown> = {}) => ({
  recipient,
  locale: 'en',
  variables: VARS,
  idempotencyKey: `order-${randomBytes(6).toString('hex')}`,
  ...over,
});

export async function deliveryRows(w: PushWorld, where = '1 = 1', params: unknown[] = []) {
  return w.h.sql.all<{ id: string; state: string; attempts: number; lastError: string | null; installationId: string; nextAttemptMs: number }>(
    `SELECT id, state, attempts, last_error AS "lastError", installation_id AS "installationId", next_attempt_ms AS "nextAttemptMs" FROM push_deliveries WHERE ${where} ORDER BY created_ms, id`,
    params,
  );
}

export async function pushToken(w: PushWorld, installationId: string): Promise<string | null> {
  return (await w.h.sql.get<{ t: string | null }>('SELECT push_token AS t FROM installations WHERE id = ?', [installationId]))!.t;
}

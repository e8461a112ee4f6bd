import { randomUUID } from 'node:crypto';
import type { Harness } from '../../test/helpers/harness';

/** Shared fixtures for the engage in-process tests (not shipped: imported only by *.test.ts). */

export interface Session {
  installationId: string;
  credential: string;
  revocationCredential: string;
  recoveryToken: string;
  generation: number;
}

export const json = (body: unknown, headers: Record<string, string> = {}, method = 'POST'): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export const bootstrapBody = (over: Record<string, unknown> = {}) => ({
  platform: 'IOS',
  locale: 'en-US',
  timezone: 'Europe/Paris',
  sdkVersion: '1.0.0',
  appVersion: '2.3.4',
  ...over,
});

/** An environment with one iOS app and an access key for it. */
export async function setupEnvironment(h: Harness, name = 'prod') {
  const env = h.services.engage.environments;
  const environment = await env.create({ name });
  const app = await env.createApp({ environment: environment.id, platform: 'IOS', name: `${name}-ios` });
  const key = await env.createAccessKey({ environment: environment.id, apps: [app.id] });
  return { environment, app, accessKey: key.key, accessKeyId: key.id };
}

export async function bootstrap(h: Harness, appKey: string, over: Record<string, unknown> = {}): Promise<Session> {
  const res = await h.request('/v1/sdk/installations', json(bootstrapBody(over), { 'X-Service-App-Key': appKey }));
  if (res.status !== 201 && res.status !== 200) throw new Error(`bootstrap ${res.status}: ${await res.text()}`);
  return (await res.json()) as Session;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

export async function issueCode(h: Harness, s: Session): Promise<string> {
  const res = await h.request('/v1/sdk/installation/binding-code', { method: 'POST', headers: bearer(s.credential) });
  if (res.status !== 201 && res.status !== 200) throw new Error(`binding-code ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { code: string }).code;
}

export function transition(h: Harness, accessKey: string, bindingCode: string, target: { externalId: string } | null, idempotencyKey = randomUUID()) {
  return h.request('/v1/installation-binding-transitions', json({ bindingCode, target }, { ...bearer(accessKey), 'Idempotency-Key': idempotencyKey }));
}

/** Issues a code and commits a transition; returns the new generation. */
export async function bind(h: Harness, accessKey: string, s: Session, externalId: string | null): Promise<number> {
  const code = await issueCode(h, s);
  const res = await transition(h, accessKey, code, externalId === null ? null : { externalId });
  if (res.status !== 201) throw new Error(`transition ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { generation: number }).generation;
}

export interface Op {
  operationId: string;
  generation: number;
  type: string;
  occurredAt: string;
  payload: unknown;
}

export const op = (type: string, payload: unknown, over: Partial<Op> = {}): Op => ({
  operationId: randomUUID(),
  generation: 0,
  type,
  occurredAt: '2026-01-01T00:00:00.000Z',
  payload,
  ...over,
});

export interface BatchResult {
  batchId: string;
  results: { operationId: string; status: string; errorCode: string | null; message: string | null }[];
  serverTime: string;
}

export function sendBatch(h: Harness, s: Session, operations: unknown[], batchId: string = randomUUID()) {
  return h.request('/v1/sdk/operations:batch', json({ batchId, operations }, bearer(s.credential)));
}

export async function ingest(h: Harness, s: Session, operations: unknown[]): Promise<BatchResult> {
  const res = await sendBatch(h, s, operations);
  if (res.status !== 202) throw new Error(`batch ${res.status}: ${await res.text()}`);
  return (await res.json()) as BatchResult;
}

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bootstrap, op, sendBatch, setupEnvironment, type BatchResult, type Session } from '../../../test/fixtures/engage';
import { OPERATION_TYPES } from './schemas';

/**
 * Spec 01 "SdkOperation" payload table, one row per rule: every type has a valid payload
 * that is ACCEPTED, and each violation is REJECTED with a stable errorCode and a message
 * that names the field. Run through the real route so the whole ingest path is covered.
 */
type Case = { type: string; payload?: unknown; op?: Record<string, unknown>; field?: string; code?: string; note: string };

const s = (n: number, c = 'a') => c.repeat(n);
const valid = (type: string, payload: unknown, note = 'valid'): Case => ({ type, payload, note });
const bad = (type: string, payload: unknown, field: string, code: string, note: string): Case => ({ type, payload, field, code, note });

const ATTRS = (type: string): Case[] => [
  valid(type, { set: { plan: 'gold', 'a.b-c_d9': { nested: [1, 2] }, n: null }, remove: ['old', 'older'] }),
  valid(type, {}, 'both optional'),
  valid(type, { set: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i])) }, '200 properties'),
  bad(type, { set: [] }, 'payload.set', 'INVALID_TYPE', 'set not an object'),
  bad(type, { set: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`k${i}`, i])) }, 'payload.set', 'OUT_OF_RANGE', '201 properties'),
  bad(type, { set: { Plan: 1 } }, 'payload.set.Plan', 'INVALID_FORMAT', 'property name not K'),
  bad(type, { set: { [s(129)]: 1 } }, `payload.set.${s(129)}`, 'INVALID_FORMAT', 'property name longer than 128'),
  bad(type, { remove: 'old' }, 'payload.remove', 'INVALID_TYPE', 'remove not an array'),
  bad(type, { remove: ['ok', '9x'] }, 'payload.remove[1]', 'INVALID_FORMAT', 'remove item not K'),
  bad(type, { remove: ['a', 'a'] }, 'payload.remove[1]', 'DUPLICATE_ITEM', 'remove items not unique'),
  bad(type, { set: {}, add: {} }, 'payload.add', 'UNKNOWN_PROPERTY', 'extra property'),
];

const STATE = (type: string, ok: string, wrong: string): Case[] => [
  valid(type, { state: ok }),
  bad(type, {}, 'payload.state', 'REQUIRED_FIELD_MISSING', 'state missing'),
  bad(type, { state: wrong }, 'payload.state', 'INVALID_VALUE', 'state not in enum'),
  bad(type, { state: 1 }, 'payload.state', 'INVALID_TYPE', 'state not a string'),
  bad(type, { state: ok, extra: 1 }, 'payload.extra', 'UNKNOWN_PROPERTY', 'extra property'),
];

const CASES: Case[] = [
  valid('EVENT_TRACKED', { name: 'purchase', properties: { sku: 'x', n: 1 }, value: 9.99, transactionId: 't-1' }),
  valid('EVENT_TRACKED', { name: 'ab', properties: {}, value: null, transactionId: null }, 'nulls, 2-char name'),
  valid('EVENT_TRACKED', { name: 'a' + s(63, 'b'), properties: {}, transactionId: s(255) }, '64-char name, 255-char transactionId'),
  bad('EVENT_TRACKED', { properties: {} }, 'payload.name', 'REQUIRED_FIELD_MISSING', 'name missing'),
  bad('EVENT_TRACKED', { name: 'Purchase', properties: {} }, 'payload.name', 'INVALID_FORMAT', 'name pattern'),
  bad('EVENT_TRACKED', { name: 'a', properties: {} }, 'payload.name', 'INVALID_FORMAT', 'name shorter than 2'),
  bad('EVENT_TRACKED', { name: 'a' + s(64, 'b'), properties: {} }, 'payload.name', 'INVALID_FORMAT', 'name longer than 64'),
  bad('EVENT_TRACKED', { name: 7, properties: {} }, 'payload.name', 'INVALID_TYPE', 'name not a string'),
  bad('EVENT_TRACKED', { name: 'buy' }, 'payload.properties', 'REQUIRED_FIELD_MISSING', 'properties missing'),
  bad('EVENT_TRACKED', { name: 'buy', properties: [] }, 'payload.properties', 'INVALID_TYPE', 'properties not an object'),
  bad('EVENT_TRACKED', { name: 'buy', properties: {}, value: '1' }, 'payload.value', 'INVALID_TYPE', 'value not a number'),
  bad('EVENT_TRACKED', { name: 'buy', properties: {}, transactionId: s(256) }, 'payload.transactionId', 'OUT_OF_RANGE', 'transactionId > 255'),
  bad('EVENT_TRACKED', { name: 'buy', properties: {}, transactionId: 5 }, 'payload.transactionId', 'INVALID_TYPE', 'transactionId not a string'),
  bad('EVENT_TRACKED', { name: 'buy', properties: {}, revenue: 1 }, 'payload.revenue', 'UNKNOWN_PROPERTY', 'extra property'),

  valid('SCREEN_VIEWED', { screen_key: 'home', previous_screen_key: 'cart.v2', previous_visible_duration_millis: 1200 }),
  valid('SCREEN_VIEWED', { screen_key: 'a' + s(127, 'b'), previous_screen_key: null, previous_visible_duration_millis: null }, 'nulls, 128-char key'),
  bad('SCREEN_VIEWED', {}, 'payload.screen_key', 'REQUIRED_FIELD_MISSING', 'screen_key missing'),
  bad('SCREEN_VIEWED', { screen_key: 'Home' }, 'payload.screen_key', 'INVALID_FORMAT', 'screen_key pattern'),
  bad('SCREEN_VIEWED', { screen_key: 'a' + s(128, 'b') }, 'payload.screen_key', 'INVALID_FORMAT', 'screen_key longer than 128'),
  bad('SCREEN_VIEWED', { screen_key: 'home', previous_screen_key: '_x' }, 'payload.previous_screen_key', 'INVALID_FORMAT', 'previous_screen_key pattern'),
  bad('SCREEN_VIEWED', { screen_key: 'home', previous_visible_duration_millis: -1 }, 'payload.previous_visible_duration_millis', 'OUT_OF_RANGE', 'negative duration'),
  bad('SCREEN_VIEWED', { screen_key: 'home', previous_visible_duration_millis: 1.5 }, 'payload.previous_visible_duration_millis', 'INVALID_TYPE', 'fractional duration'),
  bad('SCREEN_VIEWED', { screen_key: 'home', title: 'x' }, 'payload.title', 'UNKNOWN_PROPERTY', 'extra property'),

  valid('SCREEN_CLEARED', { screen_key: 'home', visible_duration_millis: 0 }),
  bad('SCREEN_CLEARED', { visible_duration_millis: 1 }, 'payload.screen_key', 'REQUIRED_FIELD_MISSING', 'screen_key missing'),
  bad('SCREEN_CLEARED', { screen_key: 'home' }, 'payload.visible_duration_millis', 'REQUIRED_FIELD_MISSING', 'duration missing'),
  bad('SCREEN_CLEARED', { screen_key: 'home', visible_duration_millis: null }, 'payload.visible_duration_millis', 'INVALID_TYPE', 'duration null'),
  bad('SCREEN_CLEARED', { screen_key: 'home', visible_duration_millis: -5 }, 'payload.visible_duration_millis', 'OUT_OF_RANGE', 'negative duration'),
  bad('SCREEN_CLEARED', { screen_key: 'h m', visible_duration_millis: 1 }, 'payload.screen_key', 'INVALID_FORMAT', 'screen_key pattern'),
  bad('SCREEN_CLEARED', { screen_key: 'home', visible_duration_millis: 1, x: 1 }, 'payload.x', 'UNKNOWN_PROPERTY', 'extra property'),

  ...ATTRS('INSTALLATION_ATTRIBUTES_EDITED'),
  ...ATTRS('PROFILE_ATTRIBUTES_EDITED'),

  valid('PROFILE_TAGS_EDITED', { add: ['vip', s(64)], remove: ['Churn Risk'] }),
  valid('PROFILE_TAGS_EDITED', {}, 'both optional'),
  bad('PROFILE_TAGS_EDITED', { add: [''] }, 'payload.add[0]', 'OUT_OF_RANGE', 'empty tag'),
  bad('PROFILE_TAGS_EDITED', { add: [s(65)] }, 'payload.add[0]', 'OUT_OF_RANGE', 'tag longer than 64'),
  bad('PROFILE_TAGS_EDITED', { add: ['x', 'y', 'x'] }, 'payload.add[2]', 'DUPLICATE_ITEM', 'add not unique'),
  bad('PROFILE_TAGS_EDITED', { remove: [1] }, 'payload.remove[0]', 'INVALID_TYPE', 'tag not a string'),
  bad('PROFILE_TAGS_EDITED', { remove: 'x' }, 'payload.remove', 'INVALID_TYPE', 'remove not an array'),
  bad('PROFILE_TAGS_EDITED', { set: ['x'] }, 'payload.set', 'UNKNOWN_PROPERTY', 'extra property'),

  valid('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', subscribed: true }, { list: 'offers', subscribed: false }] }),
  bad('INSTALLATION_SUBSCRIPTIONS_EDITED', {}, 'payload.changes', 'REQUIRED_FIELD_MISSING', 'changes missing'),
  bad('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [] }, 'payload.changes', 'OUT_OF_RANGE', 'changes empty'),
  bad('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: {} }, 'payload.changes', 'INVALID_TYPE', 'changes not an array'),
  bad('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'News', subscribed: true }] }, 'payload.changes[0].list', 'INVALID_FORMAT', 'list pattern'),
  bad('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ subscribed: true }] }, 'payload.changes[0].list', 'REQUIRED_FIELD_MISSING', 'list missing'),
  bad('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news' }] }, 'payload.changes[0].subscribed', 'REQUIRED_FIELD_MISSING', 'subscribed missing'),
  bad('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', subscribed: 'yes' }] }, 'payload.changes[0].subscribed', 'INVALID_TYPE', 'subscribed not boolean'),
  bad('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', subscribed: true, channel: 'PUSH' }] }, 'payload.changes[0].channel', 'UNKNOWN_PROPERTY', 'extra item property'),
  bad('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: ['news'] }, 'payload.changes[0]', 'INVALID_TYPE', 'item not an object'),
  bad('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'n', subscribed: true }], all: true }, 'payload.all', 'UNKNOWN_PROPERTY', 'extra property'),

  valid('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', channel: 'EMAIL', subscribed: true }, { list: 'news', channel: 'WHATSAPP', subscribed: false }] }),
  bad('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [] }, 'payload.changes', 'OUT_OF_RANGE', 'changes empty'),
  bad('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', channel: 'FAX', subscribed: true }] }, 'payload.changes[0].channel', 'INVALID_VALUE', 'channel not in enum'),
  bad('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', subscribed: true }] }, 'payload.changes[0].channel', 'REQUIRED_FIELD_MISSING', 'channel missing'),
  bad('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ channel: 'SMS', subscribed: true }] }, 'payload.changes[0].list', 'REQUIRED_FIELD_MISSING', 'list missing'),
  bad('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', channel: 'SMS', subscribed: 1 }] }, 'payload.changes[0].subscribed', 'INVALID_TYPE', 'subscribed not boolean'),
  bad('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', channel: 'SMS', subscribed: true, x: 1 }] }, 'payload.changes[0].x', 'UNKNOWN_PROPERTY', 'extra item property'),
  bad('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', channel: 'SMS', subscribed: true }], y: 1 }, 'payload.y', 'UNKNOWN_PROPERTY', 'extra property'),

  valid('PUSH_TOKEN_SET', { token: 'f00d' }),
  valid('PUSH_TOKEN_SET', { token: null }, 'null token'),
  valid('PUSH_TOKEN_SET', { token: s(4096) }, '4096-char token'),
  bad('PUSH_TOKEN_SET', {}, 'payload.token', 'REQUIRED_FIELD_MISSING', 'token missing'),
  bad('PUSH_TOKEN_SET', { token: s(4097) }, 'payload.token', 'OUT_OF_RANGE', 'token longer than 4096'),
  bad('PUSH_TOKEN_SET', { token: 12 }, 'payload.token', 'INVALID_TYPE', 'token not a string'),
  bad('PUSH_TOKEN_SET', { token: 'x', provider: 'apns' }, 'payload.provider', 'UNKNOWN_PROPERTY', 'extra property'),

  ...STATE('PUSH_SUBSCRIPTION_SET', 'OPTED_OUT', 'MAYBE'),
  ...STATE('PUSH_PERMISSION_SET', 'PROVISIONAL', 'OPTED_IN'),
  ...STATE('PRIVACY_STATE_SET', 'OPTED_IN', 'AUTHORIZED'),

  valid('INTERACTION_TRACKED', { experienceId: randomUUID(), messageId: 'm-1', variantId: 'v', type: 'CLICK' }),
  valid('INTERACTION_TRACKED', { experienceId: randomUUID(), messageId: '😀'.repeat(255), variantId: null, type: 'CONVERSION' }, '255 astral characters'),
  bad('INTERACTION_TRACKED', { messageId: 'm', type: 'CLICK' }, 'payload.experienceId', 'REQUIRED_FIELD_MISSING', 'experienceId missing'),
  bad('INTERACTION_TRACKED', { experienceId: 'exp-1', messageId: 'm', type: 'CLICK' }, 'payload.experienceId', 'INVALID_FORMAT', 'experienceId not a uuid'),
  bad('INTERACTION_TRACKED', { experienceId: randomUUID(), type: 'CLICK' }, 'payload.messageId', 'REQUIRED_FIELD_MISSING', 'messageId missing'),
  bad('INTERACTION_TRACKED', { experienceId: randomUUID(), messageId: '', type: 'CLICK' }, 'payload.messageId', 'OUT_OF_RANGE', 'messageId empty'),
  bad('INTERACTION_TRACKED', { experienceId: randomUUID(), messageId: s(256), type: 'CLICK' }, 'payload.messageId', 'OUT_OF_RANGE', 'messageId > 255'),
  bad('INTERACTION_TRACKED', { experienceId: randomUUID(), messageId: 'm', variantId: s(256), type: 'CLICK' }, 'payload.variantId', 'OUT_OF_RANGE', 'variantId > 255'),
  bad('INTERACTION_TRACKED', { experienceId: randomUUID(), messageId: 'm', type: 'TAP' }, 'payload.type', 'INVALID_VALUE', 'type not in enum'),
  bad('INTERACTION_TRACKED', { experienceId: randomUUID(), messageId: 'm' }, 'payload.type', 'REQUIRED_FIELD_MISSING', 'type missing'),
  bad('INTERACTION_TRACKED', { experienceId: randomUUID(), messageId: 'm', type: 'CLICK', z: 0 }, 'payload.z', 'UNKNOWN_PROPERTY', 'extra property'),

  valid('PUSH_RECEIPT_RECORDED', { deliveryId: randomUUID(), type: 'DELIVERED' }),
  bad('PUSH_RECEIPT_RECORDED', { type: 'OPENED' }, 'payload.deliveryId', 'REQUIRED_FIELD_MISSING', 'deliveryId missing'),
  bad('PUSH_RECEIPT_RECORDED', { deliveryId: '1234', type: 'OPENED' }, 'payload.deliveryId', 'INVALID_FORMAT', 'deliveryId not a uuid'),
  bad('PUSH_RECEIPT_RECORDED', { deliveryId: randomUUID(), type: 'READ' }, 'payload.type', 'INVALID_VALUE', 'type not in enum'),
  bad('PUSH_RECEIPT_RECORDED', { deliveryId: randomUUID() }, 'payload.type', 'REQUIRED_FIELD_MISSING', 'type missing'),
  bad('PUSH_RECEIPT_RECORDED', { deliveryId: randomUUID(), type: 'OPENED', at: 1 }, 'payload.at', 'UNKNOWN_PROPERTY', 'extra property'),

  valid('FLAG_EXPOSED', { flagKey: 'new_checkout', experimentId: 'exp', variantKey: 'B', revision: 1 }),
  bad('FLAG_EXPOSED', { flagKey: 'NewCheckout', experimentId: 'e', variantKey: 'B', revision: 1 }, 'payload.flagKey', 'INVALID_FORMAT', 'flagKey pattern'),
  bad('FLAG_EXPOSED', { experimentId: 'e', variantKey: 'B', revision: 1 }, 'payload.flagKey', 'REQUIRED_FIELD_MISSING', 'flagKey missing'),
  bad('FLAG_EXPOSED', { flagKey: 'f', experimentId: '', variantKey: 'B', revision: 1 }, 'payload.experimentId', 'OUT_OF_RANGE', 'experimentId empty'),
  bad('FLAG_EXPOSED', { flagKey: 'f', experimentId: s(256), variantKey: 'B', revision: 1 }, 'payload.experimentId', 'OUT_OF_RANGE', 'experimentId > 255'),
  bad('FLAG_EXPOSED', { flagKey: 'f', experimentId: 'e', revision: 1 }, 'payload.variantKey', 'REQUIRED_FIELD_MISSING', 'variantKey missing'),
  bad('FLAG_EXPOSED', { flagKey: 'f', experimentId: 'e', variantKey: s(256), revision: 1 }, 'payload.variantKey', 'OUT_OF_RANGE', 'variantKey > 255'),
  bad('FLAG_EXPOSED', { flagKey: 'f', experimentId: 'e', variantKey: 'B', revision: 0 }, 'payload.revision', 'OUT_OF_RANGE', 'revision < 1'),
  bad('FLAG_EXPOSED', { flagKey: 'f', experimentId: 'e', variantKey: 'B', revision: '2' }, 'payload.revision', 'INVALID_TYPE', 'revision not an integer'),
  bad('FLAG_EXPOSED', { flagKey: 'f', experimentId: 'e', variantKey: 'B' }, 'payload.revision', 'REQUIRED_FIELD_MISSING', 'revision missing'),
  bad('FLAG_EXPOSED', { flagKey: 'f', experimentId: 'e', variantKey: 'B', revision: 1, q: 1 }, 'payload.q', 'UNKNOWN_PROPERTY', 'extra property'),

  // SdkOperation envelope rules (no additional properties, all required).
  { type: 'PUSH_TOKEN_SET', op: { generation: -1 }, field: 'generation', code: 'OUT_OF_RANGE', note: 'generation < 0' },
  { type: 'PUSH_TOKEN_SET', op: { generation: '0' }, field: 'generation', code: 'INVALID_TYPE', note: 'generation not an integer' },
  { type: 'PUSH_TOKEN_SET', op: { generation: undefined }, field: 'generation', code: 'REQUIRED_FIELD_MISSING', note: 'generation missing' },
  { type: 'NOT_A_TYPE', op: {}, field: 'type', code: 'INVALID_VALUE', note: 'unknown type' },
  { type: 'PUSH_TOKEN_SET', op: { type: undefined }, field: 'type', code: 'REQUIRED_FIELD_MISSING', note: 'type missing' },
  { type: 'PUSH_TOKEN_SET', op: { occurredAt: 'yesterday' }, field: 'occurredAt', code: 'INVALID_FORMAT', note: 'occurredAt not a date-time' },
  { type: 'PUSH_TOKEN_SET', op: { occurredAt: '2026-02-30' }, field: 'occurredAt', code: 'INVALID_FORMAT', note: 'date without time' },
  { type: 'PUSH_TOKEN_SET', op: { occurredAt: undefined }, field: 'occurredAt', code: 'REQUIRED_FIELD_MISSING', note: 'occurredAt missing' },
  { type: 'PUSH_TOKEN_SET', op: { payload: null }, field: 'payload', code: 'INVALID_TYPE', note: 'payload null' },
  { type: 'PUSH_TOKEN_SET', op: { payload: undefined }, field: 'payload', code: 'REQUIRED_FIELD_MISSING', note: 'payload missing' },
  { type: 'PUSH_TOKEN_SET', op: { extra: true }, field: 'extra', code: 'UNKNOWN_PROPERTY', note: 'extra operation property' },
];

let h: Harness;
let session: Session;
const results = new Map<string, BatchResult['results'][number]>();
const ids: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  const { app } = await setupEnvironment(h);
  session = await bootstrap(h, app.appKey);
  const ops = CASES.map((c) => {
    const o = op(c.type, c.payload ?? { token: 'x' }, c.op as never) as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(c.op ?? {})) if (v === undefined) delete o[k];
    ids.push(o.operationId as string);
    return o;
  });
  for (let i = 0; i < ops.length; i += 100) {
    const res = await sendBatch(h, session, ops.slice(i, i + 100));
    expect(res.status).toBe(202);
    for (const r of ((await res.json()) as BatchResult).results) results.set(r.operationId, r);
  }
});
afterAll(() => h.close());

describe('SdkOperation payload rules (spec 01)', () => {
  it('covers all fifteen operation types with a valid payload', () => {
    const covered = new Set(CASES.filter((c) => !c.code).map((c) => c.type));
    expect([...covered].sort()).toEqual([...OPERATION_TYPES].sort());
  });

  it.each(CASES.map((c, i) => [`${c.type}: ${c.note}`, i] as const))('%s', (_name, i) => {
    const c = CASES[i];
    const r = results.get(ids[i])!;
    if (!c.code) {
      expect(r).toEqual({ operationId: ids[i], status: 'ACCEPTED', errorCode: null, message: null });
      return;
    }
    expect(r.status).toBe('REJECTED');
    expect(r.errorCode).toBe(c.code);
    expect(r.message!.startsWith(`${c.field}: `)).toBe(true);
  });
});

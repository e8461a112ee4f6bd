import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bearer, bind, bootstrap, ingest, issueCode, op, setupEnvironment, type Session } from '../../../test/fixtures/engage';

let h: Harness;
let accessKey: string;
let s: Session;
beforeEach(async () => {
  h = await createHarness();
  const env = await setupEnvironment(h);
  accessKey = env.accessKey;
  s = await bootstrap(h, env.app.appKey);
});
afterEach(() => h.close());

const revoke = (token: string, operationId: string = randomUUID()) =>
  h.request(`/v1/sdk/privacy/revocations/${operationId}`, { method: 'PUT', headers: bearer(token) });

/** Rows anywhere that still mention the installation. */
async function traces(id: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [table, col] of [
    ['installations', 'id'],
    ['operations', 'installation_id'],
    ['operation_batches', 'installation_id'],
    ['installation_attributes', 'installation_id'],
    ['installation_subscriptions', 'installation_id'],
    ['installation_generations', 'installation_id'],
    ['binding_codes', 'installation_id'],
    ['binding_transitions', 'installation_id'],
  ]) {
    out[table] = (await h.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${col} = ?`, [id]))!.n;
  }
  return out;
}

describe('PUT /v1/sdk/privacy/revocations/{operationId}', () => {
  it('erases the installation and everything stored for it; a repeat is 204; the credential is dead', async () => {
    await bind(h, accessKey, s, 'carol');
    await ingest(h, s, [
      op('EVENT_TRACKED', { name: 'bought', properties: { x: 1 } }, { generation: 1 }),
      op('INSTALLATION_ATTRIBUTES_EDITED', { set: { a: 1 } }, { generation: 1 }),
      op('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'n', subscribed: true }] }, { generation: 1 }),
      op('PUSH_TOKEN_SET', { token: 'tok' }, { generation: 1 }),
      op('PROFILE_ATTRIBUTES_EDITED', { set: { anon: true } }, { generation: 0 }),
    ]);
    await issueCode(h, s);
    const anonymousProfile = (await h.services.engage.inspection.installation(s.installationId)).generations[0].profileId;
    expect(Object.values((await traces(s.installationId))).every((n) => n > 0)).toBe(true);

    const opId = randomUUID();
    const res = await revoke(s.revocationCredential, opId);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(Object.values((await traces(s.installationId))).every((n) => n === 0)).toBe(true);
    // The anonymous profile only this installation used is gone; the known person stays, without its events.
    expect(await h.sql.get('SELECT COUNT(*) AS n FROM profiles WHERE id = ?', [anonymousProfile])).toEqual({ n: 0 });
    expect(await h.sql.get('SELECT COUNT(*) AS n FROM profile_attributes WHERE profile_id = ?', [anonymousProfile])).toEqual({ n: 0 });
    expect((await h.services.engage.inspection.profile('prod', 'carol')).recentEvents).toEqual([]);

    expect((await revoke(s.revocationCredential, opId)).status).toBe(204);
    expect((await revoke(s.revocationCredential)).status).toBe(204);
    expect((await h.request('/v1/sdk/installation', { headers: bearer(s.credential) })).status).toBe(401);
  });

  it('accepts only the revocation credential', async () => {
    for (const token of [s.credential, s.recoveryToken, accessKey, 'svc_rev_unknown']) {
      const res = await revoke(token);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
    expect((await traces(s.installationId)).installations).toBe(1);
  });

  it('400 naming operationId when the path is not a UUID', async () => {
    const res = await revoke(s.revocationCredential, 'not-a-uuid');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message.startsWith('operationId: ')).toBe(true);
    expect((await traces(s.installationId)).installations).toBe(1);
  });

  it('a repeat with a malformed operationId is a 400 like a first request, after the credential check', async () => {
    expect((await revoke(s.revocationCredential)).status).toBe(204);
    const res = await revoke(s.revocationCredential, 'not-a-uuid');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'invalid_request', message: 'operationId: must be a UUID' });
    // A credential that never existed is still a 401 whatever the path.
    expect((await revoke('svc_rev_unknown', 'not-a-uuid')).status).toBe(401);
    expect((await revoke(s.revocationCredential)).status).toBe(204);
    const kept = await h.sql.get('SELECT COUNT(*) AS n FROM revoked_installations');
    expect(kept).toEqual({ n: 1 });
  });
});

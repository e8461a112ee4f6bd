import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { createAdminFixture, type AdminFixture } from '../../../test/helpers/admin';
import { ADMIN_SCOPES } from './schemas';
import { SYSTEM_ACTOR } from '../audit';

/** Route groups mounted as extensions (user transfers) answer behind the management API's own guard. */
let h: Harness;
let a: AdminFixture;
let tenantId: string;

beforeAll(async () => {
  h = await createHarness();
  a = await createAdminFixture(h);
  tenantId = (await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR)).id;
});
afterAll(() => h.close());

const importRequest = {
  schemaVersion: 1, source: 'legacy', mode: 'VALIDATE_ONLY', idempotencyKey: 'k1',
  records: [{ externalId: 'x1', email: 'ann@example.com', emailVerified: true, active: true }],
};

describe('user transfer routes on the management app', () => {
  it('queue an import (202) and read it back with the import scope and permission', async () => {
    const token = await a.token([ADMIN_SCOPES.usersImport]);
    const res = await a.call('POST', `/tenants/${tenantId}/user-imports`, token, importRequest);
    expect(res.status).toBe(202);
    const job = (await res.json()) as { id: string; tenantId: string; kind: string; status: string };
    expect(job).toMatchObject({ tenantId, kind: 'IMPORT', status: 'QUEUED' });
    const read = await a.call('GET', `/tenants/${tenantId}/user-imports/${job.id}`, token);
    expect([read.status, ((await read.json()) as { id: string }).id]).toEqual([200, job.id]);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('refuse an operator holding only the export permission (403 access_denied) and an unknown tenant (404)', async () => {
    const exporter = await a.newOperator('exporter@example.com', [ADMIN_SCOPES.usersExport]);
    const res = await a.call('POST', `/tenants/${tenantId}/user-imports`, await a.token([ADMIN_SCOPES.usersImport], exporter.id), importRequest);
    expect([res.status, await res.json()]).toEqual([403, { error: 'access_denied' }]);
    const unknown = await a.call('GET', '/tenants/00000000-0000-4000-8000-00000000dead/user-imports', await a.token());
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: 'unknown_tenant' }]);
  });
});

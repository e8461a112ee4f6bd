import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/helpers/harness';
import { ACTOR } from '../../test/fixtures/actor';
import { SYSTEM_ACTOR } from './audit';

/**
 * Services check their input against the context's schemas (schemas.ts), so the CLI and the
 * HTTP APIs report the same message for the same bad value, naming the field.
 */
let h: Harness;
let tenantId: string;
beforeAll(async () => {
  h = await createHarness();
  tenantId = (await h.services.tenants.create({ slug: 'inputs' }, SYSTEM_ACTOR)).id;
});
afterAll(() => h.close());

describe('service inputs are checked against their schemas', () => {
  it.each([
    ['tenant slug', () => h.services.tenants.create({ slug: 'Not A Slug' }, SYSTEM_ACTOR), 'slug: must match'],
    ['tenant registrationMode', () => h.services.tenants.create({ slug: 'ok', registrationMode: 'OPEN' }, SYSTEM_ACTOR), 'registrationMode: must be one of CONTROLLED, SELF_SERVICE'],
    ['resource uri', () => h.services.resources.create(tenantId, { uri: 'not a uri', audience: 'a', scopes: [] }, SYSTEM_ACTOR), 'uri: must be an absolute URI'],
    ['resource fragment', () => h.services.resources.create(tenantId, { uri: 'https://api.test/#x', audience: 'a', scopes: [] }, SYSTEM_ACTOR), 'uri: must match ^[^#]*$'],
    ['resource scope', () => h.services.resources.create(tenantId, { uri: 'https://api.test', audience: 'a', scopes: ['ok', 'bad"one'] }, SYSTEM_ACTOR), 'scopes[1]: must match'],
    ['user email', () => h.services.users.create(tenantId, { email: 'nobody' }, SYSTEM_ACTOR), 'email: must match'],
    ['credential resource', () => h.services.credentials.issue(tenantId, '', SYSTEM_ACTOR), 'resourceUri: must be at least 1 character'],
    ['environment name', () => h.services.engage.environments.create({ name: ' ' }, ACTOR), 'name: must match ^(?![0-9a-f]{8}'],
    ['app platform', () => h.services.engage.environments.createApp({ environment: 'x', platform: 'web', name: 'w' }, ACTOR), 'platform: must be one of ANDROID, IOS'],
    ['access key apps', () => h.services.engage.environments.createAccessKey({ environment: 'x', apps: [] }, ACTOR), 'apps: must have at least 1 item'],
  ])('%s', async (_what, call, message) => {
    const err = (await call().then(
      () => undefined,
      (e: unknown) => e,
    )) as { kind?: string; code?: string; message?: string } | undefined;
    expect(err).toMatchObject({ kind: 'invalid', code: 'invalid_request' });
    expect(err?.message?.startsWith(message)).toBe(true);
  });
});

/**
 * `engage apply` on dist/engage (issue 11 point 6): a dry run writes nothing, the first run
 * creates everything, the second says nothing changed; the file's errors are one `path: reason`
 * line; what apply made works (the client's secret from its variable at the token endpoint).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../helpers/binary';

const SECRET = 's'.repeat(48);
const env = { ACME_BATCH_SECRET: SECRET, OPS_PASSWORD: 'correct horse battery staple' };

const config = {
  $schema: './engage.schema.json',
  version: 1,
  tenants: [
    {
      slug: 'acme',
      resources: [{ uri: 'https://api.acme.example', audience: 'orders-api', scopes: ['orders.read'], credential: {} }],
      clients: [
        {
          clientId: 'batch', displayName: 'Batch', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'PRE_AUTHORIZED',
          redirectUris: ['https://batch.acme.example/cb'], scopes: ['openid', 'orders.read'], defaultResource: 'https://api.acme.example', secretEnv: 'ACME_BATCH_SECRET',
        },
      ],
      permissions: [{ key: 'orders.approve', displayName: 'Approve orders' }],
      roles: [{ key: 'approver', displayName: 'Approver', scope: 'TENANT', permissions: ['orders.approve'] }],
    },
  ],
  operators: [{ email: 'ops@example.com', passwordEnv: 'OPS_PASSWORD' }],
};

interface ApplyJson {
  dryRun: boolean;
  changed: boolean;
  steps: { action: string; kind: string; tenant: string; key: string; changes: string[] }[];
  secrets: { kind: string; credentialId?: string; secret: string | null }[];
}

describe('dist/engage apply', () => {
  let sb: Sandbox;
  let file: string;
  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-apply-' });
    file = path.join(sb.dir, 'engage.json');
    writeFileSync(file, JSON.stringify(config, null, 2));
  });
  afterAll(() => sb?.cleanup());

  it('prints the plan on a dry run and writes nothing', async () => {
    const plan = await sb.cliJson<ApplyJson>(['apply', '-f', file, '--dry-run'], { env });
    expect(plan).toMatchObject({ dryRun: true, changed: true, secrets: [] });
    expect(plan.steps.map((s) => `${s.action} ${s.kind} ${s.key}`)).toEqual([
      'create tenant acme', 'create resource orders-api', 'create credential orders-api', 'create client batch',
      'create permission orders.approve', 'create role approver', 'create operator ops@example.com',
    ]);
    const human = await sb.cli(['apply', '-f', file, '--dry-run'], { env });
    expect(human).toContain('dry run: nothing written');
    expect(human).toContain('+ create client acme/batch');
    const tenants = await sb.cliJson<{ slug: string }[]>(['tenants', 'list']);
    expect(tenants.map((t) => t.slug)).toEqual(['control']);
  });

  it('creates everything once, then says nothing changed', async () => {
    const first = await sb.run(['apply', '-f', file], { env });
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain('Applied');
    expect(first.stdout).toMatch(/7 to create, 0 to update, 0 unchanged\./);
    // The credential's secret was generated: shown this once; the client's came from its variable and is never printed.
    expect(first.stdout).toMatch(/credential acme https:\/\/api\.acme\.example: credentialId [0-9a-f-]{36} credentialSecret \S{40,}/);
    expect(first.stdout).not.toContain(SECRET);
    const tenants = await sb.cliJson<{ slug: string; configurationManaged: boolean }[]>(['tenants', 'list']);
    expect(tenants.find((t) => t.slug === 'acme')).toMatchObject({ configurationManaged: true });

    const second = await sb.run(['apply', '-f', file], { env });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(`No changes: the environment already matches ${file} (7 objects).\n`);
    const json = await sb.cliJson<ApplyJson>(['apply', '-f', file], { env });
    expect(json).toMatchObject({ dryRun: false, changed: false, secrets: [] });
  });

  it('made a client whose secret is the variable’s, at the token endpoint of a running server', async () => {
    const server = await sb.serve();
    const res = await fetch(`${server.url}/t/acme/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`batch:${SECRET}`).toString('base64')}` },
      body: 'grant_type=authorization_code&code=nope&redirect_uri=https%3A%2F%2Fbatch.acme.example%2Fcb&code_verifier=' + 'v'.repeat(43),
    });
    // Authenticated (invalid_grant for the made-up code), not invalid_client.
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
    await server.stop();
  });

  it('rejects a bad file with one path: reason line and a non-zero exit', async () => {
    const bad = path.join(sb.dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...config, tenants: [{ ...config.tenants[0], clients: [{ ...config.tenants[0].clients[0], redirectUris: [] }] }] }));
    const r = await sb.run(['apply', '-f', bad], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^engage: [^\n]*bad\.json: tenants\[0\]\.clients\[0\]\.redirectUris: [^\n]+\n$/);
    const schema = JSON.parse(await sb.cli(['apply', '--print-schema'])) as { properties: Record<string, unknown>; additionalProperties: boolean };
    expect(Object.keys(schema.properties).sort()).toEqual(['$schema', 'environments', 'operators', 'tenants', 'version']);
    expect(schema.additionalProperties).toBe(false);
    const missing = await sb.run(['apply', '-f', file], { env: { OPS_PASSWORD: 'x' } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^engage: [^\n]*ACME_BATCH_SECRET is not set\n$/);
  });
});

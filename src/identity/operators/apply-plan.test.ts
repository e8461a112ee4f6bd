import { describe, expect, it } from 'vitest';
import { planApply, PlanError, type CurrentClient, type CurrentState, type CurrentTenant } from './apply-plan';
import { applyFileProblem, type ApplyFile } from './apply-schema';

const client = {
  clientId: 'web',
  displayName: 'Web',
  applicationType: 'WEB' as const,
  tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC' as const,
  consentPolicy: 'EXPLICIT' as const,
  redirectUris: ['https://app.example.com/cb'],
  scopes: ['openid', 'orders.read'],
  defaultResource: 'https://api.example.com',
  secretEnv: 'WEB_SECRET',
};
const file: ApplyFile = {
  version: 1,
  tenants: [
    {
      slug: 'acme',
      registrationMode: 'CONTROLLED',
      resources: [{ uri: 'https://api.example.com', audience: 'orders-api', scopes: ['orders.read'], credential: {} }],
      clients: [client],
      permissions: [{ key: 'orders.approve', displayName: 'Approve orders' }],
      roles: [{ key: 'approver', displayName: 'Approver', scope: 'TENANT', permissions: ['orders.approve'] }],
    },
  ],
  operators: [{ email: 'ops@example.com', passwordEnv: 'OPS_PASSWORD' }],
};
const secrets = new Map([['WEB_SECRET', 'digest-1']]);
const empty: CurrentState = { tenants: new Map(), operators: new Map() };

type Applied = { state: CurrentState; tenant: CurrentTenant; web: CurrentClient };

/** The state an applied `file` leaves. */
function applied(): Applied {
  const web: CurrentClient = { ...client, nativeAuthenticationEnabled: false, webOrigins: null, status: 'ACTIVE', managed: true, secretDigest: 'digest-1' };
  const tenant: CurrentTenant = {
    id: 't1',
    registrationMode: 'CONTROLLED',
    managed: true,
    isControl: false,
    resources: [{ id: 'r1', uri: 'https://api.example.com', audience: 'orders-api', scopes: ['orders.read'], status: 'ACTIVE', managed: true, credentialDigest: 'd', credentialId: 'c1' }],
    clients: [web],
    permissions: [{ key: 'orders.approve', displayName: 'Approve orders', status: 'ACTIVE', managed: true }],
    roles: [{ key: 'approver', displayName: 'Approver', scope: 'TENANT', status: 'ACTIVE', managed: true, permissions: ['orders.approve'] }],
  };
  return { state: { tenants: new Map([['acme', tenant]]), operators: new Map([['ops@example.com', { email: 'ops@example.com', isAdministrator: true, passwordMatches: true }]]) }, tenant, web };
}

describe('the apply plan', () => {
  it('creates everything on an empty environment, in dependency order', () => {
    const steps = planApply(file, empty, secrets);
    expect(steps.map((s) => `${s.action} ${s.kind} ${s.key}`)).toEqual([
      'create tenant acme',
      'create resource orders-api',
      'create credential orders-api',
      'create client web',
      'create permission orders.approve',
      'create role approver',
      'create operator ops@example.com',
    ]);
  });

  it('plans nothing but unchanged steps once applied, whatever the order of sets', () => {
    const { state, web } = applied();
    web.scopes = ['orders.read', 'openid'];
    expect(planApply(file, state, secrets).every((s) => s.action === 'unchanged')).toBe(true);
  });

  it.each([
    ['a changed redirect URI', (s: Applied): unknown => (s.web.redirectUris = ['https://old.example.com/cb']), 'client', ['redirectUris']],
    ['a secret that is not the variable’s', (s: Applied): unknown => (s.web.secretDigest = 'other'), 'client', ['secret']],
    ['a disabled client not yet managed', (s: Applied): unknown => Object.assign(s.web, { status: 'DISABLED', managed: false }), 'client', ['status', 'adopt']],
    ['a resource scope more', (s: Applied): unknown => (s.tenant.resources[0].scopes = ['orders.read', 'orders.write']), 'resource', ['scopes']],
    ['a role permission removed', (s: Applied): unknown => (s.tenant.roles[0].permissions = []), 'role', ['permissions']],
    ['a renamed permission', (s: Applied): unknown => (s.tenant.permissions[0].displayName = 'Old'), 'permission', ['displayName']],
    ['another registration mode', (s: Applied): unknown => (s.tenant.registrationMode = 'SELF_SERVICE'), 'tenant', ['registrationMode']],
    ['an operator without the role', (s: Applied): unknown => (s.state.operators.get('ops@example.com')!.isAdministrator = false), 'operator', ['administrator']],
  ] as const)('updates only what differs: %s', (_what, change, kind, changes) => {
    const s = applied();
    change(s);
    const updates = planApply(file, s.state, secrets).filter((x) => x.action !== 'unchanged');
    expect(updates).toEqual([{ action: 'update', kind, tenant: kind === 'operator' ? 'control' : 'acme', key: expect.any(String) as string, changes }]);
  });

  it('creates a credential for a resource that has none apply keeps, and rotates one whose variable changed', () => {
    const s = applied();
    s.tenant.resources[0].credentialDigest = null;
    expect(planApply(file, s.state, secrets).find((x) => x.kind === 'credential')).toMatchObject({ action: 'create' });
    const withEnv: ApplyFile = structuredClone(file);
    withEnv.tenants![0].resources![0].credential = { secretEnv: 'CRED' };
    const t = applied();
    expect(planApply(withEnv, t.state, new Map([...secrets, ['CRED', 'new']])).find((x) => x.kind === 'credential')).toMatchObject({ action: 'update', changes: ['secret'] });
  });

  it('never takes over the control tenant, and refuses what it cannot do', () => {
    const s = applied();
    const control: CurrentTenant = { ...s.tenant, managed: false, isControl: true };
    const f: ApplyFile = { version: 1, tenants: [{ slug: 'control' }] };
    expect(planApply(f, { ...s.state, tenants: new Map([['control', control]]) }, secrets)).toEqual([{ action: 'unchanged', kind: 'tenant', tenant: 'control', key: 'control', changes: [] }]);
    s.tenant.roles[0].scope = 'ORGANIZATION';
    expect(() => planApply(file, s.state, secrets)).toThrow(PlanError);
    expect(() => planApply({ version: 1, operators: [{ email: 'new@example.com' }] }, empty, secrets)).toThrow(/passwordEnv/);
  });
});

describe('the apply file', () => {
  it('accepts the example', () => {
    expect(applyFileProblem(file)).toBeNull();
  });

  it.each([
    [{ version: 2 }, /^version: /],
    [{ version: 1, extra: true }, /extra/],
    [{ version: 1, tenants: [{ slug: 'Acme' }] }, /^tenants\[0\]\.slug: /],
    [{ version: 1, tenants: [{ slug: 'a' }, { slug: 'a' }] }, /^tenants\[1\]\.slug: duplicate a$/],
    [{ version: 1, tenants: [{ slug: 'a', clients: [{ ...client, defaultResource: null, secretEnv: 'bad name' }] }] }, /^tenants\[0\]\.clients\[0\]\.secretEnv: /],
    [{ version: 1, tenants: [{ slug: 'a', clients: [{ ...client, tokenEndpointAuthMethod: 'NONE' }] }] }, /secretEnv: only a CLIENT_SECRET_BASIC client has a secret/],
    [{ version: 1, tenants: [{ slug: 'a', clients: [client] }] }, /defaultResource: https:\/\/api\.example\.com is not among/],
    [{ version: 1, tenants: [{ slug: 'a', roles: [{ key: 'r', displayName: 'R', scope: 'TENANT', permissions: ['p'] }] }] }, /^tenants\[0\]\.roles\[0\]\.permissions\[0\]: permission p/],
    [{ version: 1, operators: [{ email: 'x@example.com', password: 'inline' }] }, /password/],
  ])('rejects %j with path: reason', (value, message) => {
    expect(applyFileProblem(value)).toMatch(message);
  });
});

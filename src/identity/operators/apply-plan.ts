import type { ApplyClient, ApplyFile, ApplyResource, ApplyRole } from './apply-schema';

/**
 * The plan of `engage apply`: what the file asks for compared with what the environment has,
 * as a list of steps. Pure (no I/O): the state and the secrets' digests are read before, the
 * steps carried out after (apply.ts), so `--dry-run` prints exactly what a run would do and a
 * second run over an unchanged file plans nothing but `unchanged` steps.
 *
 * apply never deletes: an object left out of the file stays as it is (docs/apply.md).
 */

export type StepKind = 'tenant' | 'resource' | 'credential' | 'client' | 'permission' | 'role' | 'operator';
export type StepAction = 'create' | 'update' | 'unchanged';

export interface Step {
  action: StepAction;
  kind: StepKind;
  /** The tenant's slug (operators: the control tenant's). */
  tenant: string;
  /** The object's key: slug, audience, client id, permission or role key, email. */
  key: string;
  /** What an update changes (field names; `adopt`: marked configuration-managed). Never a value. */
  changes: string[];
}

export interface CurrentResource {
  id: string;
  uri: string;
  audience: string;
  scopes: string[];
  status: string;
  managed: boolean;
  /** The ACTIVE credential apply keeps for it, by its secret's digest. */
  credentialDigest: string | null;
  credentialId: string | null;
}

export interface CurrentClient {
  clientId: string;
  displayName: string;
  applicationType: string;
  tokenEndpointAuthMethod: string;
  consentPolicy: string;
  redirectUris: string[];
  scopes: string[];
  defaultResource: string | null;
  nativeAuthenticationEnabled: boolean;
  webOrigins: string[] | null;
  /** RP-initiated logout's return URIs (issue 23); absent: none. */
  postLogoutRedirectUris?: string[];
  /** Opt-in grants (issue 23); absent: none. */
  grantTypes?: string[];
  status: string;
  managed: boolean;
  secretDigest: string | null;
}

export interface CurrentTenant {
  id: string;
  registrationMode: string;
  managed: boolean;
  isControl: boolean;
  resources: CurrentResource[];
  clients: CurrentClient[];
  permissions: { key: string; displayName: string; status: string; managed: boolean }[];
  roles: { key: string; displayName: string; scope: string; status: string; managed: boolean; permissions: string[] }[];
}

export interface CurrentOperator {
  email: string;
  isAdministrator: boolean;
  /** Whether the password named by passwordEnv is the operator's (undefined: none named). */
  passwordMatches?: boolean;
}

export interface CurrentState {
  tenants: Map<string, CurrentTenant>;
  operators: Map<string, CurrentOperator>;
}

/** The digests of the secrets the file names (environment variable name → SHA-256 digest). */
export type SecretDigests = ReadonlyMap<string, string>;

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && new Set(a).size === new Set([...a, ...b]).size;

function resourceChanges(want: ApplyResource, have: CurrentResource): string[] {
  const c: string[] = [];
  if (have.uri !== want.uri) c.push('uri');
  if (!sameSet(have.scopes, want.scopes)) c.push('scopes');
  if (have.status !== 'ACTIVE') c.push('status');
  if (!have.managed) c.push('adopt');
  return c;
}

function credentialStep(slug: string, want: ApplyResource, have: CurrentResource | undefined, secrets: SecretDigests): Step | undefined {
  if (!want.credential) return undefined;
  const step = (action: StepAction, changes: string[] = []): Step => ({ action, kind: 'credential', tenant: slug, key: want.audience, changes });
  if (!have || have.credentialDigest === null) return step('create');
  const env = want.credential.secretEnv;
  return env && secrets.get(env) !== have.credentialDigest ? step('update', ['secret']) : step('unchanged');
}

export function clientChanges(want: ApplyClient, have: CurrentClient, secrets: SecretDigests): string[] {
  const c: string[] = [];
  const eq = <K extends keyof ApplyClient & keyof CurrentClient>(k: K, w: unknown) => {
    if (have[k] !== w) c.push(k);
  };
  eq('displayName', want.displayName);
  eq('applicationType', want.applicationType);
  eq('tokenEndpointAuthMethod', want.tokenEndpointAuthMethod);
  eq('consentPolicy', want.consentPolicy);
  if (!sameSet(have.redirectUris, want.redirectUris)) c.push('redirectUris');
  if (!sameSet(have.scopes, want.scopes)) c.push('scopes');
  eq('defaultResource', want.defaultResource ?? null);
  eq('nativeAuthenticationEnabled', want.nativeAuthenticationEnabled ?? false);
  const wantOrigins = want.webOrigins ?? null;
  if ((wantOrigins === null) !== (have.webOrigins === null) || (wantOrigins && !sameSet(wantOrigins, have.webOrigins!))) c.push('webOrigins');
  if (!sameSet(have.postLogoutRedirectUris ?? [], want.postLogoutRedirectUris ?? [])) c.push('postLogoutRedirectUris');
  if (!sameSet(have.grantTypes ?? [], want.grantTypes ?? [])) c.push('grantTypes');
  if (have.status !== 'ACTIVE') c.push('status');
  // The secret: from its variable when named; generated when a public client becomes confidential; dropped when it becomes public.
  if (want.tokenEndpointAuthMethod === 'CLIENT_SECRET_BASIC') {
    if (want.secretEnv ? secrets.get(want.secretEnv) !== have.secretDigest : have.secretDigest === null) c.push('secret');
  } else if (have.secretDigest !== null) c.push('secret');
  if (!have.managed) c.push('adopt');
  return c;
}

function roleChanges(want: ApplyRole, have: CurrentTenant['roles'][number]): string[] {
  const c: string[] = [];
  if (have.displayName !== want.displayName) c.push('displayName');
  if (have.status !== 'ACTIVE') c.push('status');
  if (!sameSet(have.permissions, want.permissions ?? [])) c.push('permissions');
  if (!have.managed) c.push('adopt');
  return c;
}

/** Thrown for what the file asks that apply cannot do (a role's scope, a new operator without a password). */
export class PlanError extends Error {}

export function planApply(file: ApplyFile, current: CurrentState, secrets: SecretDigests): Step[] {
  const steps: Step[] = [];
  const add = (kind: StepKind, tenant: string, key: string, have: unknown, changes: () => string[]) => {
    if (have === undefined) return steps.push({ action: 'create', kind, tenant, key, changes: [] });
    const c = changes();
    steps.push({ action: c.length ? 'update' : 'unchanged', kind, tenant, key, changes: c });
  };
  for (const t of file.tenants ?? []) {
    const have = current.tenants.get(t.slug);
    add('tenant', t.slug, t.slug, have, () => {
      const c: string[] = [];
      if (t.registrationMode && t.registrationMode !== have!.registrationMode) c.push('registrationMode');
      // The control tenant is the environment's own: apply adds to it and never takes it over.
      if (!have!.managed && !have!.isControl) c.push('adopt');
      return c;
    });
    for (const r of t.resources ?? []) {
      const hr = have?.resources.find((x) => x.audience === r.audience);
      add('resource', t.slug, r.audience, hr, () => resourceChanges(r, hr!));
      const cs = credentialStep(t.slug, r, hr, secrets);
      if (cs) steps.push(cs);
    }
    for (const c of t.clients ?? []) {
      const hc = have?.clients.find((x) => x.clientId === c.clientId);
      add('client', t.slug, c.clientId, hc, () => clientChanges(c, hc!, secrets));
    }
    for (const p of t.permissions ?? []) {
      const hp = have?.permissions.find((x) => x.key === p.key);
      add('permission', t.slug, p.key, hp, () => [
        ...(hp!.displayName !== p.displayName ? ['displayName'] : []),
        ...(hp!.status !== 'ACTIVE' ? ['status'] : []),
        ...(hp!.managed ? [] : ['adopt']),
      ]);
    }
    for (const r of t.roles ?? []) {
      const hr = have?.roles.find((x) => x.key === r.key);
      if (hr && hr.scope !== r.scope) throw new PlanError(`tenant ${t.slug}: role ${r.key} exists with scope ${hr.scope}; apply cannot change a role's scope to ${r.scope}`);
      add('role', t.slug, r.key, hr, () => roleChanges(r, hr!));
    }
  }
  for (const o of file.operators ?? []) {
    const email = o.email.toLowerCase();
    const have = current.operators.get(email);
    if (!have && !o.passwordEnv) throw new PlanError(`operator ${email}: a new operator needs a password to sign in with: name its variable in passwordEnv`);
    add('operator', 'control', email, have, () => [...(have!.isAdministrator ? [] : ['administrator']), ...(have!.passwordMatches === false ? ['password'] : [])]);
  }
  return steps;
}

import type { AuditActor } from '../../platform/audit/audit';
import { digest, newSecret } from '../../platform/crypto';
import { DomainError } from '../../platform/errors';
import type { Services } from '../../services';
import { OPERATOR_PERMISSIONS } from '../directory/permissions';
import type { ApplyClient, ApplyFile } from './apply-schema';
import { planApply, type CurrentState, type CurrentTenant, type Step } from './apply-plan';
import { ensureOperator } from './operators';

/**
 * `engage apply`: reads the environment, plans (apply-plan.ts), then carries the plan out.
 * Creations go through the services' own create functions (validation, conflicts, generated
 * secrets). What only apply does (the configuration-managed mark, a managed object's fields
 * replaced as declared, a secret from a variable) goes through the owning services' `…In(tx)`
 * functions, each write with apply's audit event in the same transaction.
 */

export interface GeneratedSecret {
  kind: 'client' | 'credential';
  tenant: string;
  clientId?: string;
  credentialId?: string;
  resourceUri?: string;
  /** Null: the secret is the one in the variable `secretEnv` names (the id is still new). */
  secret: string | null;
  secretEnv?: string;
}

export interface ApplyResult {
  dryRun: boolean;
  changed: boolean;
  steps: Step[];
  /** New credentials and generated secrets, shown this once (none on a dry run). */
  secrets: GeneratedSecret[];
}

const MIN_SECRET = 32;

/** The variables the file names, read and checked before anything is planned. */
function readSecrets(file: ApplyFile, env: NodeJS.ProcessEnv): { digests: Map<string, string>; values: Map<string, string> } {
  const values = new Map<string, string>();
  const need = (name: string | undefined, at: string, min: number) => {
    if (!name) return;
    const v = env[name];
    if (v === undefined || v === '') throw new DomainError('invalid', 'invalid_request', `${at}: environment variable ${name} is not set`);
    if (v.length < min) throw new DomainError('invalid', 'invalid_request', `${at}: environment variable ${name} must hold at least ${min} characters`);
    values.set(name, v);
  };
  for (const [i, t] of (file.tenants ?? []).entries()) {
    for (const [j, r] of (t.resources ?? []).entries()) need(r.credential?.secretEnv, `tenants[${i}].resources[${j}].credential.secretEnv`, MIN_SECRET);
    for (const [j, c] of (t.clients ?? []).entries()) need(c.secretEnv, `tenants[${i}].clients[${j}].secretEnv`, MIN_SECRET);
  }
  for (const [i, o] of (file.operators ?? []).entries()) need(o.passwordEnv, `operators[${i}].passwordEnv`, 1);
  const digests = new Map([...values].map(([k, v]) => [k, digest(v)]));
  return { digests, values };
}

async function allPages<T>(read: (page: { page: number; size: number }) => Promise<{ items: T[]; hasMore: boolean }>): Promise<T[]> {
  const out: T[] = [];
  for (let page = 0; ; page++) {
    const p = await read({ page, size: 200 });
    out.push(...p.items);
    if (!p.hasMore) return out;
  }
}

async function readTenant(services: Services, slug: string): Promise<CurrentTenant | undefined> {
  const t = await services.tenants.get(slug).catch((e: unknown) => {
    if (e instanceof DomainError && e.code === 'unknown_tenant') return undefined;
    throw e;
  });
  if (!t || t.slug !== slug) return undefined;
  const resources: CurrentTenant['resources'] = [];
  for (const r of await services.resources.list(t.id)) {
    const row = (await services.resources.findByUri(t.id, r.uri))!;
    const cred = await services.credentials.managedOf(t.id, row.id);
    resources.push({ ...r, id: row.id, managed: await services.resources.isManaged(t.id, row.id), credentialDigest: cred?.secretDigest ?? null, credentialId: cred?.id ?? null });
  }
  const clients: CurrentTenant['clients'] = [];
  for (const c of await services.clients.list(t.id)) {
    const full = (await services.clients.find(t.id, c.clientId))!;
    clients.push({ ...c, defaultResource: c.defaultResource ?? null, managed: c.configurationManaged, secretDigest: full.secretDigest });
  }
  const managed = await services.directory.managedKeys(t.id);
  const permissions = (await allPages((p) => services.directory.permissions(t.id, p))).map((p) => ({ ...p, managed: managed.permissions.has(p.key) }));
  const roles: CurrentTenant['roles'] = [];
  for (const r of await allPages((p) => services.directory.roles(t.id, p))) {
    const perms = await allPages((p) => services.directory.rolePermissions(t.id, r.key, p));
    roles.push({ ...r, managed: managed.roles.has(r.key), permissions: perms.map((p) => p.key) });
  }
  return { id: t.id, registrationMode: t.registrationMode, managed: t.configurationManaged, isControl: t.isControl, resources, clients, permissions, roles };
}

export async function readState(services: Services, file: ApplyFile, passwords: ReadonlyMap<string, string>): Promise<CurrentState> {
  const tenants = new Map<string, CurrentTenant>();
  for (const t of file.tenants ?? []) {
    const have = await readTenant(services, t.slug);
    if (have) tenants.set(t.slug, have);
  }
  const operators: CurrentState['operators'] = new Map();
  const control = (await services.tenants.control())!;
  for (const o of file.operators ?? []) {
    const user = await services.users.findByEmail(control.id, o.email);
    if (!user) continue;
    let isAdministrator = true;
    for (const key of OPERATOR_PERMISSIONS) if (!(await services.directory.hasPermission(control.id, user.subject, key))) isAdministrator = false;
    const password = o.passwordEnv ? passwords.get(o.passwordEnv) : undefined;
    const passwordMatches = password === undefined ? undefined : await services.users.isCurrentPassword(user, password);
    operators.set(user.email, { email: user.email, isAdministrator, passwordMatches });
  }
  return { tenants, operators };
}

const clientInput = (c: ApplyClient) => {
  const { secretEnv: _secretEnv, ...input } = c;
  return input;
};

/** Plans, and unless `dryRun`, carries the plan out. */
export async function applyConfiguration(services: Services, file: ApplyFile, opts: { dryRun: boolean; env: NodeJS.ProcessEnv; actor: AuditActor }): Promise<ApplyResult> {
  const { digests, values } = readSecrets(file, opts.env);
  const state = await readState(services, file, values);
  const steps = planApply(file, state, digests);
  const changed = steps.some((s) => s.action !== 'unchanged');
  const result: ApplyResult = { dryRun: opts.dryRun, changed, steps, secrets: [] };
  if (opts.dryRun || !changed) return result;

  const stepOf = (kind: Step['kind'], tenant: string, key: string) => steps.find((s) => s.kind === kind && s.tenant === tenant && s.key === key)!;
  const { store } = services;
  const now = () => new Date().toISOString();
  /** One of apply's own writes, with its audit event in the same transaction. */
  const write = (tenantId: string, action: string, targetType: string, targetId: string, step: Step, fn: (tx: typeof store) => Promise<unknown>) =>
    store.tx(async (tx) => {
      await fn(tx as unknown as typeof store);
      await tx.audit.record(opts.actor, { tenantId, action, targetType, targetId, details: { source: 'apply', changes: step.action === 'create' ? ['adopt'] : step.changes } });
    });

  for (const t of file.tenants ?? []) {
    const ts = stepOf('tenant', t.slug, t.slug);
    let tenantId = state.tenants.get(t.slug)?.id;
    if (ts.action === 'create') tenantId = (await services.tenants.create({ slug: t.slug, registrationMode: t.registrationMode }, opts.actor)).id;
    const id = tenantId!;
    if (ts.action !== 'unchanged')
      await write(id, ts.action === 'create' ? 'tenant.configuration_managed' : 'tenant.updated', 'tenant', id, ts, async (tx) => {
        if (ts.changes.includes('registrationMode')) await services.tenants.setRegistrationModeIn(tx, id, t.registrationMode as 'CONTROLLED' | 'SELF_SERVICE', now());
        if (ts.action === 'create' || ts.changes.includes('adopt')) await services.tenants.markManagedIn(tx, id);
      });
    const have = state.tenants.get(t.slug);

    for (const r of t.resources ?? []) {
      const rs = stepOf('resource', t.slug, r.audience);
      if (rs.action === 'create') await services.resources.create(id, { uri: r.uri, audience: r.audience, scopes: r.scopes }, opts.actor);
      const row = rs.action === 'create' ? (await services.resources.findByUri(id, r.uri))! : have!.resources.find((x) => x.audience === r.audience)!;
      if (rs.action !== 'unchanged')
        await write(id, rs.action === 'create' ? 'resource.configuration_managed' : 'resource.updated', 'resource', r.uri, rs, async (tx) => {
          if (rs.action === 'update') await services.resources.replaceManagedIn(tx, id, row.id, r.uri, r.scopes);
          await services.resources.markManagedIn(tx, id, row.id);
        });
      if (!r.credential) continue;
      const cs = stepOf('credential', t.slug, r.audience);
      const env = r.credential.secretEnv;
      if (cs.action === 'create') {
        const issued = await services.credentials.issue(id, r.uri, opts.actor);
        if (!env) result.secrets.push({ kind: 'credential', tenant: t.slug, resourceUri: r.uri, credentialId: issued.credentialId, secret: issued.credentialSecret });
        await write(id, 'credential.configuration_managed', 'credential', issued.credentialId, cs, async (tx) => {
          if (env) await services.credentials.setSecretDigestIn(tx, id, issued.credentialId, digests.get(env)!);
          await services.credentials.markManagedIn(tx, id, issued.credentialId);
        });
        if (env) result.secrets.push({ kind: 'credential', tenant: t.slug, resourceUri: r.uri, credentialId: issued.credentialId, secret: null, secretEnv: env });
      } else if (cs.action === 'update') {
        const credentialId = have!.resources.find((x) => x.audience === r.audience)!.credentialId!;
        await write(id, 'credential.updated', 'credential', credentialId, cs, (tx) => services.credentials.setSecretDigestIn(tx, id, credentialId, digests.get(env!)!));
      }
    }

    for (const c of t.clients ?? []) {
      const cs = stepOf('client', t.slug, c.clientId);
      if (cs.action === 'unchanged') continue;
      let generated: string | null = null;
      if (cs.action === 'create') generated = (await services.clients.create(id, clientInput(c), opts.actor)).clientSecret;
      else if (cs.changes.includes('secret') && c.tokenEndpointAuthMethod === 'CLIENT_SECRET_BASIC' && !c.secretEnv) generated = newSecret();
      const secretDigest =
        c.tokenEndpointAuthMethod !== 'CLIENT_SECRET_BASIC' ? null : c.secretEnv ? digests.get(c.secretEnv)! : generated !== null ? digest(generated) : undefined;
      await write(id, cs.action === 'create' ? 'client.configuration_managed' : 'client.updated', 'client', c.clientId, cs, async (tx) => {
        if (cs.action === 'update')
          await services.clients.replaceManagedIn(tx, id, c.clientId, {
            displayName: c.displayName,
            applicationType: c.applicationType,
            tokenEndpointAuthMethod: c.tokenEndpointAuthMethod,
            consentPolicy: c.consentPolicy,
            redirectUris: JSON.stringify(c.redirectUris),
            scopes: JSON.stringify(c.scopes),
            defaultResource: c.defaultResource ?? null,
            nativeAuthenticationEnabled: c.nativeAuthenticationEnabled ?? false,
            webOrigins: c.webOrigins ? JSON.stringify(c.webOrigins) : null,
            postLogoutRedirectUris: c.postLogoutRedirectUris?.length ? JSON.stringify([...new Set(c.postLogoutRedirectUris)]) : null,
            grantTypes: c.grantTypes?.length ? JSON.stringify([...new Set(c.grantTypes)]) : null,
            updatedAt: now(),
          });
        if (secretDigest !== undefined && (cs.action === 'create' ? !!c.secretEnv : cs.changes.includes('secret')))
          await services.clients.setSecretDigestIn(tx, id, c.clientId, secretDigest, now());
        await services.clients.markManagedIn(tx, id, c.clientId);
      });
      if (generated !== null && !c.secretEnv) result.secrets.push({ kind: 'client', tenant: t.slug, clientId: c.clientId, secret: generated });
    }

    for (const p of t.permissions ?? []) {
      const ps = stepOf('permission', t.slug, p.key);
      if (ps.action === 'unchanged') continue;
      if (ps.action === 'create') await services.directory.createPermission(id, { key: p.key, displayName: p.displayName }, opts.actor);
      await write(id, 'directory.permission.updated', 'directory_permission', p.key, ps, (tx) => services.directory.replaceManagedPermissionIn(tx, id, p.key, p.displayName));
    }

    for (const r of t.roles ?? []) {
      const rs = stepOf('role', t.slug, r.key);
      if (rs.action === 'unchanged') continue;
      if (rs.action === 'create') await services.directory.createRole(id, { key: r.key, displayName: r.displayName, scope: r.scope }, opts.actor);
      const held = rs.action === 'create' ? [] : have!.roles.find((x) => x.key === r.key)!.permissions;
      const want = r.permissions ?? [];
      for (const k of want.filter((k) => !held.includes(k))) await services.directory.addRolePermission(id, r.key, { key: k }, opts.actor, { allowManaged: true });
      for (const k of held.filter((k) => !want.includes(k))) await services.directory.removeRolePermission(id, r.key, k, opts.actor, { allowManaged: true });
      await write(id, 'directory.role.updated', 'directory_role', r.key, rs, (tx) => services.directory.replaceManagedRoleIn(tx, id, r.key, r.displayName));
    }
  }

  for (const o of file.operators ?? []) {
    const os = stepOf('operator', 'control', o.email.toLowerCase());
    if (os.action === 'unchanged') continue;
    const password = o.passwordEnv && (os.action === 'create' || os.changes.includes('password')) ? values.get(o.passwordEnv) : undefined;
    await ensureOperator(services, { email: o.email, password }, opts.actor);
  }
  return result;
}

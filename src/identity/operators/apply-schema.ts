import { Enum, ScopeToken, Strict, T, checker, type Static } from '../../platform/http/schema';
import { ClientInput } from '../clients/schemas';
import { PermissionCreate, RoleCreate } from '../directory/schemas';
import { ResourceInput } from '../resources/schemas';
import { Slug } from '../tenants/schemas';
import { Email } from '../users/schemas';

/**
 * The file of `engage apply -f engage.json` (docs/apply.md): the objects an environment must
 * have, by their natural keys (tenant slug, resource audience, client id, permission and role
 * key, operator email). Each object's fields are the management API's request fields (spec 03),
 * checked by the same schemas; secrets never appear in the file, only the names of the
 * environment variables that hold them.
 */

/** An environment variable's name (POSIX: letters, digits, underscore; not starting with a digit). */
const EnvName = () => T.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', maxLength: 128, description: 'name of an environment variable holding the secret' });

const ApplyResource = Strict({
  ...ResourceInput.properties,
  scopes: T.Array(ScopeToken(), { uniqueItems: true }),
  /**
   * A resource-server credential (introspection, revoke-application-grants) apply keeps for this
   * resource: its secret from `secretEnv`, or generated once and printed at creation.
   */
  credential: T.Optional(Strict({ secretEnv: T.Optional(EnvName()) })),
});

const ApplyClient = Strict({
  ...ClientInput.properties,
  redirectUris: T.Array(ClientInput.properties.redirectUris.items, { minItems: 1, uniqueItems: true }),
  scopes: T.Array(ScopeToken(), { uniqueItems: true }),
  /** CLIENT_SECRET_BASIC only: the secret from this variable; absent: generated once and printed at creation. */
  secretEnv: T.Optional(EnvName()),
});

const ApplyRole = Strict({
  ...RoleCreate.properties,
  /** The role's permissions, exactly: apply adds the missing and removes the others. */
  permissions: T.Optional(T.Array(PermissionCreate.properties.key, { uniqueItems: true })),
});

const ApplyTenant = Strict({
  slug: Slug(),
  registrationMode: T.Optional(Enum(['CONTROLLED', 'SELF_SERVICE'])),
  resources: T.Optional(T.Array(ApplyResource)),
  clients: T.Optional(T.Array(ApplyClient)),
  permissions: T.Optional(T.Array(PermissionCreate)),
  roles: T.Optional(T.Array(ApplyRole)),
});

const ApplyOperator = Strict({
  email: Email(),
  /** Needed to create the operator (they sign in with it); for an existing one, sets it when it differs. */
  passwordEnv: T.Optional(EnvName()),
});

export const ApplyFile = Strict({
  $schema: T.Optional(T.String()),
  version: T.Literal(1, { description: 'format version: 1' }),
  tenants: T.Optional(T.Array(ApplyTenant)),
  operators: T.Optional(T.Array(ApplyOperator)),
});

export type ApplyFile = Static<typeof ApplyFile>;
export type ApplyTenant = Static<typeof ApplyTenant>;
export type ApplyResource = Static<typeof ApplyResource>;
export type ApplyClient = Static<typeof ApplyClient>;
export type ApplyRole = Static<typeof ApplyRole>;
export const checkApplyFile = checker(ApplyFile);

/** `path: reason` for the first problem of the file, or null: the schema, then what a schema cannot say (duplicate keys). */
export function applyFileProblem(value: unknown): string | null {
  const bad = checkApplyFile(value);
  if (bad) return bad.message;
  const file = value as ApplyFile;
  const dup = (items: readonly { [k: string]: unknown }[] | undefined, key: string, at: string): string | null => {
    const seen = new Set<unknown>();
    for (const [i, item] of (items ?? []).entries()) {
      const v = typeof item[key] === 'string' ? (item[key] as string).toLowerCase() : item[key];
      if (seen.has(v)) return `${at}[${i}].${key}: duplicate ${String(item[key])}`;
      seen.add(v);
    }
    return null;
  };
  const problems: (string | null)[] = [dup(file.tenants, 'slug', 'tenants'), dup(file.operators, 'email', 'operators')];
  for (const [i, t] of (file.tenants ?? []).entries()) {
    const at = `tenants[${i}]`;
    problems.push(dup(t.resources, 'uri', `${at}.resources`), dup(t.resources, 'audience', `${at}.resources`), dup(t.clients, 'clientId', `${at}.clients`));
    problems.push(dup(t.permissions, 'key', `${at}.permissions`), dup(t.roles, 'key', `${at}.roles`));
    for (const [j, c] of (t.clients ?? []).entries()) {
      if (c.secretEnv && c.tokenEndpointAuthMethod !== 'CLIENT_SECRET_BASIC') problems.push(`${at}.clients[${j}].secretEnv: only a CLIENT_SECRET_BASIC client has a secret`);
      if (c.grantTypes?.includes('client_credentials') && c.tokenEndpointAuthMethod !== 'CLIENT_SECRET_BASIC')
        problems.push(`${at}.clients[${j}].grantTypes: client_credentials needs a CLIENT_SECRET_BASIC client`);
      if (c.defaultResource && !(t.resources ?? []).some((r) => r.uri === c.defaultResource) && t.slug !== 'control')
        problems.push(`${at}.clients[${j}].defaultResource: ${c.defaultResource} is not among the tenant's resources in this file`);
    }
    const declared = new Set((t.permissions ?? []).map((p) => p.key));
    for (const [j, r] of (t.roles ?? []).entries()) {
      const perms = r.permissions ?? [];
      const k = perms.findIndex((p) => !declared.has(p));
      if (k >= 0) problems.push(`${at}.roles[${j}].permissions[${k}]: permission ${perms[k]} is not among the tenant's permissions in this file`);
    }
  }
  return problems.find((p) => p !== null) ?? null;
}

/** The JSON Schema of the file, for editors (`engage apply --print-schema`). */
export const applyJsonSchema = () => JSON.parse(JSON.stringify(ApplyFile)) as unknown;

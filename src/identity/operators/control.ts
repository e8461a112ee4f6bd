import type { Clock } from '../../platform/clock';
import type { TxRunner } from '../../platform/store/store';
import { UniqueViolation } from '../../platform/store/sql';
import { DomainError } from '../../platform/errors';
import { DEVICE_CODE } from '../clients/schemas';
import type { ClientService, ClientTx } from '../clients/service';
import type { ResourceService, ResourceTx } from '../resources/service';
import type { TenantView } from '../tenants/service';
import { ADMIN_PERMISSIONS } from '../directory/permissions';
import { SYSTEM_ACTOR } from '../audit';
import { ENGAGE_ADMIN_API, ENGAGE_ADMIN_SCOPES } from '../../platform/operator-apis';

/** Spec 03 "Authentication": the management API's audience and its five scopes. */
export const ADMIN_API_AUDIENCE = 'identity-admin-api';
export const ADMIN_API_SCOPES: readonly string[] = Object.values(ADMIN_PERMISSIONS);

/** The CLI's public native client in the control tenant (`engage login`). */
export const CLI_CLIENT_ID = 'engage-cli';
/**
 * RFC 8252 §7.3: a loopback IP redirect URI; the CLI listens on an ephemeral port and the
 * authorization server matches this URI with any port for a NATIVE client (oauth/redirect-uri.ts).
 */
export const CLI_REDIRECT_URI = 'http://127.0.0.1/callback';
// `email`: the ID token names the operator, which `engage login` prints (issue 23 point 10).
export const CLI_IDENTITY_SCOPES = ['openid', 'email', 'offline_access', ...ADMIN_API_SCOPES];
/** What `engage-cli` may ask for: also the engagement administration API's four (issue 24), for `engage login --api engage`. */
export const CLI_SCOPES = [...CLI_IDENTITY_SCOPES, ...ENGAGE_ADMIN_SCOPES];

/** The web console's public browser client in the control tenant (issue 25): authorization code with PKCE, tokens kept in memory. */
export const CONSOLE_CLIENT_ID = 'engage-console';
/** The console's scopes: the CLI's, for the two administration APIs (one grant per API, RFC 8707). */
export const CONSOLE_SCOPES = CLI_SCOPES;
/** Where the console's sign-in and sign-out return, under its public URL (config publicUrl + consolePath). */
export const consoleRedirects = (consoleUrl: string) => ({ redirectUris: [`${consoleUrl}/callback`], postLogoutRedirectUris: [`${consoleUrl}/signed-out`] });

/** The management API's resource URI: its root under the control issuer (spec 03). */
export const adminResourceUri = (controlIssuer: string) => `${controlIssuer}/identity/admin`;
/** The engagement administration API's resource URI (issue 24). */
export const engageAdminResourceUri = (controlIssuer: string) => `${controlIssuer}${ENGAGE_ADMIN_API.root}`;

/** The control tenant's API resources: the management API and the engagement administration API. */
const controlApis = (controlIssuer: string) => [
  { uri: adminResourceUri(controlIssuer), audience: ADMIN_API_AUDIENCE, scopes: ADMIN_API_SCOPES },
  { uri: engageAdminResourceUri(controlIssuer), audience: ENGAGE_ADMIN_API.audience, scopes: ENGAGE_ADMIN_SCOPES },
];

/**
 * The control tenant's system objects, created at initialisation and checked at every start
 * and CLI command (so databases created before them get them too): the resources
 * `identity-admin-api` and `engage-admin-api` and the public native client `engage-cli`. Both are marked
 * configuration-managed, so the management API refuses to edit what every operator's sign-in
 * depends on (docs/decisions.md). Idempotent and safe when two processes start at once.
 */
export async function ensureControlObjects(
  deps: { store: TxRunner<ResourceTx & ClientTx>; resources: ResourceService; clients: ClientService; clock: Clock },
  control: TenantView,
  /**
   * `followPublicUrl: false`: URIs already stored stay as they are (a CLI command run without a
   * public URL of its own must not move the running server's resources to 127.0.0.1:8080;
   * an outside review). Missing objects and scopes are still made.
   */
  opts: { followPublicUrl: boolean; consoleUrl?: string } = { followPublicUrl: true },
): Promise<void> {
  const { store } = deps;
  const tenantId = control.id;
  for (const api of controlApis(control.issuer)) {
    let resource = await deps.resources.findByAudience(tenantId, api.audience);
    if (!resource) {
      await tolerateTwin(() => deps.resources.create(tenantId, { uri: api.uri, audience: api.audience, scopes: [...api.scopes] }, SYSTEM_ACTOR));
      resource = (await deps.resources.findByAudience(tenantId, api.audience))!;
    }
    const current = new Set<string>(resource.scopes);
    const resourceId = resource.id;
    // The public URL (so the control issuer) is configuration: the resource follows it, as do
    // scopes added by a newer version.
    const target = opts.followPublicUrl ? api.uri : resource.uri;
    if (resource.uri !== target || api.scopes.some((s) => !current.has(s))) {
      const scopes = [...current, ...api.scopes];
      await store.tx((tx) => deps.resources.replaceManagedIn(tx, tenantId, resourceId, target, scopes));
    }
    if (!(await deps.resources.isManaged(tenantId, resourceId))) await store.tx((tx) => deps.resources.markManagedIn(tx, tenantId, resourceId));
  }

  // The CLI client's default resource: the management API's, as stored now.
  const uri = (await deps.resources.findByAudience(tenantId, ADMIN_API_AUDIENCE))!.uri;
  const client = await deps.clients.find(tenantId, CLI_CLIENT_ID);
  if (!client) {
    await tolerateTwin(() =>
      deps.clients.create(tenantId, {
        clientId: CLI_CLIENT_ID,
        displayName: 'engage CLI',
        applicationType: 'NATIVE',
        tokenEndpointAuthMethod: 'NONE',
        // The operator runs the CLI; a consent screen would ask them about their own tool.
        consentPolicy: 'PRE_AUTHORIZED',
        redirectUris: [CLI_REDIRECT_URI],
        scopes: CLI_SCOPES,
        defaultResource: uri,
        // `engage login --device` on a server without a browser (RFC 8628, issue 23).
        grantTypes: [DEVICE_CODE],
      }, SYSTEM_ACTOR),
    );
  } else if (client.defaultResource !== uri || CLI_SCOPES.some((sc) => !client.scopes.includes(sc)) || !client.grantTypes.includes(DEVICE_CODE)) {
    // As for the resource: the public URL moves the default resource, a newer version adds scopes (and the device grant).
    const scopes = JSON.stringify([...new Set([...client.scopes, ...CLI_SCOPES])]);
    const grantTypes = JSON.stringify([...new Set([...client.grantTypes, DEVICE_CODE])]);
    await store.tx((tx) =>
      deps.clients.replaceManagedIn(tx, tenantId, CLI_CLIENT_ID, { defaultResource: uri, scopes, grantTypes, updatedAt: deps.clock.now().toISOString() }),
    );
  }
  if (!client?.configurationManaged) await store.tx((tx) => deps.clients.markManagedIn(tx, tenantId, CLI_CLIENT_ID));
  if (opts.consoleUrl) await ensureConsoleClient(deps, tenantId, uri, opts.consoleUrl, opts.followPublicUrl);
}

/**
 * The console's client: public (no secret; PKCE is required of public clients), pre-authorized
 * (the operator signs in to their own tool), its redirects under the console's URL, which
 * follows the configuration as the resources do.
 */
async function ensureConsoleClient(
  deps: { store: TxRunner<ResourceTx & ClientTx>; clients: ClientService; clock: Clock },
  tenantId: string,
  defaultResource: string,
  consoleUrl: string,
  followPublicUrl: boolean,
): Promise<void> {
  const wanted = consoleRedirects(consoleUrl);
  const webOrigins = [new URL(consoleUrl).origin];
  const client = await deps.clients.find(tenantId, CONSOLE_CLIENT_ID);
  if (!client) {
    await tolerateTwin(() =>
      deps.clients.create(tenantId, {
        clientId: CONSOLE_CLIENT_ID,
        displayName: 'engage console',
        applicationType: 'WEB',
        tokenEndpointAuthMethod: 'NONE',
        consentPolicy: 'PRE_AUTHORIZED',
        ...wanted,
        webOrigins,
        scopes: [...CONSOLE_SCOPES],
        defaultResource,
      }, SYSTEM_ACTOR),
    );
  } else if (
    followPublicUrl &&
    (client.defaultResource !== defaultResource ||
      JSON.stringify(client.redirectUris) !== JSON.stringify(wanted.redirectUris) ||
      JSON.stringify(client.postLogoutRedirectUris) !== JSON.stringify(wanted.postLogoutRedirectUris) ||
      CONSOLE_SCOPES.some((sc) => !client.scopes.includes(sc)))
  ) {
    const scopes = JSON.stringify([...new Set([...client.scopes, ...CONSOLE_SCOPES])]);
    await deps.store.tx((tx) =>
      deps.clients.replaceManagedIn(tx, tenantId, CONSOLE_CLIENT_ID, {
        defaultResource,
        scopes,
        redirectUris: JSON.stringify(wanted.redirectUris),
        postLogoutRedirectUris: JSON.stringify(wanted.postLogoutRedirectUris),
        webOrigins: JSON.stringify(webOrigins),
        updatedAt: deps.clock.now().toISOString(),
      }),
    );
  }
  if (!client?.configurationManaged) await deps.store.tx((tx) => deps.clients.markManagedIn(tx, tenantId, CONSOLE_CLIENT_ID));
}

/** A concurrent process created the same object first: what we wanted exists. */
async function tolerateTwin(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (e) {
    if (e instanceof UniqueViolation || (e instanceof DomainError && e.kind === 'conflict')) return;
    throw e;
  }
}

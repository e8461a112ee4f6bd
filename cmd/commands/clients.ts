import { Option, type Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { cliActor } from '../../src/identity/audit';
import { ClientErrors } from '../../src/identity/clients/errors';
import { DEVICE_CODE, OPT_IN_GRANTS, type OptInGrant } from '../../src/identity/clients/schemas';

const COLUMNS = ['clientId', 'displayName', 'applicationType', 'tokenEndpointAuthMethod', 'consentPolicy', 'redirectUris', 'webOrigins', 'postLogoutRedirectUris', 'grantTypes', 'scopes', 'defaultResource', 'nativeAuthenticationEnabled', 'status', 'createdAt'];

/** `--scope "openid email" --scope api.read` and `--scope openid email` all mean the same. */
export function splitScopes(values: string[]): string[] {
  return [...new Set(values.flatMap((v) => v.split(/\s+/)).filter(Boolean))];
}

interface CreateOpts extends CommonOptions {
  tenant: string;
  clientId: string;
  name: string;
  type: 'WEB' | 'NATIVE';
  auth: 'CLIENT_SECRET_BASIC' | 'NONE';
  redirectUri: string[];
  scope: string[];
  consent: 'EXPLICIT' | 'PRE_AUTHORIZED';
  defaultResource?: string;
  nativeAuth?: boolean;
  webOrigin?: string[];
  postLogoutRedirectUri?: string[];
  grantType?: string[];
}

interface UpdateOpts extends CommonOptions {
  tenant: string;
  clientId: string;
  name?: string;
  type?: 'WEB' | 'NATIVE';
  auth?: 'CLIENT_SECRET_BASIC' | 'NONE';
  redirectUri?: string[];
  scope?: string[];
  consent?: 'EXPLICIT' | 'PRE_AUTHORIZED';
  defaultResource?: string;
  noDefaultResource?: boolean;
  nativeAuth?: boolean;
  webOrigin?: string[];
  noWebOrigins?: boolean;
  defaultWebOrigins?: boolean;
  postLogoutRedirectUri?: string[];
  grantType?: string[];
}

const LOGOUT_HELP = 'URI RP-initiated logout may send the browser back to (exact match; registering one makes discovery advertise end_session_endpoint); repeatable';

const GRANT_HELP = 'opt in to a grant beyond authorization_code and refresh_token: client_credentials (machine clients; confidential only) or device_code (RFC 8628, devices without a browser); repeatable';

const grantOption = (help: string) => new Option('--grant-type <grant...>', help).choices([...OPT_IN_GRANTS, 'device_code']);

/** `device_code` is short for the RFC 8628 grant type's URN. */
const grantTypes = (values: string[]): OptInGrant[] => [...new Set(values.map((v) => (v === 'device_code' ? DEVICE_CODE : v) as OptInGrant))];

const WEB_ORIGIN_HELP = 'browser origin allowed to call the token, revocation and userinfo endpoints (CORS), e.g. https://app.example.com; repeatable (default: the origins of the redirect URIs)';

export function registerClients(program: Command): void {
  const clients = program.command('clients').description("manage a tenant's OAuth clients");

  withCommon(clients.command('create').description('register a client; a confidential client\'s secret is printed once'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .requiredOption('--client-id <id>', 'client identifier')
    .requiredOption('--name <name>', 'display name')
    .addOption(new Option('--type <type>', 'application type').choices(['WEB', 'NATIVE']).makeOptionMandatory())
    .addOption(new Option('--auth <method>', 'token endpoint authentication').choices(['CLIENT_SECRET_BASIC', 'NONE']).makeOptionMandatory())
    .requiredOption('--redirect-uri <uri...>', 'registered redirect URIs (exact match)')
    .requiredOption('--scope <scope...>', 'registered scopes, e.g. "openid email offline_access"')
    .addOption(new Option('--consent <policy>', 'consent policy').choices(['EXPLICIT', 'PRE_AUTHORIZED']).default('EXPLICIT'))
    .option('--default-resource <uri>', 'resource used when a request names none')
    .option('--native-auth', 'enable the native authentication adapter for this client')
    .option('--web-origin <origin...>', WEB_ORIGIN_HELP)
    .option('--post-logout-redirect-uri <uri...>', LOGOUT_HELP)
    .addOption(grantOption(GRANT_HELP))
    .action(
      action(async (opts: CreateOpts) => {
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          const issued = await services.clients.create(tenantId, {
            clientId: opts.clientId,
            displayName: opts.name,
            applicationType: opts.type,
            tokenEndpointAuthMethod: opts.auth,
            consentPolicy: opts.consent,
            redirectUris: opts.redirectUri,
            scopes: splitScopes(opts.scope),
            defaultResource: opts.defaultResource ?? null,
            nativeAuthenticationEnabled: !!opts.nativeAuth,
            webOrigins: opts.webOrigin ?? null,
            postLogoutRedirectUris: opts.postLogoutRedirectUri ?? [],
            grantTypes: grantTypes(opts.grantType ?? []),
          }, cliActor());
          output(json, issued, ['clientId', 'clientSecret']);
          if (!json && issued.clientSecret) process.stderr.write('The client secret is shown only now; store it safely.\n');
        });
      }),
    );

  withCommon(clients.command('update').description("change a client's settings (the management API's PUT: what is not given stays; the secret is kept)"))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .requiredOption('--client-id <id>', 'client identifier')
    .option('--name <name>', 'display name')
    .addOption(new Option('--type <type>', 'application type').choices(['WEB', 'NATIVE']))
    .addOption(new Option('--auth <method>', 'token endpoint authentication (to CLIENT_SECRET_BASIC: a secret is printed once)').choices(['CLIENT_SECRET_BASIC', 'NONE']))
    .option('--redirect-uri <uri...>', 'registered redirect URIs; replaces the list')
    .option('--scope <scope...>', 'registered scopes; replaces the list')
    .addOption(new Option('--consent <policy>', 'consent policy').choices(['EXPLICIT', 'PRE_AUTHORIZED']))
    .option('--default-resource <uri>', 'resource used when a request names none')
    .option('--no-default-resource', 'no default resource')
    .option('--native-auth', 'enable the native authentication adapter')
    .option('--no-native-auth', 'disable the native authentication adapter')
    .option('--web-origin <origin...>', WEB_ORIGIN_HELP.replace('; repeatable (default: the origins of the redirect URIs)', '; repeatable; replaces the list'))
    .option('--no-web-origins', 'no browser origin at all')
    .option('--default-web-origins', 'back to the default: the origins of the redirect URIs')
    .option('--post-logout-redirect-uri <uri...>', `${LOGOUT_HELP}; replaces the list`)
    .option('--no-post-logout-redirect-uris', 'no post-logout redirect URI at all')
    .addOption(grantOption(`${GRANT_HELP}; replaces the list`))
    .option('--no-grant-types', 'no opt-in grant at all')
    .action(
      action(async (opts: UpdateOpts) => {
        // commander: --no-x sets x to false; with both --x and --no-x defined, x is undefined unless given.
        const raw = opts as unknown as { webOrigins?: boolean; defaultResource?: string | boolean; nativeAuth?: boolean; postLogoutRedirectUris?: boolean; grantTypes?: boolean };
        const none = raw.webOrigins === false;
        const changes = [opts.name, opts.type, opts.auth, opts.redirectUri, opts.scope, opts.consent, raw.defaultResource, raw.nativeAuth, opts.webOrigin, opts.defaultWebOrigins, opts.postLogoutRedirectUri, raw.postLogoutRedirectUris === false ? false : undefined, opts.grantType, raw.grantTypes === false ? false : undefined];
        if (!none && changes.every((v) => v === undefined)) throw new Error('give at least one setting to change');
        if ([!!opts.webOrigin, none, !!opts.defaultWebOrigins].filter(Boolean).length > 1) {
          throw new Error('give at most one of --web-origin, --no-web-origins or --default-web-origins');
        }
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          const current = (await services.clients.list(tenantId)).find((c) => c.clientId === opts.clientId);
          if (!current) throw ClientErrors.unknown(opts.clientId);
          const webOrigins = opts.webOrigin ?? (none ? [] : opts.defaultWebOrigins ? null : current.webOrigins);
          const defaultResource = raw.defaultResource === false ? null : typeof raw.defaultResource === 'string' ? raw.defaultResource : current.defaultResource;
          const nativeAuthenticationEnabled = raw.nativeAuth ?? current.nativeAuthenticationEnabled;
          const issued = await services.clients.replace(tenantId, opts.clientId, {
            clientId: opts.clientId,
            displayName: opts.name ?? current.displayName,
            applicationType: opts.type ?? current.applicationType,
            tokenEndpointAuthMethod: opts.auth ?? current.tokenEndpointAuthMethod,
            consentPolicy: opts.consent ?? current.consentPolicy,
            redirectUris: opts.redirectUri ?? current.redirectUris,
            scopes: opts.scope ? splitScopes(opts.scope) : current.scopes,
            defaultResource,
            nativeAuthenticationEnabled,
            webOrigins,
            postLogoutRedirectUris: opts.postLogoutRedirectUri ?? (raw.postLogoutRedirectUris === false ? [] : current.postLogoutRedirectUris),
            grantTypes: opts.grantType ? grantTypes(opts.grantType) : raw.grantTypes === false ? [] : current.grantTypes,
          }, cliActor());
          const view = (await services.clients.list(tenantId)).find((c) => c.clientId === opts.clientId)!;
          if (json) output(true, { ...view, clientSecret: issued.clientSecret });
          else {
            output(false, view, COLUMNS);
            if (issued.clientSecret) process.stdout.write(`clientSecret ${issued.clientSecret}\nThe client secret is shown only now; store it safely.\n`);
          }
        });
      }),
    );

  for (const [name, status] of [['disable', 'DISABLED'], ['enable', 'ACTIVE']] as const) {
    const what = status === 'DISABLED' ? "; its live tokens stop working at once (nothing is revoked: enabling it brings back those not expired)" : '';
    withCommon(clients.command(name).description(`${name} a client${what}`))
      .requiredOption('--tenant <tenant>', 'slug or id')
      .requiredOption('--client-id <id>', 'client identifier')
      .action(
        action(async (opts: CommonOptions & { tenant: string; clientId: string }) => {
          await withServices(opts, async ({ services, json }) => {
            output(json, await services.clients.setStatus((await services.tenants.get(opts.tenant)).id, opts.clientId, status, cliActor()), COLUMNS);
          });
        }),
      );
  }

  withCommon(clients.command('list').description('list clients (never their secrets)'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .action(
      action(async (opts: CommonOptions & { tenant: string }) => {
        await withServices(opts, async ({ services, json }) => {
          output(json, await services.clients.list((await services.tenants.get(opts.tenant)).id), COLUMNS);
        });
      }),
    );
}

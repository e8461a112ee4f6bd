import { Option, type Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

const COLUMNS = ['clientId', 'displayName', 'applicationType', 'tokenEndpointAuthMethod', 'consentPolicy', 'redirectUris', 'webOrigins', 'scopes', 'defaultResource', 'nativeAuthenticationEnabled', 'status', 'createdAt'];

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
}

interface UpdateOpts extends CommonOptions {
  tenant: string;
  clientId: string;
  webOrigin?: string[];
  noWebOrigins?: boolean;
  defaultWebOrigins?: boolean;
}

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
          });
          output(json, issued, ['clientId', 'clientSecret']);
          if (!json && issued.clientSecret) process.stderr.write('The client secret is shown only now; store it safely.\n');
        });
      }),
    );

  withCommon(clients.command('update').description("change a client's browser origins (CORS)"))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .requiredOption('--client-id <id>', 'client identifier')
    .option('--web-origin <origin...>', WEB_ORIGIN_HELP.replace('; repeatable (default: the origins of the redirect URIs)', '; repeatable; replaces the list'))
    .option('--no-web-origins', 'no browser origin at all')
    .option('--default-web-origins', 'back to the default: the origins of the redirect URIs')
    .action(
      action(async (opts: UpdateOpts) => {
        // commander turns --no-web-origins into webOrigins === false.
        const none = (opts as { webOrigins?: boolean }).webOrigins === false;
        if ([!!opts.webOrigin, none, !!opts.defaultWebOrigins].filter(Boolean).length !== 1) {
          throw new Error('give exactly one of --web-origin, --no-web-origins or --default-web-origins');
        }
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          const webOrigins = opts.webOrigin ?? (none ? [] : null);
          output(json, await services.clients.update(tenantId, opts.clientId, { webOrigins }), COLUMNS);
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
            output(json, await services.clients.setStatus((await services.tenants.get(opts.tenant)).id, opts.clientId, status), COLUMNS);
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

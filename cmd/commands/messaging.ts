import { cliActor } from '../../src/platform/audit/audit';
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { DELIVERY_STATES } from '../../src/engage/messaging/inspection';
import { outputPage, pageRequestOf, withPaging } from '../paging';
import { templateJsonSchema } from '../../src/engage/messaging/schemas';
import { parseVersionSelector } from '../../src/engage/messaging/versions';
import { registerTestGroups } from './test-groups';
import { whereInJson } from '../../src/engage/apply/inputs';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

const TEMPLATE_COLUMNS = ['id', 'key', 'status', 'publishedVersion', 'latestVersion', 'updatedAt'];
const DELIVERY_COLUMNS = ['id', 'sendId', 'installationId', 'provider', 'state', 'attempts', 'lastError', 'nextAttemptAt', 'sentAt', 'deliveredAt', 'openedAt'];

/** A JSON file, or a one-line error naming it. */
export function readJsonFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read ${what} ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    // The parser's place, never its message: it quotes the text (a key file given by mistake would be printed).
    throw new Error(`${what} ${file} is not JSON${whereInJson(e)}`);
  }
}

type EnvOpts = CommonOptions & { environment: string };
type FileOpts = CommonOptions & { environment?: string; file?: string; printSchema?: boolean };

const TEMPLATE_HELP = `
The template file: docs/templates.md (a first push step by step, an example file, every field,
variable types: string, number, boolean, date as strict RFC 3339, url). Its JSON Schema, the one
the file is checked with: engage templates create --print-schema

Example:
  engage templates create --environment shop --file order-shipped.json
  engage templates publish order.shipped --environment shop`;

/** --environment and --file (not required with --print-schema; commander would refuse it without them), and where the format is documented. */
function withTemplateFile(cmd: Command): Command {
  return cmd
    .option('--environment <env>', 'environment id or name (required)')
    .option('--file <file>', 'template JSON file (required; format: docs/templates.md)')
    .option('--print-schema', "print the template file's JSON Schema and exit")
    .addHelpText('after', TEMPLATE_HELP);
}

function required(opts: FileOpts): { environment: string; file: string } {
  if (!opts.environment) throw new Error("required option '--environment <env>' not specified");
  if (!opts.file) throw new Error("required option '--file <file>' not specified");
  return { environment: opts.environment, file: opts.file };
}

type VariableOpts = { variables?: string; variablesFile?: string };
/** --variables '{"orderId":"A-17"}' or --variables-file vars.json. */
function withVariables(cmd: Command): Command {
  return cmd.option('--variables <json>', 'template variables as a JSON object').option('--variables-file <file>', 'template variables from a JSON file');
}
function variablesOf(o: VariableOpts): Record<string, unknown> | undefined {
  let v: unknown;
  if (o.variables !== undefined) {
    try {
      v = JSON.parse(o.variables) as unknown;
    } catch (e) {
      throw new Error(`--variables is not JSON: ${(e as Error).message}`);
    }
  } else if (o.variablesFile !== undefined) v = readJsonFile(o.variablesFile, 'variables file');
  else return undefined;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('variables: must be a JSON object');
  return v as Record<string, unknown>;
}

const printTemplateSchema = () => void process.stdout.write(JSON.stringify(templateJsonSchema(), null, 2) + '\n');

/** `engage templates …`, `engage sends show`, `engage deliveries list`, `engage apps set-apns|set-fcm` (issue 13). */
export function registerMessaging(program: Command): void {
  const templates = program.command('templates').description('transactional push templates of an environment (JSON files; draft and published versions)');

  withTemplateFile(withCommon(templates.command('create').description('create a template from a JSON file (its first draft, DRAFT until published)')))
    .action(
      action(async (opts: FileOpts) => {
        if (opts.printSchema) return printTemplateSchema();
        const { environment, file: path } = required(opts);
        const file = readJsonFile(path, 'template file');
        await withServices(opts, async ({ services, json }) =>
          output(json, await services.engage.messaging.templates.create({ environment, file }, cliActor()), TEMPLATE_COLUMNS),
        );
      }),
    );

  withCommon(templates.command('update').description('edit a template from a JSON file: a new draft (the published version keeps serving until publish)'))
    .argument('<key>', 'template key (immutable)')
    .requiredOption('--environment <env>', 'environment id or name')
    .requiredOption('--file <file>', 'template JSON file (format: docs/templates.md)')
    .addHelpText('after', TEMPLATE_HELP)
    .action(
      action(async (key: string, opts: EnvOpts & { file: string }) => {
        const { environment } = opts;
        const file = readJsonFile(opts.file, 'template file');
        await withServices(opts, async ({ services, json }) =>
          output(json, await services.engage.messaging.templates.update({ environment, key, file }, cliActor()), TEMPLATE_COLUMNS),
        );
      }),
    );

  for (const verb of ['publish', 'archive'] as const) {
    withCommon(templates.command(verb).description(verb === 'publish' ? 'publish the latest draft: it alone accepts sends from now on' : 'archive a template: it accepts no more sends'))
      .argument('<key>', 'template key')
      .requiredOption('--environment <env>', 'environment id or name')
      .action(
        action(async (key: string, opts: EnvOpts) => {
          await withServices(opts, async ({ services, json }) => output(json, await services.engage.messaging.templates[verb](opts.environment, key, cliActor()), TEMPLATE_COLUMNS));
        }),
      );
  }

  withCommon(templates.command('show').description('a template: versions, draft and published definitions, sends and deliveries by state'))
    .argument('<key>', 'template key')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (key: string, opts: EnvOpts) => {
        await withServices(opts, async ({ services, json }) => {
          const t = await services.engage.messaging.templates.show(opts.environment, key);
          if (json) output(true, t);
          else {
            output(false, t, TEMPLATE_COLUMNS);
            process.stdout.write(`versions: ${t.versions.map((v) => `${v.version} ${v.state}`).join(', ')}\nsends: ${t.sends}\ndeliveries: ${JSON.stringify(t.deliveries)}\n`);
          }
        });
      }),
    );

  withCommon(templates.command('list').description('list the templates of an environment'))
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (opts: EnvOpts) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.messaging.templates.list(opts.environment), TEMPLATE_COLUMNS));
      }),
    );

  withCommon(templates.command('versions').description('the versions of a template, oldest first; --template-version shows one with its definition'))
    .argument('<key>', 'template key')
    .requiredOption('--environment <env>', 'environment id or name')
    .option('--template-version <v>', 'draft, published, latest or a version number: that version with its definition')
    .action(
      action(async (key: string, opts: EnvOpts & { templateVersion?: string }) => {
        const selector = parseVersionSelector(opts.templateVersion);
        await withServices(opts, async ({ services, json }) => {
          const t = services.engage.messaging.templates;
          if (selector === undefined) output(json, await t.versions(opts.environment, key), ['version', 'state', 'createdAt', 'publishedAt']);
          else output(json, await t.version(opts.environment, key, selector), json ? undefined : ['version', 'state', 'createdAt', 'publishedAt', 'definition']);
        });
      }),
    );

  withVariables(withCommon(templates.command('preview').description('render a version for a locale and variables as a send would, per app with its provider payload; sends nothing')))
    .argument('<key>', 'template key')
    .requiredOption('--environment <env>', 'environment id or name')
    .option('--template-version <v>', 'draft, published, latest (default) or a version number')
    .option('--locale <tag>', 'requested locale (default: the template default)')
    .option('--file <file>', 'an unsaved template file rendered instead of a stored version (checked as update would; stored nowhere)')
    .action(
      action(async (key: string, opts: EnvOpts & VariableOpts & { templateVersion?: string; locale?: string; file?: string }) => {
        const file = opts.file === undefined ? undefined : readJsonFile(opts.file, 'template file');
        const input = { version: parseVersionSelector(opts.templateVersion), file, locale: opts.locale, variables: variablesOf(opts) };
        await withServices(opts, async ({ services, json }) => {
          const p = await services.engage.messaging.templates.preview(opts.environment, key, input);
          if (json) return output(true, p);
          output(false, p, ['templateKey', 'version', 'state', 'resolvedLocale', 'title', 'body', 'deepLink']);
          for (const t of p.targets) process.stdout.write(`${t.appName} ${t.provider} (${t.payloadBytes} bytes): ${JSON.stringify(t.payload)}\n`);
        });
      }),
    );

  const sends = program.command('sends').description('transactional sends');
  withVariables(withCommon(sends.command('test').description('a test send: a template version to a test group, marked as a test (outside rate limits and counts)')))
    .requiredOption('--environment <env>', 'environment id or name')
    .requiredOption('--template <key>', 'template key')
    .requiredOption('--test-group <group>', 'test group id or name')
    .option('--template-version <v>', 'draft, published, latest (default) or a version number')
    .option('--locale <tag>', 'requested locale (default: the template default)')
    .option('--idempotency-key <key>', 'makes a retry harmless (generated when absent)')
    .action(
      action(async (opts: EnvOpts & VariableOpts & { template: string; testGroup: string; templateVersion?: string; locale?: string; idempotencyKey?: string }) => {
        const variables = variablesOf(opts);
        const version = parseVersionSelector(opts.templateVersion);
        await withServices(opts, async ({ services, json }) => {
          const environmentId = (await services.engage.environments.resolve(opts.environment)).id;
          const out = await services.engage.messaging.sends.testSend(
            { environmentId, templateKey: opts.template, testGroup: opts.testGroup, version, locale: opts.locale, variables, idempotencyKey: opts.idempotencyKey },
            cliActor(),
          );
          const r = { unresolvedMembers: 0, ...out.response, isTest: true };
          if (json) return output(true, r);
          output(false, { ...r, targeted: r.diagnostics.filter((d) => d.code === 'TARGETED').length }, ['requestId', 'accepted', 'resolvedLocale', 'renderedTitle', 'targeted', 'unresolvedMembers']);
          for (const d of r.diagnostics) process.stdout.write(`${d.installationId} ${d.platform} ${d.code}\n`);
        });
      }),
    );
  withCommon(sends.command('show').description('a send: request, established response, deliveries by state'))
    .argument('<id>', 'send id (the requestId of the 202)')
    .action(
      action(async (id: string, opts: CommonOptions) => {
        await withServices(opts, async ({ services, json }) => {
          const s = await services.engage.messaging.inspection.showSend(id);
          output(json, json ? s : { ...s, response: undefined, recipient: `${s.recipient.type}:${s.recipient.value}` }, json ? undefined : ['id', 'templateKey', 'templateVersion', 'isTest', 'idempotencyKey', 'recipient', 'createdAt', 'deliveries']);
        });
      }),
    );

  registerTestGroups(program);

  const deliveries = program.command('deliveries').description('push deliveries (the outbox)');
  withPaging(withCommon(deliveries.command('list').description('deliveries of a send (oldest first) or of an installation (newest first): state, attempts, last error')))
    .option('--send <id>', 'send id')
    .option('--installation <id>', 'installation id')
    .addOption(new Option('--state <state>', 'only deliveries in this state').choices(DELIVERY_STATES))
    .action(
      action(async (opts: CommonOptions & { send?: string; installation?: string; state?: string; page: number; size: number }) => {
        await withServices(opts, async ({ services, json }) =>
          outputPage(json, await services.engage.messaging.inspection.listDeliveries({ send: opts.send, installation: opts.installation, state: opts.state }, pageRequestOf(opts)), DELIVERY_COLUMNS),
        );
      }),
    );

  const apps = program.commands.find((c) => c.name() === 'apps');
  if (!apps) throw new Error('register apps before messaging');
  withCommon(apps.command('set-apns').description('APNs token-based credentials of an IOS app (sealed at rest with the master key)'))
    .argument('<app>', 'app id or public app key (or name with --environment)')
    .option('--environment <env>', 'environment id or name, to name the app by its name')
    .requiredOption('--key-file <file>', 'the AuthKey_XXXXXXXXXX.p8 file')
    .requiredOption('--key-id <id>', 'the key id')
    .requiredOption('--team-id <id>', 'the Apple developer team id')
    .requiredOption('--topic <bundle>', 'the bundle id (apns-topic)')
    .option('--sandbox', 'use the APNs sandbox (development builds)')
    .action(
      action(async (app: string, opts: CommonOptions & { environment?: string; keyFile: string; keyId: string; teamId: string; topic: string; sandbox?: boolean }) => {
        let keyPem: string;
        try {
          keyPem = readFileSync(opts.keyFile, 'utf8');
        } catch (e) {
          throw new Error(`cannot read key file ${opts.keyFile}: ${(e as Error).message}`);
        }
        await withServices(opts, async ({ services, json }) =>
          output(
            json,
            await services.engage.messaging.credentials.setApns({ app, environment: opts.environment, keyPem, keyId: opts.keyId, teamId: opts.teamId, topic: opts.topic, sandbox: !!opts.sandbox }, cliActor()),
          ),
        );
      }),
    );
  withCommon(apps.command('set-fcm').description('FCM HTTP v1 credentials of an ANDROID app: a service-account JSON key (sealed at rest)'))
    .argument('<app>', 'app id or public app key (or name with --environment)')
    .option('--environment <env>', 'environment id or name, to name the app by its name')
    .requiredOption('--service-account <file>', 'the service-account JSON key file')
    .action(
      action(async (app: string, opts: CommonOptions & { environment?: string; serviceAccount: string }) => {
        const serviceAccount = readJsonFile(opts.serviceAccount, 'service account');
        await withServices(opts, async ({ services, json }) =>
          output(json, await services.engage.messaging.credentials.setFcm({ app, environment: opts.environment, serviceAccount }, cliActor())),
        );
      }),
    );
}

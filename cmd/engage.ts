#!/usr/bin/env node
import { Command } from 'commander';
import cluster from 'node:cluster';
import { registerKeys } from './commands/keys';
import { registerEngageCommands } from './commands/environments';
import { registerInit } from './commands/init';
import { registerMigrate } from './commands/migrate';
import { registerServe } from './commands/serve';
import { registerTenants } from './commands/tenants';
import { registerClients } from './commands/clients';
import { registerCredentials } from './commands/credentials';
import { registerResources } from './commands/resources';
import { registerUsers } from './commands/users';
import { registerProviders } from './commands/providers';
import { registerDirectory } from './commands/directory';
import { registerFederations } from './commands/federations';
import { registerAudit } from './commands/audit';
import { registerLogin } from './commands/login';
import { registerOperators } from './commands/operators';
import { registerApply } from './commands/apply';
import { configureUsageErrors, jsonRequested, reportParseFailure } from './cli';

declare const __ENGAGE_VERSION__: string | undefined;
const version = typeof __ENGAGE_VERSION__ !== 'undefined' ? __ENGAGE_VERSION__ : process.env.npm_package_version ?? '0.0.0-dev';

const program = new Command('engage')
  .description('engage: OAuth 2.0 / OpenID Connect server, directory and mobile engagement backend in one executable')
  .version(version, '-v, --version');

registerServe(program);
registerInit(program);
registerMigrate(program);
registerTenants(program);
registerKeys(program);
registerResources(program);
registerClients(program);
registerCredentials(program);
registerUsers(program);
registerProviders(program);
registerDirectory(program);
registerFederations(program);
registerAudit(program);
registerEngageCommands(program);
registerOperators(program);
registerLogin(program);
registerApply(program);

// A worker of `serve --workers` forked by the single executable gets the path it was forked with
// (the executable's, serve.ts) once more before its arguments (nodejs/node#62776): drop it.
const argv = cluster.isWorker && process.argv[2] === process.execPath ? [...process.argv.slice(0, 2), ...process.argv.slice(3)] : process.argv;

// Usage errors exit 64, and with --json every error is one JSON line on stderr (cmd/cli.ts EXIT).
const json = jsonRequested(argv.slice(2));
configureUsageErrors(program, json);
program.parseAsync(argv).catch((e: unknown) => reportParseFailure(e, json));

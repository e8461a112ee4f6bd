import { Command } from 'commander';
import { addExamples } from './examples';
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

/** The `engage` command tree (cmd/engage.ts runs it; tests walk it). */
export function buildProgram(version: string): Command {
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
  addExamples(program);
  return program;
}

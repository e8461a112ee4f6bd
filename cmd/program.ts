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

/**
 * Each registration with the top-level commands it adds, in the order `engage --help` lists them
 * (src/cli/program.test.ts checks the names against what each adds). One registration may add
 * several: the engagement commands add subcommands to each other (messaging's to `apps`).
 */
export const REGISTRATIONS: readonly { names: readonly string[]; register: (program: Command) => void }[] = [
  { names: ['serve'], register: registerServe },
  { names: ['init'], register: registerInit },
  { names: ['migrate'], register: registerMigrate },
  { names: ['tenants'], register: registerTenants },
  { names: ['keys'], register: registerKeys },
  { names: ['resources'], register: registerResources },
  { names: ['clients'], register: registerClients },
  { names: ['credentials'], register: registerCredentials },
  { names: ['users'], register: registerUsers },
  { names: ['providers'], register: registerProviders },
  { names: ['directory'], register: registerDirectory },
  { names: ['federations'], register: registerFederations },
  { names: ['audit'], register: registerAudit },
  {
    names: ['environments', 'apps', 'access-keys', 'installations', 'profiles', 'templates', 'sends', 'test-groups', 'deliveries', 'flags', 'in-app', 'automations', 'lists', 'push-channels'],
    register: registerEngageCommands,
  },
  { names: ['operators'], register: registerOperators },
  { names: ['login', 'token', 'logout'], register: registerLogin },
  { names: ['apply'], register: registerApply },
];

/**
 * The `engage` command tree (cmd/engage.ts runs it; tests walk it). With `command`, the first
 * argument of a start, naming a top-level command: only the registration that adds it, so a
 * start builds the commands it can run (~15 ms less than the whole tree); otherwise (no
 * command, `--help`, `help`, a misspelt name to suggest for) the whole tree.
 */
export function buildProgram(version: string, command?: string): Command {
  const program = new Command('engage')
    .description('engage: OAuth 2.0 / OpenID Connect server, directory and mobile engagement backend in one executable')
    .version(version, '-v, --version');
  const only = command === undefined ? undefined : REGISTRATIONS.find((r) => r.names.includes(command));
  for (const r of only ? [only] : REGISTRATIONS) r.register(program);
  addExamples(program);
  return program;
}

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { action, output, readStdin, withCommon, withServices, type CommonOptions } from '../cli';
import { cliActor } from '../../src/platform/audit/audit';
import { applyConfiguration, type ApplyResult } from '../../src/identity/operators/apply';
import { applyFileProblem, applyJsonSchema, type ApplyFile } from '../../src/identity/operators/apply-schema';

const SIGN = { create: '+', update: '~', unchanged: '=' } as const;

function printHuman(r: ApplyResult, name: string): void {
  const lines: string[] = [];
  const count = (a: string) => r.steps.filter((s) => s.action === a).length;
  if (!r.changed) {
    lines.push(`No changes: the environment already matches ${name} (${r.steps.length} objects).`);
  } else {
    lines.push(r.dryRun ? `Plan for ${name} (dry run: nothing written):` : `Applied ${name}:`);
    for (const s of r.steps) {
      if (s.action === 'unchanged') continue;
      const where = s.kind === 'tenant' ? s.key : `${s.tenant}/${s.key}`;
      lines.push(`  ${SIGN[s.action]} ${s.action} ${s.kind} ${where}${s.changes.length ? ` (${s.changes.join(', ')})` : ''}`);
    }
    lines.push(`${count('create')} to create, ${count('update')} to update, ${count('unchanged')} unchanged.`);
  }
  if (r.secrets.length) {
    lines.push('', 'New secrets, shown this once: store them now.');
    for (const s of r.secrets) {
      const secret = s.secret ?? `from $${s.secretEnv}`;
      if (s.kind === 'client') lines.push(`  client ${s.tenant}/${s.clientId}: clientSecret ${secret}`);
      else lines.push(`  credential ${s.tenant} ${s.resourceUri}: credentialId ${s.credentialId} credentialSecret ${secret}`);
    }
  }
  process.stdout.write(lines.join('\n') + '\n');
}

/** Declarative bootstrap (issue 11 point 6; docs/apply.md). */
export function registerApply(program: Command): void {
  withCommon(program.command('apply').description('create or update tenants, resources, clients, credentials, directory permissions and roles, and operators from a JSON file; idempotent'))
    .option('-f, --file <file>', 'the configuration file (engage.json), or - for standard input')
    .option('--dry-run', 'print the plan and change nothing')
    .option('--print-schema', "print the file's JSON Schema and exit")
    .action(
      action(async (opts: CommonOptions & { file?: string; dryRun?: boolean; printSchema?: boolean }) => {
        if (opts.printSchema) return void process.stdout.write(JSON.stringify(applyJsonSchema(), null, 2) + '\n');
        if (!opts.file) throw new Error('-f, --file <file> is required');
        const name = opts.file === '-' ? 'standard input' : opts.file;
        const text = opts.file === '-' ? await readStdin() : readFileSync(opts.file, 'utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (e) {
          throw new Error(`${name}: not JSON: ${(e as Error).message}`);
        }
        const problem = applyFileProblem(parsed);
        if (problem) throw new Error(`${name}: ${problem}`);
        await withServices(opts, async ({ services, json }) => {
          const result = await applyConfiguration(services, parsed as ApplyFile, { dryRun: !!opts.dryRun, env: process.env, actor: cliActor() });
          if (json) output(true, result);
          else printHuman(result, name);
        });
      }),
    );
}

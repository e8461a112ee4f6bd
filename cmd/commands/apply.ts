import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { action, output, readStdin, withCommon, withServices, type CommonOptions } from '../cli';
import { cliActor } from '../../src/platform/audit/audit';
import { DomainError } from '../../src/platform/errors';
import { applyAll, applyFileProblemAll, applyJsonSchemaAll, type ApplyFile, type FullApplyResult } from '../../src/apply';
import { whereInJson } from '../../src/engage/apply/inputs';

const SIGN = { create: '+', update: '~', unchanged: '=' } as const;
/** Where a step's object lives: its tenant, or its environment (engagement half). */
const placeOf = (s: FullApplyResult['steps'][number]) =>
  'environment' in s ? (s.kind === 'environment' ? s.key : `${s.environment}/${s.key}`) : s.kind === 'tenant' ? s.key : `${s.tenant}/${s.key}`;

function printHuman(r: FullApplyResult, name: string): void {
  const lines: string[] = [];
  const count = (a: string) => r.steps.filter((s) => s.action === a).length;
  if (!r.changed) {
    lines.push(`No changes: the environment already matches ${name} (${r.steps.length} objects).`);
  } else {
    lines.push(r.dryRun ? `Plan for ${name} (dry run: nothing written):` : `Applied ${name}:`);
    for (const s of r.steps) {
      if (s.action === 'unchanged') continue;
      lines.push(`  ${SIGN[s.action]} ${s.action} ${s.kind} ${placeOf(s)}${s.changes.length ? ` (${s.changes.join(', ')})` : ''}`);
    }
    lines.push(`${count('create')} to create, ${count('update')} to update, ${count('unchanged')} unchanged.`);
  }
  if (r.secrets.length) {
    lines.push('', 'New secrets, shown this once: store them now.');
    for (const s of r.secrets) {
      if (s.kind === 'access_key') {
        lines.push(`  access key ${s.environment}/${s.name}: id ${s.id} key ${s.key ?? `from $${s.keyEnv}`}`);
        continue;
      }
      const secret = s.secret ?? `from $${s.secretEnv}`;
      if (s.kind === 'client') lines.push(`  client ${s.tenant}/${s.clientId}: clientSecret ${secret}`);
      else lines.push(`  credential ${s.tenant} ${s.resourceUri}: credentialId ${s.credentialId} credentialSecret ${secret}`);
    }
  }
  process.stdout.write(lines.join('\n') + '\n');
}

/** Declarative bootstrap (issue 11 point 6, issue 24 for environments; docs/apply.md). */
export function registerApply(program: Command): void {
  withCommon(
    program
      .command('apply')
      .description('create or update tenants, resources, clients, credentials, directory permissions and roles, operators, and engagement environments (apps, provider credentials, access keys, templates, test groups) from a JSON file; idempotent'),
  )
    .option('-f, --file <file>', 'the configuration file (engage.json), or - for standard input')
    .option('--dry-run', 'print the plan and change nothing')
    .option('--print-schema', "print the file's JSON Schema and exit")
    .action(
      action(async (opts: CommonOptions & { file?: string; dryRun?: boolean; printSchema?: boolean }) => {
        if (opts.printSchema) return void process.stdout.write(JSON.stringify(applyJsonSchemaAll(), null, 2) + '\n');
        if (!opts.file) throw new Error('-f, --file <file> is required');
        const name = opts.file === '-' ? 'standard input' : opts.file;
        const text = opts.file === '-' ? await readStdin() : readFileSync(opts.file, 'utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (e) {
          // Never the parser's message: it quotes the text (a secret file given by mistake would be printed).
          throw new Error(`${name}: not JSON${whereInJson(e)}`);
        }
        const problem = applyFileProblemAll(parsed);
        if (problem) throw new Error(`${name}: ${problem}`);
        // Files the configuration names (provider keys, templates) are relative to it (standard input: the working directory).
        const base = opts.file === '-' ? process.cwd() : path.dirname(path.resolve(opts.file));
        const readFile = (p: string) => {
          const full = path.resolve(base, p);
          // A device or a pipe (/dev/zero, /dev/stdin) would be read without end or wait for input: only regular files.
          if (!statSync(full).isFile()) throw Object.assign(new Error(`${p} is not a regular file`), { code: 'not a regular file' });
          return readFileSync(full, 'utf8');
        };
        await withServices(opts, async ({ services, json }) => {
          const result = await applyAll(services, parsed as ApplyFile, { dryRun: !!opts.dryRun, env: process.env, readFile, actor: cliActor() }).catch((e: unknown) => {
            // A refusal that names its place in the file names the file too: `engage.json: environments[0].apps[1]: …`.
            if (e instanceof DomainError && /^(tenants|operators|environments)\[/.test(e.message)) throw new DomainError(e.kind, e.code, `${name}: ${e.message}`, e.headers);
            throw e;
          });
          if (json) output(true, result);
          else printHuman(result, name);
        });
      }),
    );
}

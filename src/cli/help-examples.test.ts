import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../cmd/examples';
import { buildProgram } from '../../cmd/program';

/** Every command of the tree, by its full name (`engage users list`). */
function commandsOf(cmd: Command, prefix = 'engage'): [string, Command][] {
  return cmd.commands.flatMap((c) => {
    const name = `${prefix} ${c.name()}`;
    return [[name, c] as [string, Command], ...commandsOf(c, name)];
  });
}

/** The text `--help` prints, the 'after' help included (commander writes it through outputHelp). */
function helpOf(cmd: Command): string {
  let text = '';
  cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  cmd.outputHelp();
  return text;
}

/**
 * Issue 23 point 10: every command's `--help` shows an example of its use. A group (a command
 * with subcommands, which runs nothing itself) shows one of a subcommand.
 */
describe('--help of every command has an example', () => {
  const program = buildProgram('0.0.0-test');
  const all = commandsOf(program);

  it('walks the whole tree; every example names a command that exists', () => {
    expect(all.length).toBeGreaterThan(60);
    const names = new Set(all.map(([n]) => n));
    expect(Object.keys(EXAMPLES).filter((n) => !names.has(n))).toEqual([]);
  });

  it('every option an example gives is an option of its command', () => {
    const byName = new Map(all);
    const wrong: string[] = [];
    for (const lines of Object.values(EXAMPLES))
      for (const line of lines) {
        const words: string[] = (line.split('| ').at(-1) ?? '').match(/'[^']*'|"[^"]*"|\S+/g) ?? [];
        if (words[0] !== 'engage' && !words[0]?.startsWith('ENGAGE_')) continue;
        const argv = words.slice(words.indexOf('engage') + 1);
        let cmd: Command | undefined;
        let name = 'engage';
        while (argv.length && byName.has(`${name} ${argv[0]}`)) {
          name = `${name} ${argv.shift()}`;
          cmd = byName.get(name);
        }
        if (!cmd) wrong.push(`${line}: no command`);
        for (const w of argv.filter((a) => a.startsWith('-')))
          if (!cmd?.options.some((o) => o.long === w || o.short === w || o.long === w.replace(/^--no-/, '--'))) wrong.push(`${line}: ${w}`);
      }
    expect(wrong).toEqual([]);
  });

  it.each(all)('%s', (name, cmd) => {
    const help = helpOf(cmd);
    expect(help).toMatch(/\nExamples?:\n {2}(engage|printf|echo|cat|ENGAGE_|XDG_|curl)/);
    const examples = help.slice(help.search(/\nExamples?:\n/));
    expect(examples).toContain(name);
  });
});

import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, REGISTRATIONS } from '../../cmd/program';

const topLevel = (c: Command) => c.commands.map((x) => x.name());
/** Every command of a tree with its options, as `--help` would show them. */
const shape = (c: Command, prefix = 'engage'): string[] =>
  c.commands.flatMap((x) => [`${prefix} ${x.name()} ${x.options.map((o) => o.flags).join(' ')}`, ...shape(x, `${prefix} ${x.name()}`)]);

describe('the command tree a start builds (cmd/program.ts)', () => {
  it('each registration adds exactly the top-level commands it lists; together, the whole tree in its order', () => {
    for (const r of REGISTRATIONS) {
      const scratch = new Command('engage');
      r.register(scratch);
      expect(topLevel(scratch)).toEqual(r.names);
    }
    expect(topLevel(buildProgram('0.0.0-test'))).toEqual(REGISTRATIONS.flatMap((r) => r.names));
  });

  it('a start naming a command builds its registration only, each command as in the whole tree', () => {
    const whole = shape(buildProgram('0.0.0-test'));
    for (const name of REGISTRATIONS.flatMap((r) => r.names)) {
      const partial = buildProgram('0.0.0-test', name);
      const r = REGISTRATIONS.find((x) => x.names.includes(name))!;
      expect(topLevel(partial)).toEqual(r.names);
      expect(whole).toEqual(expect.arrayContaining(shape(partial)));
    }
  });

  it('no command, an option, help or an unknown name: the whole tree (for --help and suggestions)', () => {
    const all = REGISTRATIONS.flatMap((r) => r.names);
    for (const first of [undefined, '--help', 'help', '--version', 'tenant', 'constructor', '']) expect(topLevel(buildProgram('0.0.0-test', first))).toEqual(all);
  });
});

/**
 * `engage apply` given odd files (docs/decisions.md "The sync surface, reviewed as an attacker
 * (r6)"): a file named by the configuration that is a device or a pipe is refused at once instead
 * of read without end, and a file that is not JSON (a key given by mistake) is named without
 * printing any of its text, the configuration itself included (and likewise for the flag and list
 * commands' --file).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../helpers/binary';

const SECRET = 'KEYMATERIAL+doNotPrintMe';
let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ prefix: 'engage-apply-odd-' });
  await writeFile(path.join(sb.dir, 'key.txt'), `${SECRET}\n`);
}, 60_000);
afterAll(async () => sb?.cleanup());

const config = async (name: string, flagFile: string) => {
  await writeFile(path.join(sb.dir, name), JSON.stringify({ version: 1, environments: [{ name: 'prod', flags: [{ key: 'f', file: flagFile }] }] }));
  return name;
};

describe('engage apply with odd files', () => {
  it('refuses a flag file that is a device (it would be read without end) in one line', async () => {
    const started = Date.now();
    const r = await sb.run(['apply', '--file', await config('zero.json', '/dev/zero')], { timeoutMs: 20_000 });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('engage: invalid_request: zero.json: environments[0].flags[0].file: cannot read /dev/zero (not a regular file)');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('names a flag file, or the configuration, that is not JSON without printing its text', async () => {
    const flag = await sb.run(['apply', '--file', await config('secret-flag.json', 'key.txt')]);
    expect(flag.code).toBe(1);
    expect(flag.stderr.trim()).toBe('engage: invalid_request: secret-flag.json: environments[0].flags[0].file: key.txt is not JSON');
    const itself = await sb.run(['apply', '--file', 'key.txt']);
    expect(itself.code).toBe(1);
    expect(itself.stderr.trim()).toBe('engage: key.txt: not JSON');
    for (const r of [flag, itself]) expect(r.stdout + r.stderr).not.toContain(SECRET.slice(0, 6));
  });

  it('engage flags create and engage lists create name a file that is not JSON without printing its text', async () => {
    const flags = await sb.run(['flags', 'create', '--environment', 'prod', '--file', 'key.txt']);
    expect([flags.code, flags.stderr.trim()]).toEqual([1, 'engage: flag file key.txt is not JSON']);
    const lists = await sb.run(['lists', 'create', '--environment', 'prod', '--file', 'key.txt']);
    expect([lists.code, lists.stderr.trim()]).toEqual([1, 'engage: list file key.txt is not JSON']);
  });
});

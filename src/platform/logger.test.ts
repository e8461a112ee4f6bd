import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';

describe('logger', () => {
  it('writes JSON lines with level filtering and redacts secret-looking fields', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', format: 'json', write: (l) => lines.push(l) }).child({ requestId: 'r1' });
    log.debug('hidden');
    log.info('hello', { clientSecret: 's3cr3t', password: 'hunter2', refresh_token: 'rt', keyId: 'kid-1', n: 3 });
    expect(lines).toHaveLength(1);
    const rec = JSON.parse(lines[0]);
    expect(rec).toMatchObject({ level: 'info', msg: 'hello', requestId: 'r1', clientSecret: '[redacted]', password: '[redacted]', refresh_token: '[redacted]', keyId: 'kid-1', n: 3 });
    expect(lines[0]).not.toContain('s3cr3t');
    expect(lines[0]).not.toContain('hunter2');
  });
});

/**
 * Structured logger: one JSON object per line (or a readable line on a terminal).
 * Callers pass fields, never secrets; as a second line of defence, fields whose names
 * look secret are replaced before anything is written.
 */
import type { LogLevel } from './config.js';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  enabled(level: Exclude<LogLevel, 'silent'>): boolean;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_FIELD = /pass(word)?|secret|token|credential|authorization|cookie|code_verifier|^code$|key$/i;

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (SECRET_FIELD.test(k) && k !== 'keyId' && typeof v === 'string') out[k] = '[redacted]';
    else if (v instanceof Error) out[k] = { name: v.name, message: v.message, stack: v.stack };
    else out[k] = v;
  }
  return out;
}

interface Output {
  min: number;
  format: 'json' | 'pretty';
  write: (line: string) => void;
}

/**
 * A class rather than closures: a child logger is made for every request. Its fields are
 * merged (and redacted) at its first log line, which most requests never write.
 */
class StructuredLogger implements Logger {
  private merged: Record<string, unknown> | undefined;

  constructor(
    private readonly out: Output,
    private readonly parent: Record<string, unknown>,
    private readonly own?: Record<string, unknown>,
  ) {}

  private get base(): Record<string, unknown> {
    return (this.merged ??= this.own ? { ...this.parent, ...redact(this.own) } : this.parent);
  }

  enabled(level: Exclude<LogLevel, 'silent'>): boolean {
    return RANK[level] >= this.out.min;
  }
  debug(msg: string, fields?: Record<string, unknown>): void {
    this.log('debug', msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.log('info', msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.log('warn', msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.log('error', msg, fields);
  }
  child(fields: Record<string, unknown>): Logger {
    return new StructuredLogger(this.out, this.base, fields);
  }

  private log(level: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>): void {
    if (RANK[level] < this.out.min) return;
    const rec = { time: new Date().toISOString(), level, msg, ...this.base, ...(fields ? redact(fields) : {}) };
    if (this.out.format === 'json') this.out.write(JSON.stringify(rec));
    else {
      const { time, level: l, msg: m, ...rest } = rec;
      const extra = Object.keys(rest).length ? ' ' + JSON.stringify(rest) : '';
      this.out.write(`${time.slice(11, 23)} ${l.toUpperCase().padEnd(5)} ${m}${extra}`);
    }
  }
}

export function createLogger(opts: {
  level: LogLevel;
  format: 'json' | 'pretty';
  write?: (line: string) => void;
  base?: Record<string, unknown>;
}): Logger {
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'));
  return new StructuredLogger({ min: RANK[opts.level], format: opts.format, write }, opts.base ?? {});
}

export const silentLogger: Logger = createLogger({ level: 'silent', format: 'json' });

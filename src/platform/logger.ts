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

export function createLogger(opts: {
  level: LogLevel;
  format: 'json' | 'pretty';
  write?: (line: string) => void;
  base?: Record<string, unknown>;
}): Logger {
  const min = RANK[opts.level];
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const make = (base: Record<string, unknown>): Logger => {
    const log = (level: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
      if (RANK[level] < min) return;
      const rec = { time: new Date().toISOString(), level, msg, ...base, ...(fields ? redact(fields) : {}) };
      if (opts.format === 'json') write(JSON.stringify(rec));
      else {
        const { time, level: l, msg: m, ...rest } = rec;
        const extra = Object.keys(rest).length ? ' ' + JSON.stringify(rest) : '';
        write(`${time.slice(11, 23)} ${l.toUpperCase().padEnd(5)} ${m}${extra}`);
      }
    };
    return {
      debug: (m, f) => log('debug', m, f),
      info: (m, f) => log('info', m, f),
      warn: (m, f) => log('warn', m, f),
      error: (m, f) => log('error', m, f),
      child: (f) => make({ ...base, ...redact(f) }),
    };
  };
  return make(opts.base ?? {});
}

export const silentLogger: Logger = createLogger({ level: 'silent', format: 'json' });

import type v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * A full garbage collection, for long CLI work that allocates fast and keeps little (a bulk
 * import's batches): V8 otherwise lets its old generation grow far past the live data before it
 * collects, and the process's peak memory with it. The executable cannot be given
 * `--expose-gc`, so the flag is set now and `gc` taken from a fresh context, which sees it.
 */
export function collectGarbage(): void {
  if (!collect) {
    // node:v8 loads here, not at every start of the executable.
    (process.getBuiltinModule('node:v8') as typeof v8).setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

import { availableParallelism } from 'node:os';

/**
 * libuv's thread pool runs argon2id (the password hashes of sign-ins, registrations and imports),
 * the RSA signatures of tokens, and file and DNS work. Node gives it four threads on any machine.
 * engage gives it as many as the cores each serving process has (the machine's, shared among
 * `--workers`), and never fewer than two, so that one slow task (a DNS lookup) cannot stall the
 * rest:
 *  - on two cores, four memory-hard hashes at once evict each other from the caches, and token
 *    signatures queue among them: native sign-ins reached 81–85% of the argon2id ceiling with
 *    two threads against 68–69% with four, measured alternately (docs/benchmarks.md);
 *  - on more than four cores, four threads would leave the others idle while sign-ins queue.
 * An operator's own UV_THREADPOOL_SIZE is left as it is.
 */
export function threadPoolSize(cores: number, workers: number): number {
  return Math.max(2, Math.ceil(cores / Math.max(1, workers)));
}

/**
 * Sets UV_THREADPOOL_SIZE for this process (and the workers it forks) unless already set; returns
 * the size in force. It must run before anything queues work on the pool: libuv reads the variable
 * once, when the pool starts.
 */
export function sizeThreadPool(workers: number, env: NodeJS.ProcessEnv = process.env): number {
  if (!env.UV_THREADPOOL_SIZE) env.UV_THREADPOOL_SIZE = String(threadPoolSize(availableParallelism(), workers));
  return Number(env.UV_THREADPOOL_SIZE);
}

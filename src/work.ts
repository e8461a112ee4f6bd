import type { WorkKind, WorkQueue } from './platform/work/queue';

/**
 * The kinds of durable work (platform/work, issue 22 point 2), registered in this one place.
 * Each context declares its own kinds in its folder (`<context>/work.ts`: the kind's name, its
 * retry policy and its run), and this list names them; a serving process's worker claims items
 * of these kinds only.
 */
export function registerWorkKinds(queue: WorkQueue, kinds: readonly WorkKind<never>[]): void {
  for (const k of kinds) queue.register(k);
}

import type { AuditActor } from '../shared/audit';
import { canonicalJson } from '../flags/diff';
import type { InAppService, MessageView } from '../in-app/service';
import type { MessageDefinition } from '../in-app/schemas';
import { at, placeError } from './inputs';
import type { ApplyInAppMessage } from './schema';

/**
 * `engage apply`'s in-app messages (issue 27; docs/in-app.md "Declare messages in engage apply"):
 * the file is what runs. A declared message is created, its latest edit brought to the file (a new
 * version when it differs), and published when devices are not served the file yet (DRAFT, PAUSED,
 * or another published definition); with `status: PAUSED` it is paused instead and the file waits
 * as the latest edit. Marked configuration-managed. Never archives or deletes.
 */

/** What changes for one declared message: `definition` (a new latest edit), `publish`, `pause`, `adopt`. */
export function inAppChangesOf(have: MessageView, wanted: MessageDefinition | undefined, status: 'ACTIVE' | 'PAUSED'): string[] {
  const changes: string[] = [];
  const same = (d: MessageDefinition | null) => wanted !== undefined && d !== null && canonicalJson(d) === canonicalJson(wanted);
  if (!same(have.definition)) changes.push('definition');
  // An edit of a message that runs is published with it: the published version is then the latest edit.
  if (status === 'ACTIVE' && (have.status !== 'ACTIVE' || !same(have.published) || changes.includes('definition'))) changes.push('publish');
  if (status === 'PAUSED' && have.status === 'ACTIVE') changes.push('pause');
  if (!have.configurationManaged) changes.push('adopt');
  return changes;
}

export interface InAppPlanStep {
  key: string;
  action: 'create' | 'update';
  changes: string[];
}

/**
 * The steps of an environment's declared messages, made when `write`. `envId` undefined: the
 * plan of an environment not created yet (every message is new). `appsPending`: the plan cannot
 * resolve apps the file declares and the environment does not have yet (the write checks again).
 */
export async function applyInAppMessages(
  inApp: InAppService,
  ctx: { envId: string | undefined; where: string; write: boolean; appsPending: boolean; actor: AuditActor },
  declared: readonly ApplyInAppMessage[],
  fileOf: (j: number) => Record<string, unknown>,
): Promise<InAppPlanStep[]> {
  const { envId, where, write, actor } = ctx;
  const steps: InAppPlanStep[] = [];
  const messages = envId ? await inApp.all(envId) : [];
  const allow = { allowManaged: true } as const;
  for (const [j, m] of declared.entries()) {
    const place = `${where}.inAppMessages[${j}]`;
    const file = fileOf(j);
    const status = m.status ?? 'ACTIVE';
    const have = messages.find((x) => x.key === m.key);
    if (have?.status === 'ARCHIVED') throw placeError(place, `in-app message ${m.key} is archived; an archived message cannot be declared (use a new key)`);
    // Every rule of the message file, before anything is written.
    const wanted = !envId ? undefined : await inApp.definitionOf(envId, file, m.key).catch((err: unknown) => {
      if (!ctx.appsPending) throw placeError(place, (err as Error).message);
      return undefined;
    });
    if (!have) {
      steps.push({ key: m.key, action: 'create', changes: [] });
      if (!write) continue;
      await at(place, () => inApp.create({ environment: envId!, file }, actor));
      if (status === 'ACTIVE') await at(place, () => inApp.publish(envId!, m.key, actor, allow));
      await inApp.markManaged(envId!, m.key, actor);
      continue;
    }
    const changes = inAppChangesOf(have, wanted, status);
    steps.push({ key: m.key, action: 'update', changes });
    if (!write) continue;
    if (changes.includes('definition')) await at(place, () => inApp.update({ environment: envId!, key: m.key, file }, actor, allow));
    if (changes.includes('publish')) await at(place, () => inApp.publish(envId!, m.key, actor, allow));
    if (changes.includes('pause')) await at(place, () => inApp.pause(envId!, m.key, actor, allow));
    if (changes.includes('adopt')) await inApp.markManaged(envId!, m.key, actor);
  }
  return steps;
}

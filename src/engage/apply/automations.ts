import type { AuditActor } from '../shared/audit';
import { canonicalJson } from '../flags/diff';
import type { AutomationService, AutomationView } from '../automations/service';
import { publishViolations, type AutomationDefinition } from '../automations/schemas';
import { describeViolations } from '../../platform/http/schema';
import { at, placeError } from './inputs';
import type { ApplyAutomation } from './schema';

/**
 * `engage apply`'s automations (issue 28; docs/automations.md "Declare automations in engage
 * apply"): the file is what runs. A declared automation is created, published (`status: ACTIVE`,
 * the default) or paused (`PAUSED`), brought to the file (a DRAFT's edit is published with it; an
 * ACTIVE or PAUSED automation's edit is a new version at once, runs under way staying on theirs),
 * and marked configuration-managed. Never archives or deletes. The API entry's key is not managed:
 * apply never prints or stores one; `engage automations rotate-key` (or POST …/rotate-key) makes
 * the key of a declared automation, which apply leaves alone afterwards.
 */

/** What changes for one declared automation: `definition` (a new version), `publish`, `pause`, `resume`, `adopt`. */
export function automationChangesOf(have: AutomationView, wanted: AutomationDefinition | undefined, status: 'ACTIVE' | 'PAUSED'): string[] {
  const changes: string[] = [];
  if (wanted === undefined || canonicalJson(have.definition) !== canonicalJson(wanted)) changes.push('definition');
  if (have.status === 'DRAFT') changes.push('publish');
  if (status === 'PAUSED' && (have.status === 'ACTIVE' || have.status === 'DRAFT')) changes.push('pause');
  if (status === 'ACTIVE' && have.status === 'PAUSED') changes.push('resume');
  if (!have.configurationManaged) changes.push('adopt');
  return changes;
}

export interface AutomationPlanStep {
  key: string;
  action: 'create' | 'update';
  changes: string[];
}

/**
 * The steps of an environment's declared automations, made when `write`. `envId` undefined: the
 * plan of an environment not created yet (every automation is new). `appsPending`: the plan
 * cannot resolve apps the file declares and the environment does not have yet (the write checks again).
 * Runs after templates and in-app messages, which publishing checks exist.
 */
export async function applyAutomations(
  automations: AutomationService,
  ctx: { envId: string | undefined; where: string; write: boolean; appsPending: boolean; actor: AuditActor },
  declared: readonly ApplyAutomation[],
  fileOf: (j: number) => Record<string, unknown>,
): Promise<AutomationPlanStep[]> {
  const { envId, where, write, actor } = ctx;
  const steps: AutomationPlanStep[] = [];
  const existing = envId ? await automations.all(envId) : [];
  const allow = { allowManaged: true } as const;
  for (const [j, m] of declared.entries()) {
    const place = `${where}.automations[${j}]`;
    const file = fileOf(j);
    const status = m.status ?? 'ACTIVE';
    const have = existing.find((x) => x.key === m.key);
    if (have?.status === 'ARCHIVED') throw placeError(place, `automation ${m.key} is archived; an archived automation cannot be declared (use a new key)`);
    // Every rule of the automation file that holds for a draft, before anything is written (the graph's at publish).
    const wanted = !envId ? undefined : await automations.definitionOf(envId, file, m.key).catch((err: unknown) => {
      if (!ctx.appsPending) throw placeError(place, (err as Error).message);
      return undefined;
    });
    // The graph's rules too (connected, acyclic, steps and placeholders that exist): a plan shows a file that cannot publish.
    const graph = wanted ? publishViolations(wanted) : [];
    if (graph.length > 0) throw placeError(place, describeViolations(graph));
    if (!have) {
      steps.push({ key: m.key, action: 'create', changes: [] });
      if (!write) continue;
      // The key create answers is dropped: apply does not manage keys (rotate-key makes the one the backend keeps).
      await at(place, () => automations.create({ environment: envId!, file }, actor));
      await at(place, () => automations.publish(envId!, m.key, actor, allow));
      if (status === 'PAUSED') await at(place, () => automations.pause(envId!, m.key, actor, allow));
      await automations.markManaged(envId!, m.key, actor);
      continue;
    }
    const changes = automationChangesOf(have, wanted, status);
    steps.push({ key: m.key, action: 'update', changes });
    if (!write) continue;
    if (changes.includes('definition')) await at(place, () => automations.update({ environment: envId!, key: m.key, file }, actor, allow));
    if (changes.includes('publish')) await at(place, () => automations.publish(envId!, m.key, actor, allow));
    if (changes.includes('pause')) await at(place, () => automations.pause(envId!, m.key, actor, allow));
    if (changes.includes('resume')) await at(place, () => automations.resume(envId!, m.key, actor, allow));
    if (changes.includes('adopt')) await automations.markManaged(envId!, m.key, actor);
  }
  return steps;
}

import { violation, ViolationCode, type Violation } from '../../platform/http/schema';
import type { EnvironmentService } from '../environments/service';

/**
 * A definition file's `targetApps` (flags, in-app messages, automations) named by id or by name,
 * as template files name apps, rewritten in place to the lower-case ids evaluation compares; an
 * app the environment does not have is a violation (another environment's app is unknown here).
 * Left as it is when it is not an array of strings (the shape's check reports that).
 */
export async function resolveTargetApps(environments: Pick<EnvironmentService, 'listApps'>, environmentId: string, file: Record<string, unknown>, problems: Violation[]): Promise<void> {
  if (!Array.isArray(file.targetApps) || !file.targetApps.every((x) => typeof x === 'string')) return;
  const apps = await environments.listApps(environmentId);
  file.targetApps = (file.targetApps as string[]).map((ref, i) => {
    const app = apps.find((a) => a.id === ref.toLowerCase() || a.name === ref);
    if (!app) problems.push(violation(ViolationCode.value, `targetApps[${i}]`, `no app ${ref} in this environment`));
    return app ? app.id.toLowerCase() : ref;
  });
}

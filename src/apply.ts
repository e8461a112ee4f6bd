import { Strict, T, checker, type Static } from './platform/http/schema';
import type { AuditActor } from './platform/audit/audit';
import { systemClock, type Clock } from './platform/clock';
import { DomainError } from './platform/errors';
import type { Services } from './services';
import { applyConfiguration, type ApplyResult } from './identity/operators/apply';
import { ApplyFile as IdentityApplyFile, applyFileProblem } from './identity/operators/apply-schema';
import { ApplyEnvironments, environmentsProblem } from './engage/apply/schema';
import { readEngageInputs } from './engage/apply/inputs';
import { applyEnvironments, type EngageSecret, type EngageStep } from './engage/apply/apply';
import { createEnvironmentApplyService } from './engage/environments/managed';
import { createMessagingApplyService } from './engage/messaging/managed';

/**
 * `engage apply`'s whole file (docs/apply.md): the identity half (tenants, operators;
 * identity/operators/apply.ts) and the engagement half (environments; engage/apply/), composed
 * here because neither half imports the other. One schema, one plan printed, one result.
 */
export const ApplyFile = Strict({
  ...IdentityApplyFile.properties,
  environments: T.Optional(ApplyEnvironments),
});
export type ApplyFile = Static<typeof ApplyFile>;
const checkApplyFile = checker(ApplyFile);

/** `path: reason` for the first problem of the file, or null. */
export function applyFileProblemAll(value: unknown): string | null {
  const bad = checkApplyFile(value);
  if (bad) return bad.message;
  const { environments, ...identity } = value as ApplyFile;
  return applyFileProblem(identity) ?? environmentsProblem(environments ?? []);
}

/** The JSON Schema of the file, for editors (`engage apply --print-schema`). */
export const applyJsonSchemaAll = () => JSON.parse(JSON.stringify(ApplyFile)) as unknown;

export interface FullApplyResult {
  dryRun: boolean;
  changed: boolean;
  /** The identity half's steps (tenant, resource, …), then the engagement half's (environment, app, …). */
  steps: (ApplyResult['steps'][number] | EngageStep)[];
  secrets: (ApplyResult['secrets'][number] | EngageSecret)[];
}

/**
 * Reads what the engagement half points at (variables, files) first, so a missing one stops the
 * run before the identity half writes; then applies the identity half (its tenants exist for an
 * environment's identityTenant), then the engagement half.
 */
export async function applyAll(
  services: Services,
  file: ApplyFile,
  opts: { dryRun: boolean; env: NodeJS.ProcessEnv; readFile: (path: string) => string; actor: AuditActor; clock?: Clock },
): Promise<FullApplyResult> {
  const { environments, ...identity } = file;
  const declared = environments ?? [];
  const inputs = readEngageInputs(declared, opts);
  const identityResult = await applyConfiguration(services, identity, { dryRun: opts.dryRun, env: opts.env, actor: opts.actor });
  const { store } = services;
  const clock = opts.clock ?? systemClock;
  const engage = services.engage;
  const slugs = new Set((identity.tenants ?? []).map((t) => t.slug));
  const tenantIdOf = async (slug: string) => {
    const t = await services.tenants.get(slug).catch((e: unknown) => {
      if (e instanceof DomainError && e.code === 'unknown_tenant') return undefined;
      throw e;
    });
    return t && t.slug === slug ? t.id : undefined;
  };
  const result = await applyEnvironments(
    {
      environments: engage.environments,
      credentials: engage.messaging.credentials,
      templates: engage.messaging.templates,
      testGroups: engage.messaging.testGroups,
      flags: engage.flags,
      inApp: engage.inApp,
      automations: engage.automations,
      lists: engage.lists,
      pushChannels: engage.pushChannels,
      syncSettings: engage.syncSettings,
      marks: { environments: createEnvironmentApplyService({ store, clock }), messaging: createMessagingApplyService({ store, clock }) },
      tenantIdOf,
      tenantDeclared: (slug) => slugs.has(slug),
      tenantExists: async (id) => (await services.tenants.byId(id).catch(() => undefined)) !== undefined,
    },
    declared,
    inputs,
    { dryRun: opts.dryRun, actor: opts.actor },
  );
  return {
    dryRun: opts.dryRun,
    changed: identityResult.changed || result.changed,
    steps: [...identityResult.steps, ...result.steps],
    secrets: [...identityResult.secrets, ...result.secrets],
  };
}

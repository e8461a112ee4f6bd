/**
 * Wire shapes of the feature flags on the engagement administration API (issue 26): the flag
 * file (docs/flags.md; `engage flags --print-schema` prints it), what the routes answer, the
 * schedule request. One schema each for validation, types and the OpenAPI document.
 */
import { pageOf } from '../../platform/http/pagination';
import { DateTime, Enum, Nullable, Strict, T } from '../../platform/http/schema';
import { Key } from '../shared/schemas';
import { FLAG_KINDS, FLAG_STATUSES, FlagBounds, FlagDefinition } from './schemas';
import { ScheduleBounds } from './schedules';

export const FlagKeyPath = Key({ description: 'the flag key' });
export const FlagVersionPath = T.String({ pattern: '^[1-9][0-9]{0,8}$', description: 'a version number' });
export const ScheduleIdPath = T.String({ minLength: 1, maxLength: 64, description: 'the scheduled change id' });

const FLAG_ORIGINS = ['API', 'CLI', 'APPLY', 'SCHEDULE', 'ROLLBACK'] as const;
const SCHEDULE_STATUSES = ['PENDING', 'APPLIED', 'CANCELLED', 'FAILED'] as const;

/**
 * The flag file: a FlagDefinition whose `status` may be left out (ACTIVE on create, unchanged on
 * edit) and whose `targetApps` name apps by id or by name (stored as ids).
 */
export const FlagFile = Strict(
  {
    ...FlagDefinition.properties,
    status: T.Optional(Enum(FLAG_STATUSES, { description: 'ACTIVE unless given (an edit keeps the current status)' })),
    targetApps: T.Optional(
      T.Array(T.String({ minLength: 1, maxLength: 100 }), { maxItems: FlagBounds.targetApps, uniqueItems: true, description: 'apps of the environment by id or name; absent or empty: every app' }),
    ),
  },
  { description: 'a feature flag file (docs/flags.md)' },
);
/** An edit's body: the flag file, whose key may be left out (it cannot change). */
export const FlagUpdate = Strict({ ...FlagFile.properties, key: T.Optional(FlagFile.properties.key) });

export const Flag = Strict({
  environmentId: T.String(),
  key: Key(),
  kind: Enum(FLAG_KINDS),
  description: Nullable(T.String()),
  status: Enum(FLAG_STATUSES, { description: 'ARCHIVED: devices get a tombstone; restore brings it back' }),
  version: T.Integer({ minimum: 1, description: 'the current version (flag_versions); If-Match takes it' }),
  revision: T.Integer({ minimum: 1, description: 'the definitions revision of its last change (the sync’s order)' }),
  configurationManaged: T.Boolean({ description: 'declared by engage apply: edited only through the file' }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});
export const FlagPage = pageOf(Flag);

export const FlagDetail = Strict({
  ...Flag.properties,
  definition: FlagDefinition,
  changed: T.Optional(T.Boolean({ description: 'on a change: false when it changed nothing (no new version)' })),
});

const VersionItem = Strict({
  version: T.Integer({ minimum: 1 }),
  origin: Enum(FLAG_ORIGINS, { description: 'what wrote it' }),
  actor: T.String({ description: 'who wrote it (for SCHEDULE: who scheduled it)' }),
  createdAt: DateTime(),
});
export const FlagVersionPage = pageOf(VersionItem);
export const FlagVersionDetail = Strict({ ...VersionItem.properties, definition: FlagDefinition });

export const RollbackRequest = Strict({ version: T.Integer({ minimum: 1, maximum: 999_999_999, description: 'the version whose definition becomes a new version' }) });

const Percentage = T.Number({ minimum: 0, maximum: 100, description: 'the variant’s share of the rule, in percent (two decimals)' });

export const ScheduleRequest = Strict(
  {
    at: T.Optional(DateTime({ description: 'when the definition applies (with definition)' })),
    definition: T.Optional(FlagUpdate),
    rollout: T.Optional(
      Strict({
        rule: T.Integer({ minimum: 0, maximum: FlagBounds.rules - 1, description: 'the index of a rule that serves a rollout' }),
        variant: Key({ description: 'the variant whose share steps up' }),
        steps: T.Array(Strict({ at: DateTime(), percentage: Percentage }), { minItems: 1, maxItems: ScheduleBounds.rolloutSteps }),
      }, { description: 'a rollout plan: one scheduled change per step, the other variants of the split sharing the rest' }),
    ),
  },
  { description: 'either at and definition, or rollout' },
);

export const Schedule = Strict({
  id: T.String(),
  flagKey: Key(),
  at: DateTime(),
  status: Enum(SCHEDULE_STATUSES),
  actor: T.String(),
  createdAt: DateTime(),
  appliedVersion: Nullable(T.Integer({ minimum: 1 })),
  appliedAt: Nullable(DateTime()),
  definition: FlagDefinition,
});
export const ScheduleList = Strict({ items: T.Array(Schedule) });
export const SchedulePage = pageOf(Schedule);
export const ScheduleStatusQuery = Enum(SCHEDULE_STATUSES);

export const Exposures = Strict({
  environmentId: T.String(),
  flagKey: Key(),
  items: T.Array(
    Strict({
      experimentId: T.String(),
      revision: T.Integer({ minimum: 1, description: 'the flag version that served the experiment' }),
      variantKey: T.String(),
      exposures: T.Integer({ minimum: 0, description: 'installations exposed (each once per experiment revision)' }),
    }),
  ),
});


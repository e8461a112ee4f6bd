/**
 * Shapes every mobile edge context shares (spec 01 "Shared enumerations", "Problem"), and the
 * helpers that turn a schema's first violation into the edge's answer. The schemas are the
 * one source of validation, TypeScript types and the OpenAPI document (CONVENTIONS.md
 * "Validation").
 */
import { Enum, Strict, T, violation, type Static, type TSchema, type Violation } from '../../platform/http/schema';

export const PLATFORMS = ['ANDROID', 'IOS'] as const;
export const OPT_STATES = ['OPTED_IN', 'OPTED_OUT'] as const;
export const PUSH_PERMISSION_STATES = ['NOT_DETERMINED', 'DENIED', 'AUTHORIZED', 'PROVISIONAL', 'EPHEMERAL'] as const;

export const Platform = Enum(PLATFORMS);
export const PrivacyState = Enum(OPT_STATES);
export const PushSubscriptionState = Enum(OPT_STATES);
export const PushPermissionState = Enum(PUSH_PERMISSION_STATES);

/** Attribute, list, screen and flag keys: pattern K of spec 01 (1 to 128 characters). */
export const KEY_PATTERN = '^[a-z][a-z0-9_.-]{0,127}$';
export const Key = (opts: { description?: string } = {}) => T.String({ pattern: KEY_PATTERN, ...opts });

/** Problem (spec 01): `application/problem+json` body of every non-2xx edge answer. */
export const Problem = Strict(
  {
    code: T.String({ description: 'Stable snake_case code (docs/decisions.md "Mobile edge").' }),
    message: T.String({ description: 'Starts with the offending field, e.g. `target.externalId: …`, when one is at fault.' }),
  },
);
export type Problem = Static<typeof Problem>;

/**
 * `T | null` for a schema with a single `type`, written as a type list
 * (`{type: ['string', 'null'], maxLength: 255}`): one check instead of an `anyOf`, and a
 * violation that says "must be a string or null" rather than the first branch's complaint.
 */
export function OrNull<S extends TSchema>(schema: S) {
  const plain = Object.fromEntries(Object.entries(schema)) as Record<string, unknown>;
  if (typeof plain.type !== 'string') throw new Error('OrNull needs a schema with a single type');
  return T.Unsafe<Static<S> | null>({ ...plain, type: [plain.type, 'null'] });
}

/**
 * A free-form JSON object (event properties, sync payloads): any keys, any values; with
 * `values: FreeValue()`, each value within the bounds every API holds free-form values to.
 */
export const FreeObject = ({ values, ...opts }: { description?: string; maxProperties?: number; propertyNames?: object; values?: TSchema } = {}) =>
  T.Unsafe<Record<string, unknown>>({ type: 'object', ...opts, ...(values ? { additionalProperties: values } : {}) });

/**
 * A violation of a whole request body: the root is named `body` (`body: must be an object`)
 * so that every 400 message starts with a field.
 */
export function atBody(v: Violation | null): Violation | null {
  if (v === null || v.field !== '') return v;
  return violation(v.code, 'body', v.message);
}

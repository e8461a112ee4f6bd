/**
 * The subscription-list file (issue 26 PREFERENCES) of `engage lists create|update --file`, the
 * administration API's body and the stored `ListDefinition` (read-store.ts) once its defaults are
 * filled in. One schema: validation, types, the OpenAPI document and `--print-schema`.
 */
import { checker, Enum, Strict, T, type Static } from '../../platform/http/schema';
import { Key } from '../shared/schemas';
import { LIST_CHANNELS, type ListDefinition } from './read-store';

export const ListBounds = { displayName: 100, description: 500 } as const;

export const ListFile = Strict({
  key: Key({ description: 'Immutable once created (pattern K: lowercase letter, then up to 127 of a-z 0-9 _ . -).' }),
  displayName: T.String({ minLength: 1, maxLength: ListBounds.displayName, pattern: '\\S', description: 'Shown in the preference centre; 1 to 100 characters.' }),
  description: T.Optional(T.String({ maxLength: ListBounds.description, description: 'Up to 500 characters.' })),
  channels: T.Array(Enum(LIST_CHANNELS), { minItems: 1, maxItems: LIST_CHANNELS.length, uniqueItems: true, description: 'The channels the list sends on: 1 to 4 of PUSH, EMAIL, SMS, WHATSAPP, no repeats.' }),
  defaultSubscribed: T.Optional(T.Boolean({ description: 'Whether an installation or profile that never chose is subscribed; default true.' })),
  critical: T.Optional(T.Boolean({ description: 'A list nobody can leave (always subscribed); default false. A critical list is default-subscribed.' })),
});
export type ListFile = Static<typeof ListFile>;

/** The body of an update: the file, its key optional (it cannot change). */
export const ListUpdate = Strict({ ...ListFile.properties, key: T.Optional(ListFile.properties.key) });

export const checkListFile = checker(ListFile);
/** The JSON Schema the list file is checked with (`engage lists create --print-schema`): the compiled one, not a copy. */
export const listJsonSchema = () => JSON.parse(JSON.stringify(checkListFile.schema)) as unknown;

/** The stored definition of a checked file: defaults filled in, properties in one order. */
export function listDefinitionOf(f: ListFile): ListDefinition {
  return {
    key: f.key,
    displayName: f.displayName,
    ...(f.description !== undefined ? { description: f.description } : {}),
    channels: [...f.channels],
    defaultSubscribed: f.defaultSubscribed ?? true,
    critical: f.critical ?? false,
  };
}

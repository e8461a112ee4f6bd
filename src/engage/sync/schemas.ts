/** Wire shapes of POST /v1/sdk/sync (spec 01 SyncRequest, SyncResponse). */
import { DateTime, Enum, Int64, Strict, T, type Static } from '../../platform/http/schema';
import { FreeObject } from '../shared/schemas';
import { MAX_CURSOR_LENGTH, SDK_MODULES } from './cursor';

export const SdkModule = Enum(SDK_MODULES);

export const SyncRequest = Strict({
  cursor: T.Optional(
    T.Union([T.String({ maxLength: MAX_CURSOR_LENGTH, description: 'the last accepted response’s cursor; server-signed, never built or edited by the client' }), T.Null()]),
  ),
  modules: T.Array(SdkModule, { minItems: 1, maxItems: SDK_MODULES.length, uniqueItems: true }),
});
export type SyncRequest = Static<typeof SyncRequest>;

const Document = Strict({
  module: SdkModule,
  key: T.String(),
  revision: Int64(0),
  payload: FreeObject({ description: 'the document (docs/sync.md lists each module’s)' }),
});

const Tombstone = Strict({ module: SdkModule, key: T.String(), revision: Int64(0) });

export const SyncResponse = Strict({
  cursor: T.String(),
  generation: Int64(0),
  revision: Int64(0),
  fullSnapshot: T.Boolean(),
  documents: T.Array(Document),
  tombstones: T.Array(Tombstone),
  serverTime: DateTime(),
  refreshAfterSeconds: T.Integer({ minimum: 30 }),
});
export type SyncResponse = Static<typeof SyncResponse>;

/** Wire shapes of PUT /v1/sdk/privacy/revocations/{operationId} (spec 01): a path, no body. */
import { T, Uuid, type Static } from '../../platform/http/schema';

/** Path parameters; the answer is 204 with no body. */
export const RevocationParams = T.Object({
  operationId: Uuid({ description: 'Stable id of the revocation, chosen by the SDK.' }),
});
export type RevocationParams = Static<typeof RevocationParams>;

/**
 * Wire shapes of federations: the management routes (spec 03 "Federation (create)" and
 * "Federation entry") and the browser routes of a brokered sign-in.
 */
import { pageOf } from '../../platform/http/pagination';
import { Strict, T } from '../../platform/http/schema';

const TenantId = (description: string) => T.String({ format: 'uuid', description });

export const FederationCreate = Strict({ sourceTenantId: TenantId('the tenant whose users sign in'), targetTenantId: TenantId('the tenant they sign in at') });

export const FederationEntry = T.Object({
  sourceTenantId: TenantId('source tenant'),
  targetTenantId: TenantId('target tenant'),
  sourceIssuer: T.String({ description: 'the issuer users authenticate at' }),
  targetIssuer: T.String({ description: 'the issuer users sign in at' }),
  status: T.String({ description: 'ACTIVE' }),
  createdAt: T.String({ format: 'date-time' }),
});
export const FederationPage = pageOf(FederationEntry);

/** POST {issuer}/oauth2/authorize/federation: the sign-in page's "Sign in with <source>". */
export const FederationStartForm = T.Object({
  interaction_id: T.Optional(T.String()),
  csrf_token: T.Optional(T.String()),
  source: T.Optional(T.String({ description: 'the source tenant slug' })),
});

/** GET {issuer}/oauth2/authorize/federation/callback: the source issuer's authorization response (RFC 6749 §4.1.2, RFC 9207). */
export const FederationCallbackQuery = {
  code: { schema: T.String({ description: 'authorization code of the source issuer' }) },
  state: { schema: T.String({ description: 'the state of the brokered request' }), required: true },
  iss: { schema: T.String({ description: 'the source issuer (RFC 9207)' }) },
  error: { schema: T.String({ description: 'an error of the source issuer' }) },
  error_description: { schema: T.String() },
};

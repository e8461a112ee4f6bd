import { ScopeToken, Strict, T, checker } from '../../platform/http/schema';

/** RFC 8707 §2: an absolute URI without a fragment. */
export const ResourceUri = () => T.String({ format: 'uri', pattern: '^[^#]*$', maxLength: 2048, description: 'absolute URI without a fragment' });

/** Spec 03 Resource (request and entry share their fields; status is the server's). */
export const ResourceInput = Strict({
  uri: ResourceUri(),
  audience: T.String({ minLength: 1, maxLength: 2048, description: 'the value a receiving API expects in aud' }),
  scopes: T.Array(ScopeToken()),
});
export const checkResourceInput = checker(ResourceInput);

/** Spec 03 credential issue request. */
export const CredentialIssue = Strict({ resourceUri: T.String({ minLength: 1, description: 'a registered resource URI' }) });
export const checkCredentialIssue = checker(CredentialIssue);

/**
 * The administration APIs' error codes in words (spec 03 and the engagement administration
 * API). The code itself stays visible beside the sentence, for a search or a support request.
 */
const WORDS: Record<string, string> = {
  invalid_request: 'Some of what was entered is not valid.',
  not_found: 'It does not exist (any more), or you may not see it.',
  conflict: 'It conflicts with something that already exists.',
  already_exists: 'Something with that name already exists.',
  client_conflict: 'Another client of this tenant already has this client id.',
  unknown_client: 'There is no such client in this tenant (any more).',
  unknown_client_resource: 'The default resource is not a resource registered in this tenant.',
  resource_conflict: 'Another resource of this tenant already has this URI or audience.',
  operation_conflict: 'This cannot be done in the current state (it may have been done already).',
  access_denied: 'You do not have the permission this needs. Ask an operator who has it.',
  insufficient_scope: 'Your sign-in does not cover this. Sign out and in again.',
  invalid_token: 'Your sign-in has expired. Sign in again.',
  signed_out: 'Your sign-in has expired. Sign in again.',
  configuration_managed: 'This is managed by engage apply: change it in the configuration file instead.',
  administration_disabled: 'The administration API is turned off on this server.',
  environment_disabled: 'The environment is disabled: enable it first.',
  environment_deleting: 'The environment is being deleted.',
  idempotency_key_reused: 'This request was already made with different content.',
  rate_limited: 'Too many requests. Wait a moment and try again.',
  template_exists: 'A template with this key already exists in the environment.',
  template_not_found: 'There is no template with this key in the environment.',
  version_not_found: 'The template has no such version (no draft, or nothing published yet).',
  no_draft: 'There is no draft to publish: save an edit first.',
  template_archived: 'The template is archived: it can no longer be edited, published or sent.',
  template_not_active: 'The template has no published version yet: publish it first.',
  invalid_variables: 'The sample variables do not fit the template.',
  message_too_large: 'The rendered push is larger than the providers accept (4 KiB).',
  test_group_not_found: 'There is no such test group in the environment.',
  send_not_found: 'There is no send with this request id in the environment.',
  unknown_installation: 'There is no installation with this id in the environment.',
  unknown_profile: 'There is no profile with this id or external id in the environment.',
  unknown_environment: 'There is no such environment (any more), or you may not see it.',
  unknown_app: 'There is no such app in this environment (any more).',
  unknown_access_key: 'There is no such access key in this environment (any more).',
  name_taken: 'Another one in this environment already has this name.',
  app_in_use: 'The app still has installations or provider credentials: disable it instead, or delete its credentials first.',
  access_key_revoked: 'The access key is revoked: it can no longer be rotated.',
  access_key_expired: 'The access key has expired: create a new one.',
  credentials_not_found: 'The app has no credentials of this provider.',
  invalid_credentials: 'The credentials are not valid: an APNs key must be an EC P-256 .p8 file of an iOS app, an FCM key a service-account JSON file with an RSA key of an Android app.',
  test_group_exists: 'A test group with this name already exists in the environment.',
  network: 'The server could not be reached. Check your connection and try again.',
};

export function describeError(status: number, code: string, detail?: string): string {
  const words = WORDS[code] ?? (status >= 500 ? 'The server failed to answer. Try again in a moment.' : 'The server refused this.');
  return detail ? `${words} ${detail}` : words;
}

/**
 * One writing context per table (CONVENTIONS.md "Layers"): the context that alone INSERTs,
 * UPDATEs and DELETEs each table's rows. Others read through the owner's service (or a read
 * model it exports) and change its rows by calling the owner's service functions, handing them
 * their transaction (`applyIn(tx, …)`). A context is a folder under src/identity, src/engage or
 * src/platform (as the `engage/own-stores` lint rule names them). db/owners.test.ts scans every
 * SQL text of src and fails when a table is written outside its owner, or when a table of the
 * schema has none here.
 *
 * The one sanctioned exception is privacy erasure (engage/privacy/store.ts `eraseOwnedRows`): it
 * executes the erasure registry (db/schema/erasure.ts), where each owning table declares what
 * erasure does to its rows, in the erasure's single transaction.
 */
export const TABLE_OWNERS: Readonly<Record<string, string>> = {
  // platform
  engage_migrations: 'platform/store',
  version_channels: 'platform/store',
  job_leases: 'platform/jobs',
  mail_outbox: 'platform/mail',
  work_items: 'platform/work',
  audit_events: 'platform/audit',

  // identity
  tenants: 'identity/tenants',
  signing_keys: 'identity/keys',
  users: 'identity/users',
  clients: 'identity/clients',
  resources: 'identity/resources',
  resource_credentials: 'identity/credentials',
  authorization_codes: 'identity/oauth',
  grants: 'identity/oauth',
  consents: 'identity/oauth',
  refresh_tokens: 'identity/oauth',
  revoked_access_tokens: 'identity/oauth',
  device_authorizations: 'identity/oauth',
  browser_sessions: 'identity/sessions',
  browser_interactions: 'identity/sessions',
  session_accounts: 'identity/sessions',
  login_throttle: 'identity/sessions',
  native_interactions: 'identity/native',
  native_challenges: 'identity/native',
  native_grants: 'identity/native',
  user_totp_factors: 'identity/mfa',
  user_recovery_codes: 'identity/mfa',
  identity_providers: 'identity/providers',
  user_identities: 'identity/providers',
  upstream_token_uses: 'identity/providers',
  user_import_sources: 'identity/transfer',
  user_transfer_jobs: 'identity/transfer',
  user_transfer_results: 'identity/transfer',
  directory_organizations: 'identity/directory',
  directory_organization_members: 'identity/directory',
  directory_teams: 'identity/directory',
  directory_team_members: 'identity/directory',
  directory_permissions: 'identity/directory',
  directory_roles: 'identity/directory',
  directory_role_permissions: 'identity/directory',
  directory_role_assignments: 'identity/directory',
  federations: 'identity/federations',
  federation_logins: 'identity/federations',

  // engage
  environments: 'engage/environments',
  apps: 'engage/environments',
  access_keys: 'engage/environments',
  test_groups: 'engage/messaging',
  test_group_members: 'engage/messaging',
  // Profile state: the installation row (credentials, generation, push and privacy state), its
  // generation fence, profiles and their attributes, tags and subscriptions (last-writer-wins).
  installations: 'engage/profiles',
  installation_generations: 'engage/profiles',
  profiles: 'engage/profiles',
  installation_attributes: 'engage/profiles',
  profile_attributes: 'engage/profiles',
  profile_tags: 'engage/profiles',
  installation_subscriptions: 'engage/profiles',
  profile_subscriptions: 'engage/profiles',
  binding_codes: 'engage/binding',
  binding_transitions: 'engage/binding',
  operations: 'engage/operations',
  // Remote-state sync (issue 26): the definitions revision of each environment (commit order),
  // flags with their versions, schedules, exposures and sticky assignments, lists, push channels.
  sync_environments: 'engage/definitions',
  flags: 'engage/flags',
  flag_versions: 'engage/flags',
  flag_schedules: 'engage/flags',
  flag_exposures: 'engage/flags',
  flag_sticky_assignments: 'engage/flags',
  subscription_lists: 'engage/preferences',
  push_channels: 'engage/push-channels',
  // The inbox (issue 27): entries, their owners' counters, operation batches and ids.
  inbox_entries: 'engage/inbox',
  inbox_owners: 'engage/inbox',
  inbox_batches: 'engage/inbox',
  inbox_operations: 'engage/inbox',
  // In-app messages (issue 27): messages, interaction counts, impression windows.
  in_app_messages: 'engage/in-app',
  in_app_interactions: 'engage/in-app',
  in_app_impressions: 'engage/in-app',
  in_app_grants: 'engage/in-app',
  // Outbound webhooks (issue 28): each environment's signing secrets (sealed).
  webhook_secrets: 'engage/webhooks',
  // Automations (issue 28): definitions, versions, runs, step executions, the trigger's idempotency ledger.
  automations: 'engage/automations',
  automation_versions: 'engage/automations',
  automation_runs: 'engage/automations',
  automation_steps: 'engage/automations',
  automation_triggers: 'engage/automations',
  operation_batches: 'engage/operations',
  revoked_installations: 'engage/privacy',
  push_credentials: 'engage/messaging',
  push_templates: 'engage/messaging',
  push_template_versions: 'engage/messaging',
  push_sends: 'engage/messaging',
  push_send_recipients: 'engage/messaging',
  push_deliveries: 'engage/messaging',
  push_rate_windows: 'engage/messaging',
};

/**
 * Files whose SQL names the table it writes at run time (`UPDATE ${table}`), with why: the scan
 * cannot see those tables, so each such file is named here and reviewed.
 */
export const DYNAMIC_WRITERS: Readonly<Record<string, string>> = {
  // `updateStatement(table, …)` builds partial UPDATEs; each call's table is checked at the call.
  'src/platform/store/sql.ts': 'updateStatement: the table is the caller’s (checked where it is called)',
  'src/engage/privacy/store.ts': 'executes the erasure registry (db/schema/erasure.ts), declared by each owning table',
  'src/engage/environments/deletion-store.ts': 'executes the environment deletion registry (db/schema/environment-deletion.ts), declared by each owning table',
  // `claimText(table, …)` (platform/work) builds a claim over a work table; each ClaimTable is declared in its owner's store.
  'src/platform/work/claim.ts': 'claimText: the table is the ClaimTable of its owning store (work_items, mail_outbox, push_deliveries)',
};

CREATE TABLE "authorization_codes" (
	"code_digest" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"client_id" text NOT NULL,
	"user_id" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"code_challenge" text NOT NULL,
	"scope" text NOT NULL,
	"resource" text,
	"nonce" text,
	"auth_time" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"consumed_at" bigint,
	"grant_id" text
);
--> statement-breakpoint
CREATE TABLE "clients" (
	"tenant_id" text NOT NULL,
	"client_id" text NOT NULL,
	"display_name" text NOT NULL,
	"application_type" text NOT NULL,
	"token_endpoint_auth_method" text NOT NULL,
	"consent_policy" text NOT NULL,
	"redirect_uris" text NOT NULL,
	"web_origins" text,
	"scopes" text NOT NULL,
	"default_resource" text,
	"native_authentication_enabled" integer DEFAULT 0 NOT NULL,
	"secret_digest" text,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"configuration_managed" integer DEFAULT 0 NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "clients_tenant_id_client_id_pk" PRIMARY KEY("tenant_id","client_id")
);
--> statement-breakpoint
CREATE TABLE "consents" (
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"client_id" text NOT NULL,
	"scope" text NOT NULL,
	"resource" text,
	"created_at" text NOT NULL,
	CONSTRAINT "consents_tenant_id_user_id_client_id_pk" PRIMARY KEY("tenant_id","user_id","client_id")
);
--> statement-breakpoint
CREATE TABLE "grants" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"client_id" text NOT NULL,
	"user_id" text NOT NULL,
	"scope" text NOT NULL,
	"resource" text,
	"auth_time" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint,
	"expires_at" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"token_digest" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"grant_id" text NOT NULL,
	"client_id" text NOT NULL,
	"scope" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"rotated_at" bigint,
	"replaced_by" text,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "resource_credentials" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"resource_id" text NOT NULL,
	"secret_digest" text NOT NULL,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"created_at" text NOT NULL,
	"revoked_at" text
);
--> statement-breakpoint
CREATE TABLE "resources" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"uri" text NOT NULL,
	"audience" text NOT NULL,
	"scopes" text NOT NULL,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "revoked_access_tokens" (
	"jti" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"state" text NOT NULL,
	"alg" text DEFAULT 'RS256' NOT NULL,
	"public_jwk" text NOT NULL,
	"private_sealed" text NOT NULL,
	"created_at" text NOT NULL,
	"activated_at" text,
	"retired_at" text,
	"retire_after" bigint
);
--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" text PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"managed_path" text NOT NULL,
	"custom_issuer" text,
	"custom_host" text,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"registration_mode" text DEFAULT 'CONTROLLED' NOT NULL,
	"is_control" integer DEFAULT 0 NOT NULL,
	"configuration_managed" integer DEFAULT 0 NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "tenants_slug_unique" UNIQUE("slug"),
	CONSTRAINT "tenants_managed_path_unique" UNIQUE("managed_path"),
	CONSTRAINT "tenants_custom_issuer_unique" UNIQUE("custom_issuer"),
	CONSTRAINT "tenants_custom_host_unique" UNIQUE("custom_host")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"subject" text NOT NULL,
	"email" text NOT NULL,
	"email_verified" integer DEFAULT 0 NOT NULL,
	"password_hash" text,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "browser_interactions" (
	"id_digest" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"request" text NOT NULL,
	"user_id" text,
	"auth_time" bigint,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "browser_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"token_digest" text NOT NULL,
	"active_user_id" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "browser_sessions_token_digest_unique" UNIQUE("token_digest")
);
--> statement-breakpoint
CREATE TABLE "login_throttle" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" bigint NOT NULL,
	"last_failure_at" bigint NOT NULL,
	"locked_until" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "session_accounts" (
	"session_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"auth_time" bigint NOT NULL,
	CONSTRAINT "session_accounts_session_id_user_id_pk" PRIMARY KEY("session_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "access_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"name" text,
	"key_digest" text NOT NULL,
	"app_ids" text NOT NULL,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"created_at" text NOT NULL,
	"rotated_at" text,
	"revoked_at" text,
	CONSTRAINT "access_keys_key_digest_unique" UNIQUE("key_digest")
);
--> statement-breakpoint
CREATE TABLE "apps" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"platform" text NOT NULL,
	"name" text NOT NULL,
	"app_key" text NOT NULL,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "apps_app_key_unique" UNIQUE("app_key")
);
--> statement-breakpoint
CREATE TABLE "binding_codes" (
	"code_digest" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"installation_id" text NOT NULL,
	"generation" bigint NOT NULL,
	"code_sealed" text NOT NULL,
	"status" text NOT NULL,
	"expires_ms" bigint NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "binding_transitions" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"request_hash" text NOT NULL,
	"installation_id" text NOT NULL,
	"response" text NOT NULL,
	"committed_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "environments" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "environments_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "installation_attributes" (
	"installation_id" text NOT NULL,
	"key" text NOT NULL,
	"value" text,
	"ms" bigint NOT NULL,
	"op" text NOT NULL,
	CONSTRAINT "installation_attributes_installation_id_key_pk" PRIMARY KEY("installation_id","key")
);
--> statement-breakpoint
CREATE TABLE "installation_generations" (
	"installation_id" text NOT NULL,
	"generation" bigint NOT NULL,
	"profile_id" text NOT NULL,
	"binding_state" text NOT NULL,
	"committed_at" text NOT NULL,
	CONSTRAINT "installation_generations_installation_id_generation_pk" PRIMARY KEY("installation_id","generation")
);
--> statement-breakpoint
CREATE TABLE "installation_subscriptions" (
	"installation_id" text NOT NULL,
	"list" text NOT NULL,
	"subscribed" integer NOT NULL,
	"ms" bigint NOT NULL,
	"op" text NOT NULL,
	CONSTRAINT "installation_subscriptions_installation_id_list_pk" PRIMARY KEY("installation_id","list")
);
--> statement-breakpoint
CREATE TABLE "installations" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"app_id" text NOT NULL,
	"platform" text NOT NULL,
	"locale" text NOT NULL,
	"timezone" text NOT NULL,
	"sdk_version" text NOT NULL,
	"app_version" text NOT NULL,
	"app_build" text,
	"device_model" text,
	"os_version" text,
	"credential_digest" text NOT NULL,
	"revocation_digest" text NOT NULL,
	"recovery_digest" text NOT NULL,
	"generation" bigint DEFAULT 0 NOT NULL,
	"profile_id" text NOT NULL,
	"binding_state" text DEFAULT 'ANONYMOUS' NOT NULL,
	"privacy" text DEFAULT 'OPTED_IN' NOT NULL,
	"privacy_ms" bigint DEFAULT 0 NOT NULL,
	"privacy_op" text DEFAULT '' NOT NULL,
	"push_subscription" text DEFAULT 'OPTED_IN' NOT NULL,
	"push_subscription_ms" bigint DEFAULT 0 NOT NULL,
	"push_subscription_op" text DEFAULT '' NOT NULL,
	"push_permission" text DEFAULT 'NOT_DETERMINED' NOT NULL,
	"push_permission_ms" bigint DEFAULT 0 NOT NULL,
	"push_permission_op" text DEFAULT '' NOT NULL,
	"push_token" text,
	"push_token_ms" bigint DEFAULT 0 NOT NULL,
	"push_token_op" text DEFAULT '' NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "installations_credential_digest_unique" UNIQUE("credential_digest"),
	CONSTRAINT "installations_revocation_digest_unique" UNIQUE("revocation_digest"),
	CONSTRAINT "installations_recovery_digest_unique" UNIQUE("recovery_digest")
);
--> statement-breakpoint
CREATE TABLE "operation_batches" (
	"installation_id" text NOT NULL,
	"batch_id" text NOT NULL,
	"result" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "operation_batches_installation_id_batch_id_pk" PRIMARY KEY("installation_id","batch_id")
);
--> statement-breakpoint
CREATE TABLE "operations" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"installation_id" text NOT NULL,
	"operation_id" text NOT NULL,
	"environment_id" text NOT NULL,
	"profile_id" text,
	"generation" bigint NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"occurred_ms" bigint,
	"received_ms" bigint NOT NULL,
	"payload" text
);
--> statement-breakpoint
CREATE TABLE "profile_attributes" (
	"profile_id" text NOT NULL,
	"key" text NOT NULL,
	"value" text,
	"ms" bigint NOT NULL,
	"op" text NOT NULL,
	CONSTRAINT "profile_attributes_profile_id_key_pk" PRIMARY KEY("profile_id","key")
);
--> statement-breakpoint
CREATE TABLE "profile_subscriptions" (
	"profile_id" text NOT NULL,
	"list" text NOT NULL,
	"channel" text NOT NULL,
	"subscribed" integer NOT NULL,
	"ms" bigint NOT NULL,
	"op" text NOT NULL,
	CONSTRAINT "profile_subscriptions_profile_id_list_channel_pk" PRIMARY KEY("profile_id","list","channel")
);
--> statement-breakpoint
CREATE TABLE "profile_tags" (
	"profile_id" text NOT NULL,
	"tag" text NOT NULL,
	"present" integer NOT NULL,
	"ms" bigint NOT NULL,
	"op" text NOT NULL,
	CONSTRAINT "profile_tags_profile_id_tag_pk" PRIMARY KEY("profile_id","tag")
);
--> statement-breakpoint
CREATE TABLE "profiles" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"external_id" text,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "revoked_installations" (
	"revocation_digest" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"operation_id" text NOT NULL,
	"revoked_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "catalog_version" (
	"id" bigint PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_leases" (
	"name" text PRIMARY KEY NOT NULL,
	"owner" text,
	"lease_until" bigint DEFAULT 0 NOT NULL,
	"run_after" bigint DEFAULT 0 NOT NULL,
	"last_run_at" bigint
);
--> statement-breakpoint
ALTER TABLE "authorization_codes" ADD CONSTRAINT "authorization_codes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "authorization_codes" ADD CONSTRAINT "authorization_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "clients" ADD CONSTRAINT "clients_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consents" ADD CONSTRAINT "consents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consents" ADD CONSTRAINT "consents_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_grant_id_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."grants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_credentials" ADD CONSTRAINT "resource_credentials_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_credentials" ADD CONSTRAINT "resource_credentials_resource_id_resources_id_fk" FOREIGN KEY ("resource_id") REFERENCES "public"."resources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resources" ADD CONSTRAINT "resources_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "revoked_access_tokens" ADD CONSTRAINT "revoked_access_tokens_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signing_keys" ADD CONSTRAINT "signing_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "browser_interactions" ADD CONSTRAINT "browser_interactions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "browser_interactions" ADD CONSTRAINT "browser_interactions_session_id_browser_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."browser_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "browser_sessions" ADD CONSTRAINT "browser_sessions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_accounts" ADD CONSTRAINT "session_accounts_session_id_browser_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."browser_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_accounts" ADD CONSTRAINT "session_accounts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_accounts" ADD CONSTRAINT "session_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_keys" ADD CONSTRAINT "access_keys_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "apps" ADD CONSTRAINT "apps_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "binding_codes" ADD CONSTRAINT "binding_codes_installation_id_installations_id_fk" FOREIGN KEY ("installation_id") REFERENCES "public"."installations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "installation_generations" ADD CONSTRAINT "installation_generations_installation_id_installations_id_fk" FOREIGN KEY ("installation_id") REFERENCES "public"."installations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "installations" ADD CONSTRAINT "installations_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "installations" ADD CONSTRAINT "installations_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "authorization_codes_expiry" ON "authorization_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "grants_subject_client" ON "grants" USING btree ("tenant_id","user_id","client_id");--> statement-breakpoint
CREATE INDEX "grants_expiry" ON "grants" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "refresh_tokens_grant" ON "refresh_tokens" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "refresh_tokens_expiry" ON "refresh_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "resource_credentials_tenant" ON "resource_credentials" USING btree ("tenant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "resources_tenant_uri" ON "resources" USING btree ("tenant_id","uri");--> statement-breakpoint
CREATE UNIQUE INDEX "resources_tenant_audience" ON "resources" USING btree ("tenant_id","audience");--> statement-breakpoint
CREATE INDEX "revoked_access_tokens_expiry" ON "revoked_access_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "signing_keys_tenant_state" ON "signing_keys" USING btree ("tenant_id","state");--> statement-breakpoint
CREATE UNIQUE INDEX "users_tenant_subject" ON "users" USING btree ("tenant_id","subject");--> statement-breakpoint
CREATE UNIQUE INDEX "users_tenant_email" ON "users" USING btree ("tenant_id","email");--> statement-breakpoint
CREATE INDEX "browser_interactions_expiry" ON "browser_interactions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "browser_sessions_expiry" ON "browser_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "access_keys_environment" ON "access_keys" USING btree ("environment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "apps_environment_name" ON "apps" USING btree ("environment_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "binding_codes_one_pending" ON "binding_codes" USING btree ("installation_id") WHERE status = 'PENDING';--> statement-breakpoint
CREATE UNIQUE INDEX "binding_transitions_idempotency" ON "binding_transitions" USING btree ("environment_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "binding_transitions_installation" ON "binding_transitions" USING btree ("installation_id");--> statement-breakpoint
CREATE INDEX "installations_environment" ON "installations" USING btree ("environment_id");--> statement-breakpoint
CREATE INDEX "installations_profile" ON "installations" USING btree ("profile_id");--> statement-breakpoint
CREATE UNIQUE INDEX "operations_installation_op" ON "operations" USING btree ("installation_id","operation_id");--> statement-breakpoint
CREATE INDEX "operations_profile" ON "operations" USING btree ("profile_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "profiles_environment_external" ON "profiles" USING btree ("environment_id","external_id") WHERE external_id IS NOT NULL;
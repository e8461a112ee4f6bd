-- Hand-written (issue 13): transactional push templates, sends and the delivery outbox.
CREATE TABLE "push_credentials" (
	"app_id" text NOT NULL,
	"environment_id" text NOT NULL,
	"provider" text NOT NULL,
	"info" text NOT NULL,
	"sealed" text NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "push_credentials_app_id_provider_pk" PRIMARY KEY("app_id","provider")
);
--> statement-breakpoint
CREATE TABLE "push_templates" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"key" text NOT NULL,
	"status" text NOT NULL,
	"published_version" bigint,
	"latest_version" bigint NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_template_versions" (
	"template_id" text NOT NULL,
	"version" bigint NOT NULL,
	"state" text NOT NULL,
	"definition" text NOT NULL,
	"created_at" text NOT NULL,
	"published_at" text,
	CONSTRAINT "push_template_versions_template_id_version_pk" PRIMARY KEY("template_id","version")
);
--> statement-breakpoint
CREATE TABLE "push_rate_windows" (
	"template_id" text NOT NULL,
	"window_ms" bigint NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "push_rate_windows_template_id_window_ms_pk" PRIMARY KEY("template_id","window_ms")
);
--> statement-breakpoint
CREATE TABLE "push_sends" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"template_id" text NOT NULL,
	"template_version" bigint NOT NULL,
	"idempotency_key" text NOT NULL,
	"request_hash" text NOT NULL,
	"access_key_id" text NOT NULL,
	"recipient_type" text NOT NULL,
	"recipient_value" text NOT NULL,
	"response" text NOT NULL,
	"created_at" text NOT NULL,
	"created_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"send_id" text NOT NULL,
	"environment_id" text NOT NULL,
	"template_id" text NOT NULL,
	"installation_id" text NOT NULL,
	"app_id" text NOT NULL,
	"provider" text NOT NULL,
	"token" text NOT NULL,
	"content_hash" text NOT NULL,
	"message" text NOT NULL,
	"state" text NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"next_attempt_ms" bigint NOT NULL,
	"expires_ms" bigint NOT NULL,
	"last_error" text,
	"created_ms" bigint NOT NULL,
	"created_at" text NOT NULL,
	"sent_at" text,
	"delivered_at" text,
	"opened_at" text,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "push_templates_environment_key" ON "push_templates" USING btree ("environment_id","key");
--> statement-breakpoint
CREATE UNIQUE INDEX "push_sends_idempotency" ON "push_sends" USING btree ("environment_id","idempotency_key");
--> statement-breakpoint
CREATE INDEX "push_sends_template" ON "push_sends" USING btree ("template_id","created_ms");
--> statement-breakpoint
CREATE INDEX "push_deliveries_due" ON "push_deliveries" USING btree ("state","next_attempt_ms");
--> statement-breakpoint
CREATE INDEX "push_deliveries_send" ON "push_deliveries" USING btree ("send_id");
--> statement-breakpoint
CREATE INDEX "push_deliveries_installation" ON "push_deliveries" USING btree ("installation_id","template_id","created_ms");
--> statement-breakpoint
CREATE INDEX "push_deliveries_template" ON "push_deliveries" USING btree ("template_id","state");

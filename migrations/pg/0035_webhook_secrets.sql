-- Hand-written (issue 28, outbound webhooks: engage/webhooks): each environment's Standard
-- Webhooks signing secrets, sealed with the master key. `generation` orders them (the highest is
-- the current one; unique per environment, so two rotations at once cannot both win); a rotated
-- secret keeps signing until `retires_ms`, null for the current one.
CREATE TABLE "webhook_secrets" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"generation" bigint NOT NULL,
	"sealed" text NOT NULL,
	"created_at" text NOT NULL,
	"created_ms" bigint NOT NULL,
	"retires_ms" bigint
);
--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_secrets_environment_generation" ON "webhook_secrets" ("environment_id","generation");

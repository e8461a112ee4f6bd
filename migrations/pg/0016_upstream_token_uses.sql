-- Hand-written (issue 21): upstream ID tokens accepted by a social sign-in (see migrations/0016).
CREATE TABLE "upstream_token_uses" (
	"digest" text PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "upstream_token_uses_expiry" ON "upstream_token_uses" USING btree ("expires_at");

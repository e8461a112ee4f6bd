-- Hand-written (issue 21 point 16): the installations and profiles each send names, so privacy
-- erasure finds the sends to redact through an index instead of reading the whole ledger.
CREATE TABLE "push_send_recipients" (
	"recipient_id" text NOT NULL,
	"send_id" text NOT NULL,
	"environment_id" text NOT NULL,
	CONSTRAINT "push_send_recipients_recipient_id_send_id_pk" PRIMARY KEY("recipient_id","send_id")
);
--> statement-breakpoint
-- Sends admitted before this migration: the installations of their diagnostics that still exist…
INSERT INTO "push_send_recipients" ("recipient_id", "send_id", "environment_id")
  SELECT d.value->>'installationId', s.id, s.environment_id FROM push_sends s, jsonb_array_elements(s.response::jsonb->'diagnostics') d(value)
   WHERE d.value->>'installationId' IN (SELECT id FROM installations)
  ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- … and their recipient, an installation or a profile that still exists.
INSERT INTO "push_send_recipients" ("recipient_id", "send_id", "environment_id")
  SELECT s.recipient_value, s.id, s.environment_id FROM push_sends s
   WHERE (s.recipient_type = 'INSTALLATION_ID' AND s.recipient_value IN (SELECT id FROM installations))
      OR (s.recipient_type = 'PROFILE' AND s.recipient_value IN (SELECT id FROM profiles))
  ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Installations erased before this migration, still named in sends: redacted as erasure now does
-- (engage/messaging/send-erasure.ts): the nil UUID for the id, no delivery id…
UPDATE push_sends s SET response = jsonb_set(s.response::jsonb, '{diagnostics}', (
    SELECT COALESCE(jsonb_agg(CASE WHEN d.value->>'installationId' IN (SELECT id FROM installations) THEN d.value
      ELSE d.value || jsonb_build_object('installationId', '00000000-0000-0000-0000-000000000000', 'deliveryId', NULL) END ORDER BY d.n), '[]'::jsonb)
    FROM jsonb_array_elements(s.response::jsonb->'diagnostics') WITH ORDINALITY d(value, n)))::text
 WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(s.response::jsonb->'diagnostics') d(value)
                WHERE d.value->>'installationId' NOT IN (SELECT id FROM installations));
--> statement-breakpoint
-- … and a send whose recipient was the erased installation or anonymous profile: no recipient, no rendered content.
UPDATE push_sends SET recipient_value = '00000000-0000-0000-0000-000000000000',
    response = (response::jsonb || jsonb_build_object('renderedTitle', '', 'renderedBody', '', 'renderedDeepLink', '', 'renderedCustomData', '{}'::jsonb))::text
 WHERE (recipient_type = 'INSTALLATION_ID' AND recipient_value NOT IN (SELECT id FROM installations))
    OR (recipient_type = 'PROFILE' AND recipient_value NOT IN (SELECT id FROM profiles));

-- Hand-written (issue 21 point 16): the installations and profiles each send names, so privacy
-- erasure finds the sends to redact through an index instead of reading the whole ledger.
-- WITHOUT ROWID: one B-tree keyed by the recipient.
CREATE TABLE `push_send_recipients` (
	`recipient_id` text NOT NULL,
	`send_id` text NOT NULL,
	`environment_id` text NOT NULL,
	PRIMARY KEY(`recipient_id`, `send_id`)
) WITHOUT ROWID;
--> statement-breakpoint
-- Sends admitted before this migration: the installations of their diagnostics that still exist…
INSERT OR IGNORE INTO `push_send_recipients` (`recipient_id`, `send_id`, `environment_id`)
  SELECT json_extract(d.value, '$.installationId'), s.id, s.environment_id FROM push_sends s, json_each(s.response, '$.diagnostics') d
   WHERE json_extract(d.value, '$.installationId') IN (SELECT id FROM installations);
--> statement-breakpoint
-- … and their recipient, an installation or a profile that still exists.
INSERT OR IGNORE INTO `push_send_recipients` (`recipient_id`, `send_id`, `environment_id`)
  SELECT s.recipient_value, s.id, s.environment_id FROM push_sends s
   WHERE (s.recipient_type = 'INSTALLATION_ID' AND s.recipient_value IN (SELECT id FROM installations))
      OR (s.recipient_type = 'PROFILE' AND s.recipient_value IN (SELECT id FROM profiles));
--> statement-breakpoint
-- Installations erased before this migration, still named in sends: redacted as erasure now does
-- (engage/messaging/send-erasure.ts): the nil UUID for the id, no delivery id…
-- json(...) around the subquery: a subquery's result loses its JSON subtype in SQLite 3.45 and
-- later, and json_set would then store the array as a string.
UPDATE push_sends SET response = json_set(response, '$.diagnostics', json((
    SELECT json_group_array(CASE WHEN json_extract(d.value, '$.installationId') IN (SELECT id FROM installations) THEN json(d.value)
      ELSE json_set(d.value, '$.installationId', '00000000-0000-0000-0000-000000000000', '$.deliveryId', json('null')) END)
    FROM json_each(push_sends.response, '$.diagnostics') d)))
 WHERE EXISTS (SELECT 1 FROM json_each(push_sends.response, '$.diagnostics') d
                WHERE json_extract(d.value, '$.installationId') NOT IN (SELECT id FROM installations));
--> statement-breakpoint
-- … and a send whose recipient was the erased installation or anonymous profile: no recipient, no rendered content.
UPDATE push_sends SET recipient_value = '00000000-0000-0000-0000-000000000000',
    response = json_set(response, '$.renderedTitle', '', '$.renderedBody', '', '$.renderedDeepLink', '', '$.renderedCustomData', json('{}'))
 WHERE (recipient_type = 'INSTALLATION_ID' AND recipient_value NOT IN (SELECT id FROM installations))
    OR (recipient_type = 'PROFILE' AND recipient_value NOT IN (SELECT id FROM profiles));

-- Hand-written (issue 13): the due index holds only PENDING deliveries. On (state, next_attempt_ms)
-- every delivery marked SENT moved its entry within the index and stayed there for good; a
-- partial index drops the entry instead, and the worker's claim scans only what is due.
DROP INDEX `push_deliveries_due`;
--> statement-breakpoint
CREATE INDEX `push_deliveries_pending` ON `push_deliveries` (`next_attempt_ms`) WHERE `state` = 'PENDING';
--> statement-breakpoint
-- Counting a template's deliveries by state (inspection) reads its rows; the index no longer
-- carries the state, so sending a delivery does not rewrite an entry here either.
DROP INDEX `push_deliveries_template`;
--> statement-breakpoint
CREATE INDEX `push_deliveries_template` ON `push_deliveries` (`template_id`);

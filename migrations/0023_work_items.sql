-- Hand-written (issue 22 point 2): the durable work items of platform/work (kind, payload of ids,
-- due time that doubles as the claim's lease, attempts), claimed row by row by every process.
CREATE TABLE `work_items` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`status` text DEFAULT 'PENDING' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`due_ms` integer NOT NULL,
	`last_error` text,
	`created_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `work_items_due` ON `work_items` (`status`,`due_ms`);

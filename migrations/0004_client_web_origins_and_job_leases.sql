CREATE TABLE `job_leases` (
	`name` text PRIMARY KEY NOT NULL,
	`owner` text,
	`lease_until` integer DEFAULT 0 NOT NULL,
	`run_after` integer DEFAULT 0 NOT NULL,
	`last_run_at` integer
);
--> statement-breakpoint
ALTER TABLE `clients` ADD `web_origins` text;
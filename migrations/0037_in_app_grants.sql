-- Hand-written (issue 28, the automations' in-app step): an in-app message made eligible for a
-- profile until a time by an automation run (messages marked automationOnly are shown only so).
CREATE TABLE `in_app_grants` (
	`profile_id` text NOT NULL,
	`message_id` text NOT NULL,
	`environment_id` text NOT NULL,
	`until_ms` integer NOT NULL,
	PRIMARY KEY(`profile_id`, `message_id`)
);
--> statement-breakpoint
CREATE INDEX `in_app_grants_environment` ON `in_app_grants` (`environment_id`);

-- Hand-written (issue 22 point 2): user transfer jobs run as work items of platform/work (kind
-- users.transfer) instead of under the leased job users.transfer: each job not yet finished gets
-- its item, due at once, so the upgraded worker picks it up where the old one left it.
INSERT INTO `work_items` (`id`, `kind`, `payload`, `status`, `attempts`, `due_ms`, `created_ms`)
SELECT 'users.transfer:' || `id`, 'users.transfer', '{"tenantId":"' || `tenant_id` || '","kind":"' || `kind` || '","jobId":"' || `id` || '"}',
  'PENDING', 0, 0, CAST(strftime('%s', 'now') AS INTEGER) * 1000
FROM `user_transfer_jobs` WHERE `status` IN ('QUEUED', 'RUNNING');
--> statement-breakpoint
-- The leased jobs that ran the mail outbox and the transfer jobs are gone (their work is claimed row by row now).
DELETE FROM `job_leases` WHERE `name` IN ('mail.send', 'users.transfer');

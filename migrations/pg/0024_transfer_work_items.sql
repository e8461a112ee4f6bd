-- Hand-written (issue 22 point 2): user transfer jobs run as work items of platform/work (see migrations/0024).
INSERT INTO "work_items" ("id", "kind", "payload", "status", "attempts", "due_ms", "created_ms")
SELECT 'users.transfer:' || "id", 'users.transfer', '{"tenantId":"' || "tenant_id" || '","kind":"' || "kind" || '","jobId":"' || "id" || '"}',
  'PENDING', 0, 0, (extract(epoch from now()) * 1000)::bigint
FROM "user_transfer_jobs" WHERE "status" IN ('QUEUED', 'RUNNING');
--> statement-breakpoint
DELETE FROM "job_leases" WHERE "name" IN ('mail.send', 'users.transfer');

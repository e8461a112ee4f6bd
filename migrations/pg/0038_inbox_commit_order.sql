-- Hand-written (issue 27, the inbox's commit order): pages follow each owner's entry numbers
-- (inbox_entries.seq, given under the owner's row lock, so in commit order) instead of sent time,
-- so a writer that commits an older entry after a reader passed a newer one is still seen.
-- One entry per number per owner; the (owner, sent time, id) index has no reader left.
DROP INDEX "inbox_entries_owner";
--> statement-breakpoint
CREATE UNIQUE INDEX "inbox_entries_owner_seq" ON "inbox_entries" ("owner_id","seq");

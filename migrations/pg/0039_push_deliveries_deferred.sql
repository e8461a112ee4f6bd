-- Hand-written (issue 26, quiet hours): a delivery deferred for the profile's quiet hours keeps the
-- instant it was deferred to, so its first attempt checks the recipient's preferences again (the
-- template's list, the quiet hours as they are then). NULL: admitted to be sent at once.
ALTER TABLE "push_deliveries" ADD COLUMN "deferred_until_ms" bigint;

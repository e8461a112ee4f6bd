-- Hand-written (issue 21): a password check spends, on every account of a tenant that still holds
-- imported hashes, one verification of that tenant's kind and cost of hash (users/service.ts), so
-- it reads one of them by tenant. Partial: only rows whose imported hash awaits its first sign-in.
CREATE INDEX "users_tenant_imported" ON "users" USING btree ("tenant_id") WHERE imported_password_hash IS NOT NULL;

-- Hand-written (issue 24, sign-in that binds the installation): an environment may name the identity
-- tenant whose user subjects are its external ids (cleared when the tenant is deleted), and an
-- authorization code keeps the digest of the installation binding code its sign-in carried.
ALTER TABLE `environments` ADD `identity_tenant_id` text REFERENCES `tenants`(`id`) ON DELETE set null;
--> statement-breakpoint
ALTER TABLE `authorization_codes` ADD `binding_code_digest` text;

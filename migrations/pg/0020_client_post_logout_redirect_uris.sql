-- Hand-written (issue 23 point 7): the URIs a client registered for RP-initiated logout
-- (OpenID Connect RP-Initiated Logout 1.0), a JSON array; null: none.
ALTER TABLE "clients" ADD COLUMN "post_logout_redirect_uris" text;

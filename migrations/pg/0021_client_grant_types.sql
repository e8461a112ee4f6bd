-- Hand-written (issue 23 point 7): the grants a client opted in to beyond authorization_code and
-- refresh_token (client_credentials, the device authorization grant), a JSON array; null: none.
ALTER TABLE "clients" ADD COLUMN "grant_types" text;

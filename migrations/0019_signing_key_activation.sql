-- Hand-written (issue 23): `engage keys rotate` stages the new key and a leased job activates
-- it once the JWKS cache lifetime has passed (identity/keys/service.ts): its due time.
ALTER TABLE `signing_keys` ADD `activate_after` integer;

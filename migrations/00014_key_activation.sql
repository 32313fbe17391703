-- Signing keys are published before they sign: a new key is in JWKS from `created_at` and becomes the signing
-- key at `activates_at`, once every verifier's cached JWKS has had time to expire (lib/oauth/keys.ts).
-- `retired_at` now means "stops signing at" (the successor's activation, possibly in the future); the key stays
-- published until its last token has expired after that.
alter table signing_keys add column activates_at timestamptz;
-- Keys made before this migration became signing keys 60 s after their creation (the previous rule).
update signing_keys set activates_at = created_at + interval '60 seconds';
alter table signing_keys alter column activates_at set not null;
alter table signing_keys alter column activates_at set default now();

-- Refresh-token rotation in place (issue 31 point 5; docs/oauth.md "Refresh tokens: storage and format").
--
-- A family's refresh state moves into its grant row: a rotation is then one update of that row — no insert, no
-- foreign-key check, no index entry — where it used to update the rotated token's row (rotated_at sat in a
-- partial index's predicate, so that update was never HOT), supersede siblings, insert a successor (three
-- foreign keys, seven index entries) and write the grant row as the family's lock. None of the columns below
-- is indexed, and the table keeps 30 % of each page free, so a rotation is a HOT update: the new row version
-- goes on the same page and no index is touched.
--
--   refresh_generation    the current token's generation (0: no refresh token issued in this format yet); the
--                         token carries its generation, so an older one is recognised without a row of its own
--   refresh_hashes        SHA-256 of each current token: the live one, plus siblings issued for retries of the
--                         token rotated last within REFRESH_REUSE_GRACE_SECONDS (at most 100)
--   refresh_rotated_hash  SHA-256 of the token rotated last, and refresh_rotated_at when: the retry window
--   refresh_issued_at     when the current token(s) were last issued, and refresh_expires_at when they expire
--   auth_time, amr        the sign-in behind the grant, for the ID token of every refresh
alter table oauth_grants
  add column refresh_generation integer not null default 0,
  add column refresh_hashes text[] not null default '{}'
    check (cardinality(refresh_hashes) <= 100),
  add column refresh_rotated_hash text,
  add column refresh_rotated_at timestamptz,
  add column refresh_issued_at timestamptz,
  add column refresh_expires_at timestamptz,
  add column auth_time timestamptz,
  add column amr text[];
alter table oauth_grants set (fillfactor = 70);

-- Tokens issued before this migration keep working: their rows are read (by hash) when one is presented; the
-- live one of its family is then rotated into the grant row, and every row of that family counts as rotated.
-- Nothing writes these rows any more; the sweeper deletes them a day after their expiry.
alter table oauth_refresh_tokens rename to oauth_refresh_legacy;
alter table oauth_refresh_legacy rename constraint oauth_refresh_tokens_pkey to oauth_refresh_legacy_pkey;
alter table oauth_refresh_legacy rename constraint oauth_refresh_tokens_token_hash_key
  to oauth_refresh_legacy_token_hash_key;
alter table oauth_refresh_legacy rename constraint oauth_refresh_tokens_family_grant to oauth_refresh_legacy_family;
alter table oauth_refresh_legacy rename constraint oauth_refresh_tokens_client_id_fkey
  to oauth_refresh_legacy_client_id_fkey;
alter table oauth_refresh_legacy rename constraint oauth_refresh_tokens_user_id_fkey to oauth_refresh_legacy_user_id_fkey;
alter index oauth_refresh_tokens_family rename to oauth_refresh_legacy_family_id;
alter index oauth_refresh_tokens_client_user rename to oauth_refresh_legacy_client_user;
alter index oauth_refresh_tokens_expires rename to oauth_refresh_legacy_expires;
-- What only rotation and superseding needed.
drop index oauth_refresh_tokens_family_live;
drop index oauth_refresh_tokens_parent;
drop index oauth_refresh_tokens_code;

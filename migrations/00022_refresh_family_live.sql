-- A refresh's work no longer grows with its family's history (issue 17, point 2).
--
-- Every rotation keeps the rotated token's row until it expires (reuse detection needs it), so a grant that is
-- refreshed all day gathers one row per refresh — 8,640 in 30 days at one refresh every five minutes. The
-- refresh statement revokes the live siblings of the token it rotates (`superseded` in lib/oauth/grants.ts:
-- `family_id = … and rotated_at is null and revoked_at is null`), and through oauth_refresh_tokens_family that
-- read every row of the family: measured, a refresh at one connection fell from 452 to 217 per second over three
-- rounds of one benchmark as its chain grew. A family has one live token, or a few while retries race; this
-- partial index holds only those, with the predicate written as the statement's condition so the planner can
-- match it. oauth_refresh_tokens_family stays for revoking a whole family.
create index oauth_refresh_tokens_family_live on oauth_refresh_tokens (family_id)
  where rotated_at is null and revoked_at is null;

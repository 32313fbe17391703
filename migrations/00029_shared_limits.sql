-- Every abuse limit is now a GCRA bucket in rate_buckets, shared by every instance (lib/rate_limit/shared.ts):
-- /mcp per key, grant and address, refused token requests and introspection join registration. Each /mcp
-- request writes its key's or grant's row, so the table is UNLOGGED: no WAL, no flush to wait for at commit.
-- A crash (not a clean restart) empties it: every bucket starts full again, the same as a window that just
-- ended. Without the index on `tat` (the hourly sweep reads the whole table: one row per bucket in use) and
-- with room left in each page, the per-request update is a HOT update that touches no index.
drop index rate_buckets_tat;
alter table rate_buckets set (fillfactor = 50);
alter table rate_buckets set unlogged;

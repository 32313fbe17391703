-- Every abuse limit is now a GCRA bucket in rate_buckets, shared by every instance (lib/rate_limit/shared.ts):
-- /mcp per key, grant and address, refused token requests and introspection join registration. Each /mcp
-- request writes its key's or grant's row, so the table is UNLOGGED: no WAL, no fsync wait at commit. A crash
-- (not a clean restart) empties it: every bucket starts full again, the same as a window that just ended.
alter table rate_buckets set unlogged;

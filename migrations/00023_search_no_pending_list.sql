-- Searches that cost the same every time (issue 17, point 4).
--
-- A GIN index collects new entries in a pending list (`fastupdate`, on by default) that every search reads in
-- full until a vacuum or a list past gin_pending_list_limit (4 MB) moves them into the index. Measured with
-- 100,000 AI activities in one workspace: a search read 310 buffers per searched column from that list, 5.9 ms
-- per statement and a median tools/call of 144 ms (minimum 8.2 ms, depending on when the list was last
-- flushed); with the list emptied, 0.15 ms and 3.2 ms. Portico writes these rows one at a time (a tool call, a
-- form), where maintaining the index at once costs a fraction of a millisecond, so every trigram index takes
-- its entries directly, and whatever is pending is moved into the index now.
alter index contacts_search_trgm set (fastupdate = off);
alter index tasks_search_trgm set (fastupdate = off);
alter index activities_search_trgm set (fastupdate = off);
alter index ai_activities_search_trgm set (fastupdate = off);
alter index workspace_documents_search_trgm set (fastupdate = off);
select gin_clean_pending_list(i) from (values
  ('contacts_search_trgm'::regclass), ('tasks_search_trgm'::regclass), ('activities_search_trgm'::regclass),
  ('ai_activities_search_trgm'::regclass), ('workspace_documents_search_trgm'::regclass)) as v (i);

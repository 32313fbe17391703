-- Searches and lists that don't grow with the workspace (issue 17, point 4).
--
-- Text search: every column a list searches with ILIKE '%…%' gets a trigram GIN entry. One multicolumn GIN
-- index per table: a condition on any subset of its columns uses it as well as a one-column index would
-- (PostgreSQL docs, "Multicolumn Indexes"), so an OR over six columns becomes a BitmapOr of six scans of one
-- index. Patterns shorter than three characters have no trigram to look up and still read every row of the
-- workspace (through the ORDER BY index below).
create extension if not exists pg_trgm;

-- list_contacts / export_contacts: `search` (contact_name, company_name, the full name, email, phone,
-- mobile_number) and each text filter. The full name is the immutable expression lib/workspace/contacts.ts
-- searches (concat_ws is only stable, so it cannot be indexed); it equals concat_ws(' ', first_name, last_name).
create index contacts_search_trgm on contacts using gin (
  company_name gin_trgm_ops, contact_name gin_trgm_ops, first_name gin_trgm_ops, last_name gin_trgm_ops,
  (coalesce(first_name || ' ' || last_name, first_name, last_name, '')) gin_trgm_ops,
  email gin_trgm_ops, phone gin_trgm_ops, mobile_number gin_trgm_ops, address gin_trgm_ops,
  postal_code gin_trgm_ops, city gin_trgm_ops, state gin_trgm_ops, country gin_trgm_ops, department gin_trgm_ops,
  groups gin_trgm_ops, source gin_trgm_ops, vat_number gin_trgm_ops
);
create index tasks_search_trgm on tasks using gin (title gin_trgm_ops, description gin_trgm_ops);
create index activities_search_trgm on activities using gin (
  title gin_trgm_ops, description gin_trgm_ops, outcome gin_trgm_ops, notes gin_trgm_ops
);
create index ai_activities_search_trgm on ai_activities using gin (
  title gin_trgm_ops, description gin_trgm_ops, agent_name gin_trgm_ops, ai_task_id gin_trgm_ops
);
create index workspace_documents_search_trgm on workspace_documents using gin (
  title gin_trgm_ops, description gin_trgm_ops, content_markdown gin_trgm_ops
);

-- Each list's default ORDER BY, workspace first, so a first page reads `limit` rows instead of sorting all.
-- contacts: `created_at desc nulls last, id desc` (nulls last must be in the index to match).
create index contacts_list_order on contacts (workspace_id, created_at desc nulls last, id desc);
-- list_tasks: top-level tasks only, `created_at desc, id`.
create index tasks_list_order on tasks (workspace_id, created_at desc, id) where parent_id is null;
-- activities, ai activities, documents: the existing (workspace_id, date desc) indexes gain the id tie-break.
create index activities_list_order on activities (workspace_id, activity_date desc, id desc);
drop index activities_workspace;
create index ai_activities_list_order on ai_activities (workspace_id, created_at desc, id desc);
drop index ai_activities_workspace;
create index workspace_documents_list_order on workspace_documents (workspace_id, created_at desc, id desc);
drop index workspace_documents_workspace;

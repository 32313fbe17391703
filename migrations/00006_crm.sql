-- CRM and AI work: contacts, collaborators, suppliers, activities, AI activities with phases, workspace documents.

create table contacts (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  -- the workspace company that owns the contact (null: every company-unlimited member sees it)
  company_id uuid,
  -- the contact's own organisation, free text
  company_name text check (length(company_name) <= 200),
  contact_name text check (length(contact_name) <= 200),
  first_name text check (length(first_name) <= 100),
  last_name text check (length(last_name) <= 100),
  email text check (length(email) <= 320),
  phone text check (length(phone) <= 50),
  mobile_number text check (length(mobile_number) <= 50),
  website text check (length(website) <= 500),
  address text check (length(address) <= 500),
  postal_code text check (length(postal_code) <= 20),
  city text check (length(city) <= 100),
  state text check (length(state) <= 100),
  country text check (length(country) <= 100),
  department text check (length(department) <= 100),
  groups text check (length(groups) <= 500),
  source text check (length(source) <= 100),
  status text not null default 'new'
    check (status in ('new', 'contacted', 'qualified', 'proposal', 'negotiation', 'won', 'lost')),
  vat_number text check (length(vat_number) <= 50),
  assigned_to uuid references users (id) on delete set null,
  notes text check (length(notes) <= 10000),
  next_follow_up date,
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade
);
create index contacts_workspace on contacts (workspace_id, company_id, created_at desc);

-- No tool creates collaborators or suppliers yet; activities may refer to them (demo data has some).
create table collaborators (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  name text not null check (length(name) between 1 and 200),
  email text check (length(email) <= 320),
  phone text check (length(phone) <= 50),
  role text check (length(role) <= 100),
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade
);
create index collaborators_workspace on collaborators (workspace_id, company_id);

create table suppliers (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  name text not null check (length(name) between 1 and 200),
  email text check (length(email) <= 320),
  phone text check (length(phone) <= 50),
  vat_number text check (length(vat_number) <= 50),
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade
);
create index suppliers_workspace on suppliers (workspace_id, company_id);

create table activities (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  -- copied from the referenced record so scoping needs no join
  company_id uuid,
  contact_id uuid,
  client_id uuid,
  collaborator_id uuid,
  supplier_id uuid,
  type text not null default 'other'
    check (type in ('call', 'email', 'meeting', 'lunch', 'visit', 'video_call', 'message', 'other')),
  title text not null check (length(title) between 1 and 200),
  description text check (length(description) <= 10000),
  activity_date timestamptz not null default now(),
  start_at timestamptz,
  end_at timestamptz,
  is_all_day boolean not null default false,
  duration_minutes integer check (duration_minutes between 0 and 10080),
  is_completed boolean not null default false,
  completed_at timestamptz,
  outcome text check (length(outcome) <= 2000),
  notes text check (length(notes) <= 10000),
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  constraint activities_one_entity check (num_nonnulls(contact_id, client_id, collaborator_id, supplier_id) = 1),
  constraint activities_dates check (end_at is null or start_at is null or end_at >= start_at),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade,
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade,
  foreign key (workspace_id, client_id) references clients (workspace_id, id) on delete cascade,
  foreign key (workspace_id, collaborator_id) references collaborators (workspace_id, id) on delete cascade,
  foreign key (workspace_id, supplier_id) references suppliers (workspace_id, id) on delete cascade
);
create index activities_workspace on activities (workspace_id, activity_date desc);
create index activities_contact on activities (contact_id) where contact_id is not null;
create index activities_client on activities (client_id) where client_id is not null;
create index activities_collaborator on activities (collaborator_id) where collaborator_id is not null;
create index activities_supplier on activities (supplier_id) where supplier_id is not null;

create table ai_activities (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  kind text not null check (kind in ('research', 'analysis', 'writing', 'summary', 'planning', 'coding',
                                     'data_processing', 'communication', 'other')),
  source text not null default 'mcp' check (source in ('mcp', 'chat', 'agent', 'automation', 'api', 'manual')),
  status text not null default 'running'
    check (status in ('queued', 'running', 'waiting', 'completed', 'failed', 'cancelled')),
  title text not null check (length(title) between 1 and 200),
  description text check (length(description) <= 10000),
  agent_name text check (length(agent_name) <= 200),
  -- the agent platform's own id of the task, free text
  ai_task_id text check (length(ai_task_id) <= 200),
  result_markdown text not null default '',
  metadata jsonb not null default '{}',
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  finished_at timestamptz,
  unique (workspace_id, id),
  -- 1 MiB of UTF-8; appends that would pass it are refused
  constraint ai_activities_result_size check (octet_length(result_markdown) <= 1048576),
  constraint ai_activities_metadata check (jsonb_typeof(metadata) = 'object'),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade
);
create index ai_activities_workspace on ai_activities (workspace_id, created_at desc);

create table ai_activity_phases (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  activity_id uuid not null,
  -- 1, 2, 3 … in the order the phases were first reported
  position integer not null check (position >= 1),
  name text not null check (length(name) between 1 and 100),
  status text not null check (status in ('pending', 'running', 'completed', 'failed', 'skipped')),
  summary text check (length(summary) <= 10000),
  error text check (length(error) <= 10000),
  started_at timestamptz,
  finished_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (activity_id, name),
  unique (activity_id, position),
  foreign key (workspace_id, activity_id) references ai_activities (workspace_id, id) on delete cascade
);

create table workspace_documents (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  title text not null check (length(title) between 1 and 200),
  description text check (length(description) <= 10000),
  kind text not null check (kind in ('report', 'brief', 'notes', 'research', 'proposal', 'contract',
                                     'specification', 'transcript', 'summary', 'other')),
  source text not null default 'ai' check (source in ('ai', 'user', 'upload', 'import', 'integration')),
  mime_type text not null default 'text/markdown' check (length(mime_type) <= 200),
  content_markdown text,
  storage_provider text check (storage_provider in ('s3', 'gcs', 'azure_blob', 'google_drive', 'dropbox',
                                                    'onedrive', 'sharepoint', 'url')),
  storage_path text check (length(storage_path) <= 1024),
  storage_url text check (length(storage_url) <= 2048),
  file_size_bytes bigint check (file_size_bytes >= 0),
  checksum_sha256 text check (checksum_sha256 ~ '^[0-9a-f]{64}$'),
  metadata jsonb not null default '{}',
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  constraint workspace_documents_content_size check (octet_length(content_markdown) <= 1048576),
  constraint workspace_documents_metadata check (jsonb_typeof(metadata) = 'object'),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade
);
create index workspace_documents_workspace on workspace_documents (workspace_id, created_at desc);

create table ai_activity_documents (
  workspace_id uuid not null,
  activity_id uuid not null,
  document_id uuid not null,
  relationship text not null default 'output'
    check (relationship in ('output', 'input', 'reference', 'attachment')),
  created_at timestamptz not null default now(),
  primary key (activity_id, document_id),
  foreign key (workspace_id, activity_id) references ai_activities (workspace_id, id) on delete cascade,
  foreign key (workspace_id, document_id) references workspace_documents (workspace_id, id) on delete cascade
);
create index ai_activity_documents_document on ai_activity_documents (document_id);

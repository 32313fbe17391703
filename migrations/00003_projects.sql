-- Projects, and the minimal clients and offers tables projects refer to (their own issues add columns).

create table clients (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  name text not null check (length(name) between 1 and 200),
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade
);
create index clients_workspace on clients (workspace_id, company_id);

create table offers (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  client_id uuid,
  title text not null check (length(title) between 1 and 200),
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade,
  foreign key (workspace_id, client_id) references clients (workspace_id, id) on delete set null (client_id)
);
create index offers_workspace on offers (workspace_id, company_id);

create table projects (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  client_id uuid,
  offer_id uuid,
  name text not null check (length(name) between 1 and 200),
  description text not null default '' check (length(description) <= 10000),
  status text not null default 'in_progress' check (status in ('in_progress', 'completed', 'invoiced')),
  start_date date,
  end_date date,
  budget numeric(14, 2) check (budget >= 0),
  estimated_hours numeric(10, 2) check (estimated_hours >= 0),
  notes text not null default '' check (length(notes) <= 10000),
  currency text not null default 'EUR' check (currency ~ '^[A-Z]{3}$'),
  -- tasks of the project are numbered PREFIX-1, PREFIX-2 …
  task_prefix text check (task_prefix ~ '^[A-Z][A-Z0-9]{1,9}$'),
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  constraint projects_dates check (end_date is null or start_date is null or end_date >= start_date),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade,
  foreign key (workspace_id, client_id) references clients (workspace_id, id) on delete set null (client_id),
  foreign key (workspace_id, offer_id) references offers (workspace_id, id) on delete set null (offer_id)
);
create index projects_workspace on projects (workspace_id, company_id, created_at desc);
create unique index projects_task_prefix on projects (workspace_id, task_prefix) where task_prefix is not null;

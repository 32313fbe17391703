-- Commercial side: client details, offers with rows and payment-plan tranches, invoices and credit notes with
-- rows and a gapless per-workspace-per-year number, and ideas. Money is numeric(14,2), never float.

-- Clients (the table comes from 00003_projects.sql; `name` is the company name) -----------------------------

alter table clients
  add column first_name text check (length(first_name) <= 100),
  add column last_name text check (length(last_name) <= 100),
  add column email text check (length(email) <= 320),
  add column phone text check (length(phone) <= 50),
  add column vat_number text check (length(vat_number) <= 50),
  add column address text check (length(address) <= 500),
  add column postal_code text check (length(postal_code) <= 20),
  add column city text check (length(city) <= 100),
  add column country text check (length(country) <= 100),
  add column department text check (length(department) <= 200),
  -- default VAT rate (percent) of the client's new invoices
  add column vat_rate numeric(5, 2) check (vat_rate between 0 and 100),
  add column intermediary text check (length(intermediary) <= 200),
  -- the intermediary's commission, percent
  add column commission numeric(5, 2) check (commission between 0 and 100),
  add column updated_at timestamptz not null default now();
create index clients_name on clients (workspace_id, lower(name));

-- Offers (the table comes from 00003_projects.sql; `title` is the subject) ----------------------------------

alter table offers
  add column description text not null default '' check (length(description) <= 10000),
  add column offer_date date not null default current_date,
  add column valid_until date,
  add column currency text not null default 'EUR' check (currency ~ '^[A-Z]{3}$'),
  add column notes text not null default '' check (length(notes) <= 10000),
  -- Σ row amounts (net, no VAT); computed by the server from the rows
  add column total numeric(14, 2) not null default 0 check (total >= 0),
  add column created_by uuid references users (id) on delete set null,
  add constraint offers_dates check (valid_until is null or valid_until >= offer_date);

create table offer_rows (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  offer_id uuid not null,
  position integer not null check (position >= 1),
  description text not null check (length(description) between 1 and 1000),
  quantity numeric(12, 3) not null check (quantity > 0),
  unit text check (length(unit) <= 20),
  unit_price numeric(14, 2) not null check (unit_price >= 0),
  discount_percent numeric(5, 2) not null default 0 check (discount_percent between 0 and 100),
  amount numeric(14, 2) not null check (amount >= 0),
  unique (offer_id, position),
  foreign key (workspace_id, offer_id) references offers (workspace_id, id) on delete cascade
);

create table offer_tranches (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  offer_id uuid not null,
  position integer not null check (position >= 1),
  label text not null default '' check (length(label) <= 200),
  -- exactly one of percentage and fixed_amount was given; amount is the tranche's share in money either way
  percentage numeric(5, 2) check (percentage > 0 and percentage <= 100),
  fixed_amount numeric(14, 2) check (fixed_amount > 0),
  amount numeric(14, 2) not null check (amount >= 0),
  due_date date,
  status text not null default 'to_invoice' check (status in ('to_invoice', 'invoiced')),
  invoice_id uuid,
  invoiced_at timestamptz,
  unique (workspace_id, id),
  unique (offer_id, position),
  constraint offer_tranches_one_kind check ((percentage is null) <> (fixed_amount is null)),
  foreign key (workspace_id, offer_id) references offers (workspace_id, id) on delete cascade
);

-- Invoices and credit notes -------------------------------------------------------------------------------

-- One row per workspace and year; `last` is the last number handed out. Bumped inside the invoice's own
-- transaction (insert … on conflict do update … returning), so the row lock serialises concurrent creations and
-- a rolled-back invoice gives its number back: no duplicates, no gaps.
create table invoice_counters (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  year integer not null check (year between 1900 and 9999),
  last integer not null check (last >= 1),
  primary key (workspace_id, year)
);

create table invoices (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  client_id uuid,
  project_id uuid,
  offer_id uuid,
  -- `2026-0007`: year of the invoice date and its place in that year's sequence
  number text not null,
  year integer not null,
  sequence integer not null check (sequence >= 1),
  type text not null check (type in ('recurring', 'project', 'credit_note')),
  is_credit_note boolean not null default false,
  original_invoice_id uuid,
  status text not null default 'draft' check (status in ('draft', 'sent', 'partially_paid', 'paid')),
  subject text not null default '' check (length(subject) <= 200),
  description text not null default '' check (length(description) <= 10000),
  invoice_date date not null,
  due_date date,
  currency text not null default 'EUR' check (currency ~ '^[A-Z]{3}$'),
  notes text not null default '' check (length(notes) <= 10000),
  payment_method text check (length(payment_method) <= 100),
  vat_rate numeric(5, 2) not null default 0 check (vat_rate between 0 and 100),
  -- stored positive for credit notes too (shown and summed negative); all computed by the server
  subtotal numeric(14, 2) not null default 0 check (subtotal >= 0),
  vat_amount numeric(14, 2) not null default 0 check (vat_amount >= 0),
  rounding_adjustment numeric(14, 2) not null default 0 check (rounding_adjustment between -1 and 1),
  total numeric(14, 2) not null default 0 check (total >= 0),
  collected_amount numeric(14, 2) not null default 0 check (collected_amount >= 0 and collected_amount <= total),
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  unique (workspace_id, number),
  unique (workspace_id, year, sequence),
  constraint invoices_credit_note check (is_credit_note = (type = 'credit_note')),
  constraint invoices_original check (original_invoice_id is null or is_credit_note),
  constraint invoices_dates check (due_date is null or due_date >= invoice_date),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade,
  foreign key (workspace_id, client_id) references clients (workspace_id, id) on delete set null (client_id),
  foreign key (workspace_id, project_id) references projects (workspace_id, id) on delete set null (project_id),
  foreign key (workspace_id, offer_id) references offers (workspace_id, id) on delete set null (offer_id),
  foreign key (workspace_id, original_invoice_id) references invoices (workspace_id, id)
    on delete set null (original_invoice_id)
);
create index invoices_workspace on invoices (workspace_id, company_id, invoice_date desc);
create index invoices_client on invoices (workspace_id, client_id);

create table invoice_rows (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  invoice_id uuid not null,
  position integer not null check (position >= 1),
  description text not null check (length(description) between 1 and 1000),
  quantity numeric(12, 3) not null check (quantity > 0),
  unit text check (length(unit) <= 20),
  unit_price numeric(14, 2) not null check (unit_price >= 0),
  discount_percent numeric(5, 2) not null default 0 check (discount_percent between 0 and 100),
  amount numeric(14, 2) not null check (amount >= 0),
  unique (invoice_id, position),
  foreign key (workspace_id, invoice_id) references invoices (workspace_id, id) on delete cascade
);

alter table offer_tranches
  add constraint offer_tranches_invoice foreign key (workspace_id, invoice_id)
    references invoices (workspace_id, id) on delete set null (invoice_id),
  add constraint offer_tranches_invoiced check ((status = 'invoiced') = (invoiced_at is not null));
create unique index offer_tranches_invoice_once on offer_tranches (invoice_id) where invoice_id is not null;

-- Ideas ---------------------------------------------------------------------------------------------------

create table ideas (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  client_id uuid,
  title text not null check (length(title) between 1 and 200),
  description text not null default '' check (length(description) <= 10000),
  estimated_budget numeric(14, 2) check (estimated_budget >= 0),
  currency text not null default 'EUR' check (currency ~ '^[A-Z]{3}$'),
  -- 1 low, 2 medium, 3 high
  priority smallint not null default 2 check (priority between 1 and 3),
  notes text not null default '' check (length(notes) <= 10000),
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade,
  foreign key (workspace_id, client_id) references clients (workspace_id, id) on delete set null (client_id)
);
create index ideas_workspace on ideas (workspace_id, company_id, created_at desc);

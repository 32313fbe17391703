-- Personal work of a member: recordings, time categories and time logs, calendars, appointments, booking settings.

-- Audio recordings with what was made of them; created by the recording app, read by the tools.
create table recordings (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  user_id uuid not null references users (id) on delete cascade,
  title text not null check (length(title) between 1 and 200),
  recorded_at timestamptz not null,
  duration_seconds integer not null default 0 check (duration_seconds >= 0),
  summary text not null default '' check (length(summary) <= 20000),
  -- [{ "text": "…", "done": false }, …]
  action_items jsonb not null default '[]' check (jsonb_typeof(action_items) = 'array'),
  notes text not null default '' check (length(notes) <= 20000),
  transcription text not null default '' check (length(transcription) <= 1000000),
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade
);
create index recordings_user on recordings (workspace_id, user_id, recorded_at desc);

-- Timesheet reasons for time not spent on a task (meetings, admin, training …); the workspace's list.
create table time_categories (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null check (length(name) between 1 and 100),
  description text not null default '' check (length(description) <= 1000),
  is_active boolean not null default true,
  sort_order integer not null default 0,
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  unique (workspace_id, name)
);

create table time_logs (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  user_id uuid not null references users (id) on delete cascade,
  date date not null,
  start_time time not null,
  end_time time not null,
  -- a log is for a task or for a timesheet category; the project is the task's, or set directly on a category log
  task_id uuid,
  category_id uuid,
  project_id uuid,
  description text not null default '' check (length(description) <= 2000),
  is_billable boolean not null default false,
  hourly_rate numeric(14, 2) check (hourly_rate >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  -- a log does not cross midnight
  constraint time_logs_times check (end_time > start_time),
  constraint time_logs_link check (num_nonnulls(task_id, category_id) = 1),
  constraint time_logs_project check (project_id is null or category_id is not null),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade,
  -- no action: a task (or a project, whose tasks cascade) with logged time cannot be deleted with its hours lost
  foreign key (workspace_id, task_id) references tasks (workspace_id, id),
  foreign key (workspace_id, category_id) references time_categories (workspace_id, id),
  foreign key (workspace_id, project_id) references projects (workspace_id, id) on delete set null (project_id)
);
create index time_logs_user on time_logs (workspace_id, user_id, date desc, start_time desc);
create index time_logs_task on time_logs (task_id) where task_id is not null;

create table calendars (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  user_id uuid not null references users (id) on delete cascade,
  name text not null check (length(name) between 1 and 100),
  color text not null default '#3b82f6' check (color ~ '^#[0-9a-f]{6}$'),
  time_zone text not null default 'UTC' check (length(time_zone) between 1 and 64),
  is_default boolean not null default false,
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade
);
create index calendars_user on calendars (workspace_id, user_id);
create unique index calendars_one_default on calendars (workspace_id, user_id) where is_default;

create table appointments (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  user_id uuid not null references users (id) on delete cascade,
  calendar_id uuid,
  project_id uuid,
  title text not null check (length(title) between 1 and 200),
  client_name text not null default '' check (length(client_name) <= 200),
  client_email text check (length(client_email) <= 320),
  client_phone text check (length(client_phone) <= 50),
  date date not null,
  start_time time not null,
  end_time time not null,
  is_all_day boolean not null default false,
  location text check (location in ('studio', 'online', 'home')),
  address text check (length(address) <= 500),
  online_platform text check (length(online_platform) <= 100),
  online_link text check (online_link ~ '^https?://' and length(online_link) <= 2000),
  notes text not null default '' check (length(notes) <= 10000),
  status text not null default 'scheduled'
    check (status in ('scheduled', 'confirmed', 'completed', 'cancelled', 'no_show')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  constraint appointments_times check (is_all_day or end_time > start_time),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade,
  foreign key (workspace_id, calendar_id) references calendars (workspace_id, id) on delete set null (calendar_id),
  foreign key (workspace_id, project_id) references projects (workspace_id, id) on delete set null (project_id)
);
create index appointments_user on appointments (workspace_id, user_id, date, start_time);

-- A member's public booking page; one per member and workspace, its slug unique across the platform (public URL).
create table booking_settings (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid,
  user_id uuid not null references users (id) on delete cascade,
  slug text not null check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(slug) between 3 and 64),
  is_active boolean not null default false,
  slot_duration integer not null default 30 check (slot_duration between 5 and 480),
  buffer_minutes integer not null default 0 check (buffer_minutes between 0 and 240),
  -- {"1": [{"start": "09:00", "end": "12:00"}, …], …, "7": []}; validated by lib/workspace/booking.ts
  weekly_hours jsonb not null default '{}' check (jsonb_typeof(weekly_hours) = 'object'),
  max_days_ahead integer not null default 60 check (max_days_ahead between 1 and 365),
  minimum_notice_minutes integer not null default 240 check (minimum_notice_minutes between 0 and 10080),
  welcome_message text not null default '' check (length(welcome_message) <= 2000),
  location_type text not null default 'none' check (location_type in ('none', 'in_person', 'google_meet')),
  location_address text check (length(location_address) <= 500),
  booking_calendar_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, user_id),
  constraint booking_settings_slug unique (slug),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade,
  foreign key (workspace_id, booking_calendar_id) references calendars (workspace_id, id)
    on delete set null (booking_calendar_id)
);

-- Tasks: per-project numbering, assignees, comments, teams (for the my_team scope) and each person's focus task.

-- The next task number of each project; bumped with `update … returning` inside the task's insert transaction,
-- so concurrent creations wait on the project row and never share a number.
alter table projects add column next_task_number integer not null default 1 check (next_task_number >= 1);

create table teams (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null check (length(name) between 1 and 200),
  created_at timestamptz not null default now(),
  unique (workspace_id, id)
);

create table team_members (
  workspace_id uuid not null,
  team_id uuid not null,
  user_id uuid not null references users (id) on delete cascade,
  primary key (team_id, user_id),
  foreign key (workspace_id, team_id) references teams (workspace_id, id) on delete cascade
);
create index team_members_user on team_members (workspace_id, user_id);

create table tasks (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  -- the project's company for project tasks; an optional company of its own for project-less tasks
  company_id uuid,
  project_id uuid,
  -- one level only: the parent is a top-level task (checked in lib/workspace/tasks.ts)
  parent_id uuid,
  -- PREFIX-number within the project; null for project-less tasks
  number integer check (number >= 1),
  title text not null check (length(title) between 1 and 500),
  description text not null default '' check (length(description) <= 20000),
  -- variant A's set; variant B's tools accept only todo, in_progress and done
  status text not null default 'todo' check (status in ('todo', 'in_progress', 'frozen', 'done')),
  priority text not null default 'medium' check (priority in ('low', 'medium', 'high', 'urgent')),
  is_private boolean not null default false,
  start_date date,
  due_date date,
  estimated_hours numeric(10, 2) check (estimated_hours >= 0),
  actual_hours numeric(10, 2) check (actual_hours >= 0),
  -- position in its assignees' queues (ascending); fractional so a move changes only the moved task
  sort_order double precision not null default 0,
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  constraint tasks_dates check (due_date is null or start_date is null or due_date >= start_date),
  constraint tasks_number_needs_project check (number is null or project_id is not null),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade,
  foreign key (workspace_id, project_id) references projects (workspace_id, id) on delete cascade,
  foreign key (workspace_id, parent_id) references tasks (workspace_id, id) on delete cascade
);
create unique index tasks_project_number on tasks (project_id, number) where number is not null;
create index tasks_workspace on tasks (workspace_id, company_id, created_at desc);
create index tasks_parent on tasks (parent_id) where parent_id is not null;

create table task_assignees (
  workspace_id uuid not null,
  task_id uuid not null,
  user_id uuid not null references users (id) on delete cascade,
  primary key (task_id, user_id),
  foreign key (workspace_id, task_id) references tasks (workspace_id, id) on delete cascade
);
create index task_assignees_user on task_assignees (workspace_id, user_id);

create table task_comments (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  task_id uuid not null,
  author_id uuid references users (id) on delete set null,
  body text not null check (length(body) between 1 and 20000),
  created_at timestamptz not null default now(),
  foreign key (workspace_id, task_id) references tasks (workspace_id, id) on delete cascade
);
create index task_comments_task on task_comments (task_id, created_at);

-- The one task a person works on now (move_task_to_focus); it counts only while that task is in_progress and
-- assigned to the person.
create table task_focus (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  task_id uuid not null,
  set_at timestamptz not null default now(),
  primary key (workspace_id, user_id),
  foreign key (workspace_id, task_id) references tasks (workspace_id, id) on delete cascade
);

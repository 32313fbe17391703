-- gantt_plan reaches only the tasks its planner can place (issue 17, point 4).
--
-- The planner places dated tasks (a start or a due date) and tasks somebody is assigned to; an undated task
-- nobody is assigned to has no lane and no queue. lib/workspace/task_plan.ts reads the assigned ones through
-- task_assignees_user and the dated ones through this partial index, so a workspace full of undated, unassigned
-- tasks no longer costs the plan a scan of every task (384 ms beside 98,000 of them). The predicate is written
-- exactly as the loader's condition, so the planner can match it.
create index tasks_dated on tasks (workspace_id, id) where start_date is not null or due_date is not null;

// The tool registry source: every tool file imported explicitly (deno compile and Deno Deploy need static imports).
import type { AnyTool } from "../lib/mcp/tool.ts";
import { createProject } from "./create_project.ts";
import { getProject } from "./get_project.ts";
import { listProjects } from "./list_projects.ts";
import { updateProject } from "./update_project.ts";
import { updateProjectStatus } from "./update_project_status.ts";
// Tasks (issue 5)
import { listTasks } from "./list_tasks.ts";
import { getTask } from "./get_task.ts";
import { createTask } from "./create_task.ts";
import { createSubtask } from "./create_subtask.ts";
import { listSubtasks } from "./list_subtasks.ts";
import { updateTask } from "./update_task.ts";
import { updateTaskStatus } from "./update_task_status.ts";
import { setTaskQueuePosition } from "./set_task_queue_position.ts";
import { moveTaskToFocus } from "./move_task_to_focus.ts";
import { ganttPlan } from "./gantt_plan.ts";
import { createContact } from "./create_contact.ts";
import { exportContacts } from "./export_contacts.ts";
import { listContacts } from "./list_contacts.ts";
import { updateContact } from "./update_contact.ts";

/** Every tool, in tools/list order; each declares the variants it belongs to. */
export const TOOLS: readonly AnyTool[] = [
  // Projects
  listProjects,
  getProject,
  createProject,
  updateProject,
  updateProjectStatus,
  // Tasks (issue 5)
  listTasks,
  getTask,
  createTask,
  createSubtask,
  listSubtasks,
  updateTask,
  updateTaskStatus,
  setTaskQueuePosition,
  moveTaskToFocus,
  ganttPlan,
  // Contacts and CRM (issue 7)
  listContacts,
  exportContacts,
  createContact,
  updateContact,
];

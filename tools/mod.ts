// The tool registry source: every tool file imported explicitly (deno compile and Deno Deploy need static imports).
import type { McpVariant } from "../lib/config.ts";
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
// Clients, offers, invoices, ideas (issue 6)
import { listClients } from "./list_clients.ts";
import { createClient } from "./create_client.ts";
import { updateClient } from "./update_client.ts";
import { createOffer } from "./create_offer.ts";
import { listOffers } from "./list_offers.ts";
import { getOffer } from "./get_offer.ts";
import { listInvoices } from "./list_invoices.ts";
import { createInvoice } from "./create_invoice.ts";
import { generateInvoiceFromOfferTranche } from "./generate_invoice_from_offer_tranche.ts";
import { createIdea } from "./create_idea.ts";
import { createContact } from "./create_contact.ts";
import { exportContacts } from "./export_contacts.ts";
import { listContacts } from "./list_contacts.ts";
import { updateContact } from "./update_contact.ts";
import { listActivities } from "./list_activities.ts";
import { listCrmParties } from "./list_crm_parties.ts";
import { createActivity } from "./create_activity.ts";
import { updateActivity } from "./update_activity.ts";
import { trackAiActivity } from "./track_ai_activity.ts";
import { updateAiActivityPhase } from "./update_ai_activity_phase.ts";
import { listAiActivities } from "./list_ai_activities.ts";
import { getAiActivity } from "./get_ai_activity.ts";
import { createWorkspaceDocument } from "./create_workspace_document.ts";
import { updateWorkspaceDocument } from "./update_workspace_document.ts";
import { listWorkspaceDocuments } from "./list_workspace_documents.ts";
import { getWorkspaceDocument } from "./get_workspace_document.ts";

// Personal work (issue 8)
import { listRecordings } from "./list_recordings.ts";
import { getRecording } from "./get_recording.ts";
import { listTimeLogs } from "./list_time_logs.ts";
import { timeLogSummary } from "./time_log_summary.ts";
import { listTimeCategories } from "./list_time_categories.ts";
import { createTimeLog } from "./create_time_log.ts";
import { updateTimeLog } from "./update_time_log.ts";
import { deleteTimeLog } from "./delete_time_log.ts";
import { listCalendars } from "./list_calendars.ts";
import { listAppointments } from "./list_appointments.ts";
import { createAppointment } from "./create_appointment.ts";
import { updateAppointment } from "./update_appointment.ts";
import { getBookingSettings } from "./get_booking_settings.ts";
import { updateBookingSettings } from "./update_booking_settings.ts";
// Context: who and where the caller is, and whom it works with (issue 25)
import { getContext } from "./get_context.ts";
import { listMembers } from "./list_members.ts";

/** Every tool, in tools/list order; each declares the variants it belongs to. */
/**
 * Portico extensions: tools beyond the seed's 52 (A) and 27 (B), listed in README "Portico extensions" (a test
 * checks) and budgeted apart from the seed's catalogue (tests/mcp/schema_portability.test.ts).
 */
export const EXTENSION_TOOL_NAMES: readonly string[] = [
  "get_context",
  "list_members",
  "list_offers",
  "get_offer",
  "list_crm_parties",
];

/**
 * Seed tools Portico also serves in a variant the seed leaves them out of, with their A schema and behaviour
 * (README "Portico extensions"). In that variant they are extensions: outside the seed's 52/27 and budgeted as
 * extensions (tests/mcp/schema_portability.test.ts, bench/catalogue_tokens.ts).
 */
export const VARIANT_EXTENSIONS: Readonly<Record<McpVariant, readonly string[]>> = {
  A: [],
  // B serves create_client; without its list, a clientId there came only from create_client's answer
  B: ["list_clients"],
};

/** Is `name` a Portico extension in `variant` (a tool beyond the seed's, or a seed tool newly offered there)? */
export function isExtension(name: string, variant: McpVariant): boolean {
  return EXTENSION_TOOL_NAMES.includes(name) || VARIANT_EXTENSIONS[variant].includes(name);
}

export const TOOLS: readonly AnyTool[] = [
  // Context (issue 25): first, so a model reading the catalogue meets them before the tools that need their ids
  getContext,
  listMembers,
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
  // Clients, offers, invoices, ideas (issue 6)
  listClients,
  createClient,
  updateClient,
  createOffer,
  listOffers,
  getOffer,
  listInvoices,
  createInvoice,
  generateInvoiceFromOfferTranche,
  createIdea,
  // Contacts and CRM (issue 7)
  listContacts,
  exportContacts,
  createContact,
  updateContact,
  listActivities,
  listCrmParties,
  createActivity,
  updateActivity,
  trackAiActivity,
  updateAiActivityPhase,
  listAiActivities,
  getAiActivity,
  createWorkspaceDocument,
  updateWorkspaceDocument,
  listWorkspaceDocuments,
  getWorkspaceDocument,
  // Recordings, time logs, calendars, appointments, booking (issue 8)
  listRecordings,
  getRecording,
  listTimeLogs,
  timeLogSummary,
  listTimeCategories,
  createTimeLog,
  updateTimeLog,
  deleteTimeLog,
  listCalendars,
  listAppointments,
  createAppointment,
  updateAppointment,
  getBookingSettings,
  updateBookingSettings,
];

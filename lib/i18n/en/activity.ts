// English: the activity pages (views/activity.tsx, routes/account_activity.ts) — what each app and key did, the
// workspace page with its member apps and the Disconnect confirmation. The words of a stored outcome, reason code
// and rule refusal (lib/mcp/call_detail.ts readReason) are looked up here when a page is shown.
import type { AuditOutcome } from "../../audit.ts";
import type { Area } from "../../mcp/permissions.ts";
import type { Module } from "../../workspace/modules.ts";

export const activity = {
  title: "Activity",
  titleIn: (workspace: string) => `Activity in ${workspace}`,
  introOwn: "Every tool call of your connected apps and API keys, newest first.",
  introWorkspace: (workspace: string) =>
    `Every tool call of every app and key in ${workspace}, newest first.`,
  signedInAs: (email: string) => `Signed in as ${email}.`,
  disconnected: "The app was disconnected for that member.",
  /** how each call ended (audit_log.outcome) */
  outcomes: {
    ok: "Done",
    denied: "Refused",
    invalid: "Refused: invalid input",
    declined: "Not done: not confirmed",
    asked: "Asked for confirmation",
    error: "Failed",
    crash: "Failed: server error",
    unavailable: "Failed: unavailable",
  } satisfies Record<AuditOutcome, string>,
  /** a stored reason's code word (lib/mcp/call_detail.ts reasonOf) in plain words */
  reasons: {
    access_denied: "not allowed",
    invalid_input: "the input was not valid",
    invalid_params: "unknown tool or malformed call",
    not_found: "a record was not found or is not visible",
    conflict: "conflicts with the record's state",
    unavailable: "not available right now",
    internal_error: "an unexpected server error (logged)",
    confirmation_required: "needs the person's confirmation, and the app cannot ask",
    not_confirmed: "the person declined or did not confirm",
  },
  /**
   * A rule refusal (lib/mcp/permissions.ts `denial`), rebuilt from its values. The English ones repeat the stored
   * sentence word for word (tests/i18n/activity_pages.test.ts holds them to it).
   */
  rules: {
    needsUser: (tool: string) => `${tool} acts as a person and needs an API key bound to a user`,
    needsInternalKey: (tool: string) =>
      `${tool} acts as a person and is only available to the workspace assistant (internal key)`,
    /** `role` in words (t.account.roles, views/account_text.tsx roleName); null: a key without a member's role */
    roleArea: (role: string | null, area: string) =>
      `the ${role ?? "key's"} role may not use ${area} tools in this workspace`,
    moduleOff: (module: string) => `the ${module} module is disabled in this workspace`,
  },
  /** a permission area or workspace module, as the rule sentences name it */
  areas: {
    projects: "projects",
    tasks: "tasks",
    clients: "clients",
    offers: "offers",
    invoices: "invoices",
    ideas: "ideas",
    contacts: "contacts",
    crm: "crm",
    ai_activities: "ai_activities",
    documents: "documents",
    recordings: "recordings",
    time_tracking: "time_tracking",
    calendar: "calendar",
    booking: "booking",
    context: "context",
    members: "members",
    finance_collections: "finance_collections",
  } satisfies Record<Area | Module, string>,
  confirmation: {
    asked: "asked, waiting for the answer",
    declined: "asked, not confirmed",
    confirmed: "asked, confirmed",
  },
  noRecords: "none named",
  byApp: (name: string) => `App: ${name}`,
  byKey: (name: string, prefix: string | null) => `Key: ${name}${prefix ? ` ${prefix}…` : ""}`,
  keyNoName: "(no name)",
  byUnknown: "unknown",
  /** a key in the filter; on the person's page with the workspace it belongs to */
  sourceKey: (name: string, prefix: string, workspace: string | null) =>
    `Key: ${name} ${prefix}…${workspace !== null ? ` (${workspace})` : ""}`,
  time: "Time",
  by: "By",
  person: "Person",
  noPerson: "the workspace (no person)",
  workspace: "Workspace",
  records: "Records",
  why: "Why",
  confirmationLabel: "Confirmation",
  filterLabel: "Filter the activity",
  source: "App or key",
  everySource: "Every app and key",
  tool: "Tool",
  everyTool: "Every tool",
  outcome: "Outcome",
  everyOutcome: "Every outcome",
  from: "From (UTC date)",
  to: "To (UTC date)",
  show: "Show",
  clearFilters: "Clear filters",
  appsIn: (workspace: string) => `Apps connected in ${workspace}`,
  noMemberApps: "No member has an app connected to this workspace.",
  forMember: (email: string) => `for ${email}`,
  /** the button's name; it holds the visible `disconnect(app)` whole (WCAG 2.5.3 label in name) */
  disconnectFor: (app: string, email: string) => `Disconnect ${app} for ${email}`,
  disconnect: (app: string) => `Disconnect ${app}`,
  calls: "Calls",
  callsLabel: "Tool calls",
  noCalls: "No calls match.",
  newest: "Newest",
  older: "Older calls",
  csv: (max: string) => `Download as CSV (at most ${max} rows)`,
  perPage: (n: number) => `${n} calls per page. Records are shown by id; the arguments' text is never kept.`,
  disconnectTitle: (app: string) => `Disconnect ${app}?`,
  disconnectText: (app: string, workspace: string, email: string) =>
    `${app} loses access to ${workspace} for ${email} at once: its tokens stop working on their next use there, ` +
    `and it has to ask ${email} for approval again. Its access to other workspaces is not changed.`,
  notAllowedTitle: "Not allowed",
  notAllowed: "Only an owner or admin of the workspace sees its activity. Your own calls are under Activity.",
  notConnectedTitle: "Not connected",
  notConnected: "That app is not connected for that member (any more).",
};

export type ActivityMessages = typeof activity;

// The everyday jobs of bench/jobs.ts: what a person asked, and the calls a model makes knowing the catalogue
// and the answers so far. Values come from `said`, the catalogue, or an earlier answer (a.find / a.at).
import type { Job } from "./jobs.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const byName = (field: string, value: string) => (x: Any) =>
  typeof x[field] === "string" && x[field].toLowerCase() === value.toLowerCase();

export const JOBS: Job[] = [
  {
    name: "What projects are in progress?",
    domain: "projects",
    said: {},
    steps: [{ tool: "list_projects", args: () => ({ status: "in_progress" }) }],
  },
  {
    name: "Show me the Website relaunch project",
    domain: "projects",
    said: { project: "Website relaunch" },
    steps: [
      { tool: "list_projects", args: () => ({}) },
      { tool: "get_project", args: (a, s) => ({ projectId: a.find(byName("name", s.project)).id }) },
    ],
  },
  {
    name: "Add a task 'Write alt texts' to Website relaunch",
    domain: "tasks",
    said: { project: "Website relaunch", title: "Write alt texts" },
    steps: [
      { tool: "list_projects", args: () => ({}) },
      {
        tool: "create_task",
        args: (a, s) => ({ title: s.title, projectId: a.find(byName("name", s.project)).id }),
      },
    ],
  },
  {
    name: "What's overdue?",
    domain: "tasks",
    said: {},
    steps: [{ tool: "list_tasks", args: () => ({ overdue: true }) }],
  },
  {
    name: "Mark 'Homepage mock-ups' done",
    domain: "tasks",
    said: { task: "Homepage mock-ups" },
    steps: [
      { tool: "list_tasks", args: (_a, s) => ({ query: s.task }) },
      {
        tool: "update_task_status",
        args: (a, s) => ({ taskId: a.find(byName("title", s.task)).id, status: "done" }),
      },
    ],
  },
  {
    name: "Add a subtask 'Hero image' under 'Homepage mock-ups'",
    domain: "tasks",
    said: { task: "Homepage mock-ups", title: "Hero image" },
    steps: [
      { tool: "list_tasks", args: (_a, s) => ({ query: s.task }) },
      {
        tool: "create_subtask",
        args: (a, s) => ({ parentTaskId: a.find(byName("title", s.task)).id, title: s.title }),
      },
    ],
  },
  {
    name: "Plan of the team for November 2026",
    domain: "plan",
    said: { from: "2026-11-01", to: "2026-11-30" },
    steps: [{ tool: "gantt_plan", args: (_a, s) => ({ from: s.from, to: s.to }) }],
  },
  {
    name: "Hours logged in November 2026",
    domain: "time",
    said: { from: "2026-11-01", to: "2026-11-30" },
    steps: [{ tool: "time_log_summary", args: (_a, s) => ({ startDate: s.from, endDate: s.to }) }],
  },
  {
    name: "Log 09:00-11:00 on 2026-11-20 on 'Build page templates'",
    domain: "time",
    said: { task: "Build page templates", date: "2026-11-20", start: "09:00", end: "11:00" },
    steps: [
      { tool: "list_tasks", args: (_a, s) => ({ query: s.task }) },
      {
        tool: "create_time_log",
        args: (a, s) => ({
          date: s.date,
          startTime: s.start,
          endTime: s.end,
          taskId: a.find(byName("title", s.task)).id,
        }),
      },
    ],
  },
  {
    name: "Which invoices are unpaid?",
    domain: "invoices",
    said: {},
    steps: [{ tool: "list_invoices", args: () => ({ status: "sent" }) }],
  },
  {
    name: "Invoice Helvetia Design AG for a 2-hour workshop at 150",
    domain: "invoices",
    said: { client: "Helvetia Design AG", what: "Workshop", quantity: "2", price: "150" },
    steps: [
      { tool: "list_clients", args: () => ({}) },
      {
        tool: "create_invoice",
        args: (a, s) => ({
          clientId: a.find(byName("companyName", s.client)).id,
          rows: [{ description: s.what, quantity: Number(s.quantity), unitPrice: Number(s.price) }],
        }),
      },
    ],
  },
  {
    name: "Find the contact at Café Lumière",
    domain: "contacts",
    said: { company: "Café Lumière" },
    steps: [{ tool: "list_contacts", args: (_a, s) => ({ companyName: s.company }) }],
  },
  {
    name: "Note a call with Nordlicht Design GmbH",
    domain: "crm",
    said: { company: "Nordlicht Design GmbH", title: "Call about the brochure" },
    steps: [
      { tool: "list_contacts", args: (_a, s) => ({ companyName: s.company }) },
      {
        tool: "create_activity",
        args: (a, s) => ({
          title: s.title,
          type: "call",
          contactId: a.find(byName("companyName", s.company)).id,
        }),
      },
    ],
  },
  {
    name: "Log a call with the collaborator Nina",
    domain: "crm",
    said: { person: "Nina", title: "Call about the illustrations" },
    steps: [
      { tool: "list_crm_parties", args: (_a, s) => ({ kind: "collaborator", query: s.person }) },
      {
        tool: "create_activity",
        args: (a, s) => ({
          title: s.title,
          type: "call",
          collaboratorId: a.find((p) => p.kind === "collaborator" && String(p.name).startsWith(s.person)).id,
        }),
      },
    ],
    done: (a) => a.at(-1).entity?.kind === "collaborator",
  },
  {
    name: "What did we last do with the supplier PrintWorks AG?",
    domain: "crm",
    said: { supplier: "PrintWorks AG" },
    steps: [
      { tool: "list_crm_parties", args: (_a, s) => ({ kind: "supplier", query: s.supplier }) },
      {
        tool: "list_activities",
        args: (a, s) => ({ supplierId: a.find(byName("name", s.supplier)).id, limit: 1 }),
      },
    ],
    done: (a) => a.at(-1).items.length === 1,
  },
  {
    name: "Read the meeting notes for Nordlicht",
    domain: "documents",
    said: { search: "Nordlicht" },
    steps: [
      { tool: "list_workspace_documents", args: (_a, s) => ({ search: s.search }) },
      {
        tool: "get_workspace_document",
        args: (a) => ({
          documentId: a.find((d) => typeof d.title === "string" && d.title.includes("Nordlicht")).id,
        }),
      },
    ],
  },
  {
    name: "What's on the calendar in December 2026?",
    domain: "calendar",
    said: { from: "2026-12-01", to: "2026-12-31" },
    steps: [{ tool: "list_appointments", args: (_a, s) => ({ startDate: s.from, endDate: s.to }) }],
  },
  {
    name: "What did the AI research on Helvetia Bikes find?",
    domain: "ai",
    said: { search: "Helvetia Bikes" },
    steps: [
      { tool: "list_ai_activities", args: (_a, s) => ({ search: s.search }) },
      {
        tool: "get_ai_activity",
        args: (a) => ({
          activityId: a.find((x) => typeof x.title === "string" && x.title.includes("Helvetia")).id,
        }),
      },
    ],
  },
  // The five jobs of issue 25's walk-through (and three more that need the same lookups).
  {
    name: "Invoice tranche 2 of the Website relaunch offer",
    domain: "offers → invoices",
    said: { offer: "Website relaunch", tranche: "2" },
    steps: [
      { tool: "list_offers", args: (_a, s) => ({ query: s.offer }) },
      { tool: "get_offer", args: (a, s) => ({ offerId: a.find(byName("subject", s.offer)).id }) },
      {
        tool: "generate_invoice_from_offer_tranche",
        args: (a, s) => ({
          offerId: a.at(-1).id,
          trancheId: a.at(-1).tranches[Number(s.tranche) - 1].id,
        }),
      },
    ],
  },
  {
    name: "Assign WEB-3 to Milo",
    domain: "tasks",
    said: { task: "WEB-3", person: "Milo" },
    steps: [
      { tool: "list_members", args: (_a, s) => ({ query: s.person }) },
      {
        tool: "update_task",
        args: (a, s) => ({
          taskId: s.task,
          assigneeIds: [a.find((m) => typeof m.name === "string" && m.name.startsWith(s.person)).userId],
        }),
      },
    ],
  },
  {
    name: "Show the subtask WEB-5",
    domain: "tasks",
    said: { task: "WEB-5" },
    steps: [{ tool: "get_task", args: (_a, s) => ({ taskId: s.task }) }],
  },
  {
    name: "Log 2 hours yesterday on 'Build page templates'",
    domain: "time",
    said: { task: "Build page templates", hours: "2" },
    steps: [
      { tool: "get_context", args: () => ({}) },
      { tool: "list_tasks", args: (_a, s) => ({ query: s.task }) },
      {
        tool: "create_time_log",
        args: (a, s) => ({
          date: a.dayFrom(a.at(0).today, -1),
          hours: Number(s.hours),
          taskId: a.find(byName("title", s.task)).id,
        }),
      },
    ],
  },
  {
    name: "Who is on the team, and what may they do?",
    domain: "workspace",
    said: {},
    steps: [{ tool: "list_members", args: () => ({}) }],
  },
  {
    name: "Put 'Contact form spam filter' in Milo's focus",
    domain: "plan",
    said: { task: "Contact form spam filter", person: "Milo" },
    steps: [
      { tool: "list_members", args: (_a, s) => ({ query: s.person }) },
      { tool: "list_tasks", args: (_a, s) => ({ query: s.task }) },
      {
        tool: "move_task_to_focus",
        args: (a, s) => ({
          taskId: a.find(byName("title", s.task)).id,
          userId: a.find((m) => typeof m.name === "string" && m.name.startsWith(s.person)).userId,
        }),
      },
    ],
  },
  {
    name: "What's on my calendar today?",
    domain: "calendar",
    said: {},
    steps: [
      { tool: "get_context", args: () => ({}) },
      {
        tool: "list_appointments",
        args: (a) => ({ startDate: a.dayFrom(a.at(0).today, 0), endDate: a.dayFrom(a.at(0).today, 0) }),
      },
    ],
  },
];

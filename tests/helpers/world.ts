// Isolation test world: workspaces filled by the demo seeders plus extra records, every record marked and attributed.
import { createApiKey } from "../../lib/api_keys.ts";
import { bearerFor } from "./bearer.ts";
import { createUser } from "../../lib/accounts.ts";
import type { Sql } from "../../lib/db/client.ts";
import { DEMO_SEEDERS, type DemoContext } from "../../lib/demo.ts";
import { createAppointment } from "../../lib/workspace/appointments.ts";
import { updateBookingSettings } from "../../lib/workspace/booking.ts";
import { insertCalendar } from "../../lib/workspace/calendars.ts";
import { createContact } from "../../lib/workspace/contacts.ts";
import { createDocument } from "../../lib/workspace/documents.ts";
import { createIdea } from "../../lib/workspace/ideas.ts";
import { MODULES, type Role } from "../../lib/workspace/modules.ts";
import { trackAiActivity } from "../../lib/workspace/ai_activities.ts";
import { createOffer } from "../../lib/workspace/offers.ts";
import { insertRecording } from "../../lib/workspace/recordings.ts";
import { createTask } from "../../lib/workspace/tasks.ts";
import { createTimeLog } from "../../lib/workspace/time_logs.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { TEST_SCRYPT } from "./app.ts";

export type UserName = Role | "limited";
export type Variant = "A" | "B";

/** One API key as the tool server sees it: who it acts for and where it may reach. */
export interface CallerSpec {
  /** e.g. "w1.ownerCompanyA" */
  name: string;
  ws: number;
  workspaceId: string;
  key: string;
  variants: readonly Variant[];
  /** the person the key acts as (absent for workspace keys) */
  userId?: string;
  /** the effective companies (member's ∩ key's); null = every company and company-less records */
  companies: readonly string[] | null;
  /** the user-context tools are open to this key in that variant */
  userContext: Record<Variant, boolean>;
}

export interface WorkspaceWorld {
  ws: number;
  workspaceId: string;
  companies: { a: string; b: string };
  users: Record<UserName, string>;
  callers: CallerSpec[];
}

/** Who a record belongs to. */
export interface Owner {
  ws: number;
  table: string;
  id: string;
  /** undefined: the table has no company notion; null: a record without a company */
  company?: string | null;
  /** a personal or private record: only these people may see it */
  users?: readonly string[];
}

/** Every id and marker of every workspace, attributed. */
export interface Attribution {
  byId: Map<string, Owner>;
  byMarker: Map<string, Owner>;
}

/** Tables whose rows belong to one person (user_id): the personal-work domains. */
export const PERSONAL_TABLES: ReadonlySet<string> = new Set([
  "recordings",
  "calendars",
  "appointments",
  "time_logs",
  "booking_settings",
]);

/** Text columns that carry a record's visible label; each row gets its marker appended to them. */
const LABEL_COLUMNS = [
  "name",
  "title",
  "subject",
  "company_name",
  "contact_name",
  "description",
  "notes",
  "summary",
  "outcome",
  "welcome_message",
  "label",
  "body",
  "transcription",
  "content_markdown",
  "result_markdown",
];
/** Tables that never reach a tool answer and change with every request. */
const NOT_DATA = new Set(["audit_log", "api_keys", "oauth_grants", "role_permissions"]);

/** The marker of a record: derived from its id, so SQL and JS agree without a lookup table. */
const MARKER_SQL = `'qx' || left(md5(id::text), 10)`;
export const MARKER_RE = /qx[0-9a-f]{10}/g;
export const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

function day(days: number): string {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

let counter = 0;

/** Builds workspace number `ws`: demo data of every domain, extra personal and company-B records, keys. */
export async function buildWorkspace(sql: Sql, ws: number): Promise<WorkspaceWorld> {
  const tag = `${Date.now().toString(36)}${(counter++).toString(36)}`;
  const workspaceId = (await createWorkspace(sql, `Isolation ${ws}`, [...MODULES])).id;
  const a = (await createCompany(sql, workspaceId, `W${ws} North`)).id;
  const b = (await createCompany(sql, workspaceId, `W${ws} South`)).id;
  const users = {} as Record<UserName, string>;
  for (const role of ["owner", "admin", "manager", "accounting", "member", "guest", "limited"] as const) {
    users[role] = (await createUser(sql, {
      email: `${role}.w${ws}.${tag}@test.local`,
      password: "test password 123",
      name: `W${ws} ${role}`,
    }, { scrypt: TEST_SCRYPT })).id;
    await addMember(
      sql,
      workspaceId,
      users[role],
      role === "limited" ? "member" : role,
      role === "limited" ? [a] : null,
    );
  }
  const ctx: DemoContext = {
    workspaceId,
    companyIds: [a, b],
    users: { owner: users.owner, admin: users.admin, accounting: users.accounting, member: users.limited },
    agentIds: [],
  };
  await sql.begin(async (tx) => {
    for (const seed of DEMO_SEEDERS) await seed(tx, ctx);
  });
  await addRecords(sql, workspaceId, a, b, users);

  const key = async (o: { kind?: "user" | "workspace" | "internal"; user?: string; companyId?: string }) =>
    (await createApiKey(sql, {
      workspaceId,
      userId: o.user,
      kind: o.kind,
      companyId: o.companyId,
      name: "iso",
    })).key;
  const callers: CallerSpec[] = [];
  const add = async (
    name: string,
    variants: Variant[],
    o: { kind?: "user" | "workspace" | "internal"; user?: UserName; companyId?: string; bearer?: boolean },
  ) => {
    const userId = o.user ? users[o.user] : undefined;
    let companies: readonly string[] | null = o.user === "limited" ? [a] : null;
    if (o.companyId) {
      companies = companies === null ? [o.companyId] : companies.filter((c) => c === o.companyId);
    }
    const kind = o.kind ?? (userId ? "user" : "workspace");
    callers.push({
      name: `w${ws}.${name}`,
      ws,
      workspaceId,
      // An OAuth access token (issue 12) for the same person and place, sent as Authorization: Bearer.
      key: o.bearer
        ? (await bearerFor(sql, { userId: userId!, workspaceId, companyId: o.companyId })).auth
        : await key({ kind, user: userId, companyId: o.companyId }),
      variants,
      userId,
      companies,
      userContext: { A: userId !== undefined, B: kind === "internal" },
    });
  };
  for (const role of ["owner", "admin", "manager", "accounting", "member", "guest"] as const) {
    await add(role, ["A"], { user: role });
  }
  await add("limited", ["A", "B"], { user: "limited" });
  await add("ownerCompanyA", ["A"], { user: "owner", companyId: a });
  await add("limitedCompanyB", ["A"], { user: "limited", companyId: b }); // reaches nothing
  await add("internal", ["A", "B"], { kind: "internal", user: "owner" });
  await add("internalLimited", ["B"], { kind: "internal", user: "limited" });
  await add("internalCompanyA", ["B"], { kind: "internal", user: "admin", companyId: a });
  await add("workspace", ["B"], { kind: "workspace" });
  await add("workspaceCompanyA", ["B"], { kind: "workspace", companyId: a });
  // Bearer callers: a person through OAuth is a user key of theirs in A, an external caller in B.
  await add("bearerOwner", ["A", "B"], { user: "owner", bearer: true });
  await add("bearerLimited", ["A"], { user: "limited", bearer: true });
  await add("bearerOwnerCompanyA", ["A", "B"], { user: "owner", companyId: a, bearer: true });
  return { ws, workspaceId, companies: { a, b }, users, callers };
}

/** Records the demo seeders leave out: personal work of more people, private tasks, company-B CRM and AI work. */
async function addRecords(
  sql: Sql,
  workspaceId: string,
  a: string,
  b: string,
  users: Record<UserName, string>,
) {
  const as = (u: UserName, companyIds?: string[]) => ({ workspaceId, userId: users[u], companyIds });
  const [category] = await sql<{ id: string }[]>`
    select id from time_categories where workspace_id = ${workspaceId} and is_active order by sort_order limit 1`;
  const categoryId = category.id;
  for (const u of ["admin", "manager", "limited"] as const) {
    const c = u === "limited" ? a : null;
    await insertRecording(sql, {
      workspaceId,
      userId: users[u],
      companyId: c,
      title: `Recording of ${u}`,
      recordedAt: `${day(-1)}T10:00:00Z`,
      durationSeconds: 60,
      summary: `Summary of ${u}`,
      actionItems: [{ text: `Action of ${u}`, done: false }],
      notes: "",
      transcription: `Transcript of ${u}`,
    });
    const cal = await insertCalendar(sql, {
      workspaceId,
      userId: users[u],
      name: `Calendar of ${u}`,
      companyId: c,
      isDefault: u !== "limited", // the demo gave the limited member a default calendar already
    });
    const me = as(u, u === "limited" ? [a] : undefined);
    await createAppointment(sql, me, {
      date: day(1),
      startTime: "11:00",
      endTime: "12:00",
      title: `Meeting of ${u}`,
    });
    await createTimeLog(sql, me, {
      date: day(-1),
      startTime: "08:00",
      endTime: "09:00",
      description: `Log of ${u}`,
      categoryId,
    });
    await updateBookingSettings(sql, me, {
      isActive: true,
      welcomeMessage: `Book ${u}`,
      bookingCalendarId: cal.id,
    });
    await createTask(sql, me, { title: `Private note of ${u}`, isPrivate: true }, { variantA: true });
  }
  // The owner's personal records in company B, and company-B records of the shared domains.
  await insertRecording(sql, {
    workspaceId,
    userId: users.owner,
    companyId: b,
    title: "Owner recording in South",
    recordedAt: `${day(-2)}T10:00:00Z`,
    durationSeconds: 60,
    summary: "South summary",
    actionItems: [],
    notes: "",
    transcription: "South transcript",
  });
  await createAppointment(sql, as("owner", [b]), {
    date: day(2),
    startTime: "15:00",
    endTime: "16:00",
    title: "Owner meeting in South",
  });
  await createTimeLog(sql, as("owner", [b]), {
    date: day(-2),
    startTime: "10:00",
    endTime: "11:00",
    description: "Owner log in South",
    categoryId,
  });
  await createTask(sql, as("owner", [b]), { title: "South task", assigneeIds: [users.manager] }, {
    variantA: true,
  });
  await createContact(sql, as("owner", [b]), { companyName: "South contact", contactName: "Sue South" });
  await createIdea(sql, as("owner", [b]), { title: "South idea" });
  await trackAiActivity(sql, as("owner", [b]), {
    kind: "analysis",
    title: "South analysis",
    phases: [{ name: "read", status: "completed" }],
  });
  await createDocument(sql, as("owner", [b]), {
    title: "South document",
    kind: "notes",
    contentMarkdown: "south",
  });
  await createContact(sql, as("limited", [a]), { companyName: "North contact", contactName: "Nils North" });
  // Offers of company a with open tranches: generate_invoice_from_offer_tranche consumes one per successful call.
  const [client] = await sql<{ id: string }[]>`
    select id from clients where workspace_id = ${workspaceId} and company_id = ${a} order by created_at, id limit 1`;
  for (let i = 1; i <= 12; i++) {
    await createOffer(sql, as("owner"), {
      subject: `North offer ${i}`,
      clientId: client.id,
      rows: [{ description: "Work", quantity: 1, unitPrice: "100.00" }],
      tranches: [{ label: "First", percentage: 50 }, { label: "Second", percentage: 50 }],
    });
  }
}

/**
 * Appends each row's marker to its label columns, in every table of the workspace and to its people's names, so
 * a leaked name, title or note is as recognisable as a leaked id.
 */
export async function markRecords(sql: Sql, w: WorkspaceWorld): Promise<void> {
  const tables = await tableColumns(sql);
  for (const [table, cols] of tables) {
    if (!cols.has("id") || !cols.has("workspace_id") || NOT_DATA.has(table)) continue;
    const label = LABEL_COLUMNS.filter((c) => cols.get(c) === "text" || cols.get(c) === "character varying");
    if (label.length === 0) continue;
    const set = label.map((c) =>
      `${c} = case when ${c} is null then null else ${c} || ' ' || ${MARKER_SQL} end`
    );
    // table and column names come from information_schema, not input
    await sql.unsafe(`update ${table} set ${set.join(", ")} where workspace_id = $1`, [w.workspaceId]);
  }
  await sql.unsafe(
    `update users set name = name || ' ' || ${MARKER_SQL}
      where id in (select user_id from workspace_members where workspace_id = $1)`,
    [w.workspaceId],
  );
}

/** table → column → data type, for the tables of the current schema. */
async function tableColumns(sql: Sql): Promise<Map<string, Map<string, string>>> {
  const rows = await sql<{ table_name: string; column_name: string; data_type: string }[]>`
    select table_name, column_name, data_type from information_schema.columns
     where table_schema = current_schema()`;
  const out = new Map<string, Map<string, string>>();
  for (const r of rows) {
    if (!out.has(r.table_name)) out.set(r.table_name, new Map());
    out.get(r.table_name)!.set(r.column_name, r.data_type);
  }
  return out;
}

/**
 * Single-column references (besides workspace_id) from child tables to parents, read from the catalog; mandatory
 * ones first (a tranche belongs to its offer, not to the invoice it may point to).
 */
async function references(sql: Sql): Promise<Array<{ child: string; column: string; parent: string }>> {
  const rows = await sql<{ child: string; columns: string[]; parent: string; mandatory: boolean }[]>`
    select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent,
           array(select a.attname::text from unnest(c.conkey) k join pg_attribute a
                  on a.attrelid = c.conrelid and a.attnum = k) as columns,
           (select bool_and(a.attnotnull) from unnest(c.conkey) k join pg_attribute a
                  on a.attrelid = c.conrelid and a.attnum = k) as mandatory
      from pg_constraint c
     where c.contype = 'f' and c.connamespace = current_schema()::regnamespace
     order by 4 desc, 1, 2`;
  return rows.flatMap((r) => {
    const cols = r.columns.filter((c) => c !== "workspace_id");
    return cols.length === 1 ? [{ child: r.child, column: cols[0], parent: r.parent }] : [];
  });
}

/**
 * Reads who owns every record of the given workspaces right now: its workspace, its company (its own column, or
 * its parent's through a foreign key) and, for personal rows and private tasks, the people who may see it.
 */
export async function attribute(sql: Sql, worlds: readonly WorkspaceWorld[]): Promise<Attribution> {
  const wsOf = new Map(worlds.map((w) => [w.workspaceId, w.ws]));
  const ids = worlds.map((w) => w.workspaceId);
  const tables = await tableColumns(sql);
  const refs = await references(sql);
  const byId = new Map<string, Owner>();
  const byMarker = new Map<string, Owner>();
  const put = (o: Owner, marker: string) => {
    byId.set(o.id, o);
    byMarker.set(marker, o);
  };
  for (const [table, cols] of tables) {
    if (!cols.has("id") || !cols.has("workspace_id")) continue;
    let company = "null::uuid";
    let join = "";
    let hasCompany = true;
    if (table === "companies") company = "t.id";
    else if (cols.has("company_id")) company = "t.company_id";
    else {
      const ref = refs.find((r) => r.child === table && tables.get(r.parent)?.has("company_id"));
      if (ref) {
        company = "p.company_id";
        join = `left join ${ref.parent} p on p.id = t.${ref.column}`;
      } else hasCompany = false;
    }
    const personal = PERSONAL_TABLES.has(table) && cols.has("user_id")
      ? "array[t.user_id]"
      : table === "tasks"
      ? `case when t.is_private then array[t.created_by] || array(select ta.user_id from task_assignees ta
                                                                    where ta.task_id = t.id) end`
      : "null::uuid[]";
    const rows = await sql.unsafe<
      { id: string; ws: string; company: string | null; users: string[] | null; marker: string }[]
    >(
      `select t.id::text as id, t.workspace_id::text as ws, ${company}::text as company, ${personal}::text[] as users,
              'qx' || left(md5(t.id::text), 10) as marker
         from ${table} t ${join} where t.workspace_id = any($1::uuid[])`,
      [ids],
    );
    for (const r of rows) {
      const o: Owner = { ws: wsOf.get(r.ws)!, table, id: r.id };
      if (hasCompany) o.company = r.company;
      if (r.users) o.users = r.users;
      put(o, r.marker);
    }
  }
  const members = await sql<{ id: string; ws: string; marker: string }[]>`
    select user_id::text as id, workspace_id::text as ws, 'qx' || left(md5(user_id::text), 10) as marker
      from workspace_members where workspace_id = any(${ids}::uuid[])`;
  for (const m of members) put({ ws: wsOf.get(m.ws)!, table: "users", id: m.id }, m.marker);
  return { byId, byMarker };
}

/** Why `caller` must not see `o`, or null when it may. */
export function foreignTo(caller: CallerSpec, o: Owner): string | null {
  if (o.ws !== caller.ws) return "other workspace";
  if (caller.companies !== null && o.company !== undefined) {
    if (o.company === null) return "record without a company";
    if (!caller.companies.includes(o.company)) return "other company";
  }
  if (o.users && !(caller.userId && o.users.includes(caller.userId))) return "another person's record";
  return null;
}

/**
 * A digest of every data row of a workspace (or of the rows `where` selects), to show that refused calls changed
 * nothing.
 */
export async function digest(sql: Sql, workspaceId: string): Promise<Map<string, string>> {
  const tables = await tableColumns(sql);
  const out = new Map<string, string>();
  for (const [table, cols] of tables) {
    if (!cols.has("workspace_id") || NOT_DATA.has(table)) continue;
    const [row] = await sql.unsafe<{ d: string | null }[]>(
      `select md5(string_agg(row_to_json(t)::text, '|' order by row_to_json(t)::text)) as d
         from ${table} t where t.workspace_id = $1`,
      [workspaceId],
    );
    out.set(table, row.d ?? "");
  }
  return out;
}

/** Every stored row of `workspaceId` as JSON text (to look for references into another workspace). */
export async function storedRows(
  sql: Sql,
  workspaceId: string,
): Promise<Array<{ table: string; json: string }>> {
  const tables = await tableColumns(sql);
  const out: Array<{ table: string; json: string }> = [];
  for (const [table, cols] of tables) {
    if (!cols.has("workspace_id") || NOT_DATA.has(table)) continue;
    const rows = await sql.unsafe<{ j: string }[]>(
      `select row_to_json(t)::text as j from ${table} t where t.workspace_id = $1`,
      [workspaceId],
    );
    for (const r of rows) out.push({ table, json: r.j });
  }
  return out;
}

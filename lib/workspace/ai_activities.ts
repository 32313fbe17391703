// AI activities: work an agent did or does for the workspace, with ordered phases, a markdown result and links.
import { withTx } from "../db/tx.ts";
import { allOf, type ConstraintAnswers, isoColumn, likePattern, throwMapped } from "../db/sql.ts";
import type postgres from "postgres";
import type { Db } from "../db/client.ts";
import { invalidInput, notFound } from "../errors.ts";
import {
  companyFilter,
  companyForWrite,
  requireCompany,
  type Scope,
  type ScopedCaller,
  scopeOf,
} from "./scope.ts";
import { countUpTo, type Page, pageOf } from "./page.ts";

export const AI_ACTIVITY_KINDS = [
  "research",
  "analysis",
  "writing",
  "summary",
  "planning",
  "coding",
  "data_processing",
  "communication",
  "other",
] as const;
export const AI_ACTIVITY_SOURCES = ["mcp", "chat", "agent", "automation", "api", "manual"] as const;
export const AI_ACTIVITY_STATUSES = [
  "queued",
  "running",
  "waiting",
  "completed",
  "failed",
  "cancelled",
] as const;
export const PHASE_STATUSES = ["pending", "running", "completed", "failed", "skipped"] as const;
/** Statuses after which an activity (or a phase) is over: they stamp finishedAt. */
const FINISHED_ACTIVITY = ["completed", "failed", "cancelled"];
const FINISHED_PHASE = ["completed", "failed", "skipped"];
export const MAX_PHASES = 50;
/** Appended result parts are separated by a blank line. */
export const RESULT_SEPARATOR = "\n\n";

export type AiActivityKind = typeof AI_ACTIVITY_KINDS[number];
export type AiActivitySource = typeof AI_ACTIVITY_SOURCES[number];
export type AiActivityStatus = typeof AI_ACTIVITY_STATUSES[number];
export type PhaseStatus = typeof PHASE_STATUSES[number];

export interface Phase {
  position: number;
  name: string;
  status: PhaseStatus;
  summary: string | null;
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
}

export interface LinkedDocument {
  documentId: string;
  title: string;
  kind: string;
  relationship: string;
  linkedAt: string;
}

/** What list_ai_activities answers per activity: its status, phases and result in brief (the rest: get_). */
export interface AiActivitySummary {
  id: string;
  kind: AiActivityKind;
  status: AiActivityStatus;
  title: string;
  agentName: string | null;
  phaseCount: number;
  resultBytes: number;
  createdAt: string;
  finishedAt: string | null;
}

export interface AiActivity extends AiActivitySummary {
  source: AiActivitySource;
  aiTaskId: string | null;
  companyId: string | null;
  createdBy: string | null;
  updatedAt: string;
  description: string | null;
  metadata: Record<string, unknown>;
  resultMarkdown: string;
  phases: Phase[];
  documents: LinkedDocument[];
}

export interface NewPhase {
  name: string;
  status?: PhaseStatus;
  summary?: string;
  error?: string;
  startedAt?: string;
  finishedAt?: string;
}

export interface NewAiActivity {
  kind: AiActivityKind;
  title: string;
  source?: AiActivitySource;
  description?: string;
  agentName?: string;
  status?: AiActivityStatus;
  companyId?: string;
  aiTaskId?: string;
  phases?: NewPhase[];
  resultMarkdown?: string;
  metadata?: Record<string, unknown>;
}

export interface PhaseUpdate {
  phaseName: string;
  phaseStatus: PhaseStatus;
  phaseSummary?: string;
  phaseError?: string;
  startedAt?: string;
  finishedAt?: string;
  activityStatus?: AiActivityStatus;
  resultMarkdown?: string;
  replaceResultMarkdown?: boolean;
}

export interface AiActivityFilter {
  kind?: AiActivityKind;
  source?: AiActivitySource;
  status?: AiActivityStatus;
  search?: string;
  limit: number;
  offset?: number;
}

function summaryColumns(db: Db) {
  return db`
    a.id, a.kind, a.status, a.title, a.agent_name as "agentName",
    (select count(*)::int from ai_activity_phases p where p.activity_id = a.id) as "phaseCount",
    octet_length(a.result_markdown) as "resultBytes", ${isoColumn(db, "a.created_at")} as "createdAt",
    ${isoColumn(db, "a.finished_at")} as "finishedAt"`;
}

/** Constraint violations as answers naming the field. */
const ERRORS: ConstraintAnswers = {
  ai_activities_result_size: invalidInput(
    "resultMarkdown: the result would exceed 1 MiB (1048576 bytes) of UTF-8",
  ),
};

function checkOrder(startedAt?: string, finishedAt?: string): void {
  if (startedAt && finishedAt && Date.parse(finishedAt) < Date.parse(startedAt)) {
    throw invalidInput("finishedAt: must not be before startedAt");
  }
}

/** One activity with phases (in order) and the documents linked to it that the caller may see. */
async function fetchAiActivity(db: Db, s: Scope, id: string): Promise<AiActivity | null> {
  const [row] = await db<Omit<AiActivity, "phases" | "documents">[]>`
    select ${summaryColumns(db)}, a.source, a.ai_task_id as "aiTaskId", a.company_id as "companyId",
           a.created_by as "createdBy", ${isoColumn(db, "a.updated_at")} as "updatedAt", a.description,
           a.metadata, a.result_markdown as "resultMarkdown"
      from ai_activities a
     where a.workspace_id = ${s.workspaceId} and a.id = ${id} and ${companyFilter(db, s, "a.company_id")}`;
  if (!row) return null;
  const [phases, documents] = await Promise.all([
    db<Phase[]>`
      select position, name, status, summary, error, ${isoColumn(db, "started_at")} as "startedAt",
             ${isoColumn(db, "finished_at")} as "finishedAt", ${isoColumn(db, "updated_at")} as "updatedAt"
        from ai_activity_phases where workspace_id = ${s.workspaceId} and activity_id = ${id}
       order by position`,
    db<LinkedDocument[]>`
      select d.id as "documentId", d.title, d.kind, l.relationship, ${
      isoColumn(db, "l.created_at")
    } as "linkedAt"
        from ai_activity_documents l
        join workspace_documents d on d.workspace_id = l.workspace_id and d.id = l.document_id
       where l.workspace_id = ${s.workspaceId} and l.activity_id = ${id} and ${
      companyFilter(db, s, "d.company_id")
    }
       order by l.created_at, d.id`,
  ]);
  return { ...row, phases: [...phases], documents: [...documents] };
}

export async function getAiActivity(db: Db, caller: ScopedCaller, id: string): Promise<AiActivity> {
  const a = await fetchAiActivity(db, scopeOf(caller), id);
  if (!a) throw notFound(`activityId: no AI activity ${id}`);
  return a;
}

/** The activity's row for a caller, or not_found; used by documents to link and to inherit the company. */
export async function requireAiActivity(db: Db, s: Scope, id: string): Promise<{ companyId: string | null }> {
  const [row] = await db<{ companyId: string | null }[]>`
    select company_id as "companyId" from ai_activities a
     where a.workspace_id = ${s.workspaceId} and a.id = ${id} and ${companyFilter(db, s, "a.company_id")}`;
  if (!row) throw notFound(`activityId: no AI activity ${id}`);
  return row;
}

/** Records an AI activity by the caller's user, with its initial phases in the given order, in one transaction. */
export async function trackAiActivity(
  db: Db,
  caller: ScopedCaller,
  input: NewAiActivity,
): Promise<AiActivity> {
  const s = scopeOf(caller);
  const phases = input.phases ?? [];
  if (phases.length > MAX_PHASES) throw invalidInput(`phases: at most ${MAX_PHASES} phases`);
  const seen = new Set<string>();
  for (const p of phases) {
    if (seen.has(p.name)) {
      throw invalidInput(`phases: the phase name ${JSON.stringify(p.name)} appears twice`);
    }
    seen.add(p.name);
    checkOrder(p.startedAt, p.finishedAt);
  }
  const companyId = companyForWrite(s, input.companyId);
  if (companyId) await requireCompany(db, s, companyId);
  const status = input.status ?? "running";
  const insert = async (tx: Db): Promise<string> => {
    const [{ id }] = await tx<{ id: string }[]>`
      insert into ai_activities (workspace_id, company_id, kind, source, status, title, description, agent_name,
                                 ai_task_id, result_markdown, metadata, created_by, finished_at)
      values (${s.workspaceId}, ${companyId}, ${input.kind}, ${
      input.source ?? "mcp"
    }, ${status}, ${input.title},
              ${input.description ?? null}, ${input.agentName ?? null}, ${input.aiTaskId ?? null},
              ${input.resultMarkdown ?? ""}, ${tx.json((input.metadata ?? {}) as postgres.JSONValue)},
              ${caller.userId ?? null}, case when ${
      FINISHED_ACTIVITY.includes(status)
    }::boolean then now() end)
      returning id`;
    for (const [i, p] of phases.entries()) {
      const st = p.status ?? "pending";
      await tx`
        insert into ai_activity_phases (workspace_id, activity_id, position, name, status, summary, error,
                                        started_at, finished_at)
        values (${s.workspaceId}, ${id}, ${i + 1}, ${p.name}, ${st}, ${p.summary ?? null}, ${p.error ?? null},
                coalesce(${p.startedAt ?? null}::timestamptz, case when ${
        st !== "pending"
      }::boolean then now() end),
                coalesce(${p.finishedAt ?? null}::timestamptz,
                         case when ${FINISHED_PHASE.includes(st)}::boolean then now() end))`;
    }
    return id;
  };
  let id: string;
  try {
    id = await withTx(db, insert);
  } catch (err) {
    throwMapped(err, ERRORS);
  }
  return (await fetchAiActivity(db, s, id))!;
}

/**
 * Reports progress: updates the phase of that name or appends it after the last one, optionally moves the
 * activity's status and appends to (or replaces) the result. One transaction; the activity row is locked first,
 * so concurrent reports for one activity get distinct, gap-free positions.
 */
export async function updateAiActivityPhase(
  db: Db,
  caller: ScopedCaller,
  id: string,
  u: PhaseUpdate,
): Promise<AiActivity> {
  const s = scopeOf(caller);
  if (u.replaceResultMarkdown && u.resultMarkdown === undefined) {
    throw invalidInput('replaceResultMarkdown: needs resultMarkdown (send "" to clear the result)');
  }
  checkOrder(u.startedAt, u.finishedAt);
  const text = u.resultMarkdown ?? null;
  const replace = u.replaceResultMarkdown === true;
  const status = u.activityStatus ?? null;
  const finished = status !== null && FINISHED_ACTIVITY.includes(status);
  const run = async (tx: Db): Promise<boolean> => {
    const rows = await tx<{ id: string }[]>`
      update ai_activities a
         set updated_at = now(),
             status = coalesce(${status}, a.status),
             finished_at = case when ${status}::text is null then a.finished_at
                                when ${finished}::boolean then coalesce(a.finished_at, now()) end,
             result_markdown = case when ${text}::text is null then a.result_markdown
                                    when ${replace}::boolean or a.result_markdown = '' then ${text}::text
                                    else a.result_markdown || ${RESULT_SEPARATOR}::text || ${text}::text end
       where a.workspace_id = ${s.workspaceId} and a.id = ${id} and ${companyFilter(tx, s, "a.company_id")}
      returning a.id`;
    if (rows.length === 0) return false;
    const st = u.phaseStatus;
    const over = FINISHED_PHASE.includes(st);
    await tx`
      insert into ai_activity_phases as p (workspace_id, activity_id, position, name, status, summary, error,
                                           started_at, finished_at)
      values (${s.workspaceId}, ${id},
              (select coalesce(max(position), 0) + 1 from ai_activity_phases
                where workspace_id = ${s.workspaceId} and activity_id = ${id}),
              ${u.phaseName}, ${st}, ${u.phaseSummary ?? null}, ${u.phaseError ?? null},
              coalesce(${u.startedAt ?? null}::timestamptz, case when ${
      st !== "pending"
    }::boolean then now() end),
              coalesce(${u.finishedAt ?? null}::timestamptz, case when ${over}::boolean then now() end))
      on conflict (activity_id, name) do update
         set status = excluded.status,
             summary = coalesce(${u.phaseSummary ?? null}::text, p.summary),
             error = coalesce(${u.phaseError ?? null}::text, p.error),
             started_at = coalesce(${u.startedAt ?? null}::timestamptz, p.started_at, excluded.started_at),
             finished_at = case when ${u.finishedAt ?? null}::timestamptz is not null then ${
      u.finishedAt ?? null
    }::timestamptz
                                when ${over}::boolean then coalesce(p.finished_at, now()) end,
             updated_at = now()`;
    return true;
  };
  let found: boolean;
  try {
    found = await withTx(db, run);
  } catch (err) {
    throwMapped(err, ERRORS);
  }
  if (!found) throw notFound(`activityId: no AI activity ${id}`);
  return (await fetchAiActivity(db, s, id))!;
}

export type AiActivityPage = Page<AiActivitySummary>;

/** The caller's AI activities, newest first, filtered by kind, source, status and text (AND). */
export async function listAiActivities(
  db: Db,
  caller: ScopedCaller,
  f: AiActivityFilter,
): Promise<AiActivityPage> {
  const s = scopeOf(caller);
  const parts: postgres.Fragment[] = [
    db`a.workspace_id = ${s.workspaceId}`,
    companyFilter(db, s, "a.company_id"),
  ];
  if (f.kind) parts.push(db`a.kind = ${f.kind}`);
  if (f.source) parts.push(db`a.source = ${f.source}`);
  if (f.status) parts.push(db`a.status = ${f.status}`);
  if (f.search) {
    const p = likePattern(f.search);
    parts.push(db`(a.title ilike ${p} escape '\\' or a.description ilike ${p} escape '\\'
      or a.agent_name ilike ${p} escape '\\' or a.ai_task_id ilike ${p} escape '\\')`);
  }
  const where = allOf(db, parts);
  const offset = f.offset ?? 0;
  const [items, total] = await Promise.all([
    db<AiActivitySummary[]>`
      select ${summaryColumns(db)} from ai_activities a where ${where}
       order by a.created_at desc, a.id desc limit ${f.limit} offset ${offset}`,
    countUpTo(db, db`ai_activities a where ${where}`, f),
  ]);
  return pageOf([...items], total, f, true);
}

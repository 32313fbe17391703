// Recordings: the key user's own audio recordings with summary, action items, notes and transcription (read-only).
import { isoColumn } from "../db/sql.ts";
import type { Db } from "../db/client.ts";
import { notFound } from "../errors.ts";
import { actingUser } from "./personal.ts";
import { companyFilter, type ScopedCaller, scopeOf } from "./scope.ts";
import { type Page, pageOf } from "./page.ts";

export type ActionItem = { text: string; done: boolean };

export interface RecordingSummary {
  id: string;
  title: string;
  recordedAt: string;
  durationSeconds: number;
  companyId: string | null;
  /** the summary's first 280 characters, so a list stays small */
  summaryPreview: string;
  actionItemCount: number;
  hasTranscription: boolean;
}

export interface Recording {
  id: string;
  title: string;
  recordedAt: string;
  durationSeconds: number;
  companyId: string | null;
  summary: string;
  actionItems: ActionItem[];
  notes: string;
  transcription: string;
  createdAt: string;
}

export const RECORDINGS_MAX_LIMIT = 10;
const PREVIEW = 280;

interface SummaryRow {
  id: string;
  title: string;
  recorded_at: string;
  duration_seconds: number;
  company_id: string | null;
  summary_preview: string;
  summary_length: number;
  action_item_count: number;
  has_transcription: boolean;
}

/** The caller's most recent recordings (at most 10), newest first. */
export async function listRecordings(
  db: Db,
  caller: ScopedCaller,
  opts: { limit: number; offset?: number },
): Promise<Page<RecordingSummary>> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  const limit = Math.min(Math.max(1, Math.trunc(opts.limit)), RECORDINGS_MAX_LIMIT);
  const rows = await db<SummaryRow[]>`
    select r.id, r.title, ${isoColumn(db, "r.recorded_at")} as recorded_at, r.duration_seconds, r.company_id,
           left(r.summary, ${PREVIEW}) as summary_preview, length(r.summary) as summary_length,
           jsonb_array_length(r.action_items) as action_item_count,
           length(r.transcription) > 0 as has_transcription
      from recordings r
     where r.workspace_id = ${s.workspaceId} and r.user_id = ${userId}
       and ${companyFilter(db, s, "r.company_id")}
     order by r.recorded_at desc, r.id
     limit ${limit} offset ${opts.offset ?? 0}`;
  const [{ total }] = await db<{ total: number }[]>`
    select count(*)::int as total from recordings r
     where r.workspace_id = ${s.workspaceId} and r.user_id = ${userId} and ${
    companyFilter(db, s, "r.company_id")
  }`;
  return pageOf(
    rows.map((r) => ({
      id: r.id,
      title: r.title,
      recordedAt: r.recorded_at,
      durationSeconds: r.duration_seconds,
      companyId: r.company_id,
      summaryPreview: r.summary_length > PREVIEW ? `${r.summary_preview}…` : r.summary_preview,
      actionItemCount: r.action_item_count,
      hasTranscription: r.has_transcription,
    })),
    total,
    { limit, offset: opts.offset },
  );
}

interface Row {
  id: string;
  title: string;
  recorded_at: string;
  duration_seconds: number;
  company_id: string | null;
  summary: string;
  action_items: ActionItem[];
  notes: string;
  transcription: string;
  created_at: string;
}

/** One of the caller's recordings in full; another person's, workspace's or company's → not_found. */
export async function getRecording(db: Db, caller: ScopedCaller, id: string): Promise<Recording> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  const [r] = await db<Row[]>`
    select r.id, r.title, ${isoColumn(db, "r.recorded_at")} as recorded_at, r.duration_seconds, r.company_id,
           r.summary, r.action_items, r.notes, r.transcription, ${isoColumn(db, "r.created_at")} as created_at
      from recordings r
     where r.workspace_id = ${s.workspaceId} and r.user_id = ${userId} and r.id = ${id}
       and ${companyFilter(db, s, "r.company_id")}`;
  if (!r) throw notFound(`recordingId: no recording ${id}`);
  return {
    id: r.id,
    title: r.title,
    recordedAt: r.recorded_at,
    durationSeconds: r.duration_seconds,
    companyId: r.company_id,
    summary: r.summary,
    actionItems: r.action_items.map((a) => ({ text: String(a.text ?? ""), done: a.done === true })),
    notes: r.notes,
    transcription: r.transcription,
    createdAt: r.created_at,
  };
}

export interface NewRecording {
  workspaceId: string;
  userId: string;
  companyId?: string | null;
  title: string;
  recordedAt: string;
  durationSeconds: number;
  summary?: string;
  actionItems?: ActionItem[];
  notes?: string;
  transcription?: string;
}

/** Stores a recording. No tool creates recordings (the recording app does); the demo seeder and tests use this. */
export async function insertRecording(db: Db, r: NewRecording): Promise<{ id: string }> {
  const [row] = await db<{ id: string }[]>`
    insert into recordings (workspace_id, company_id, user_id, title, recorded_at, duration_seconds, summary,
                            action_items, notes, transcription)
    values (${r.workspaceId}, ${r.companyId ?? null}, ${r.userId}, ${r.title}, ${r.recordedAt},
            ${r.durationSeconds}, ${r.summary ?? ""}, ${db.json(r.actionItems ?? [])}, ${r.notes ?? ""},
            ${r.transcription ?? ""})
    returning id`;
  return row;
}

// Recordings: the key user's own audio recordings with summary, action items, notes and transcription (read-only).
import { allOf, isoColumn } from "../db/sql.ts";
import type { Db } from "../db/client.ts";
import { notFound } from "../errors.ts";
import { actingUser } from "./personal.ts";
import { companyFilter, type ScopedCaller, scopeOf } from "./scope.ts";
import { countUpTo, type Page, pageOf, type Paging } from "./page.ts";

export type ActionItem = { text: string; done: boolean };

/**
 * A recording as list_recordings answers it: what a caller needs to pick one (title, when, how long, how much it
 * holds). get_recording gives the summary, action items, notes and transcription.
 */
export interface RecordingSummary {
  id: string;
  title: string;
  recordedAt: string;
  durationSeconds: number;
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

/** The caller's most recent recordings (at most 10 a page), newest first. */
export async function listRecordings(
  db: Db,
  caller: ScopedCaller,
  opts: Paging,
): Promise<Page<RecordingSummary>> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  const paging = {
    limit: Math.min(Math.max(1, Math.trunc(opts.limit)), RECORDINGS_MAX_LIMIT),
    offset: opts.offset,
  };
  const where = allOf(db, [
    db`r.workspace_id = ${s.workspaceId}`,
    db`r.user_id = ${userId}`,
    companyFilter(db, s, "r.company_id"),
  ]);
  const [items, total] = await Promise.all([
    db<RecordingSummary[]>`
      select r.id, r.title, ${isoColumn(db, "r.recorded_at")} as "recordedAt",
             r.duration_seconds as "durationSeconds",
             jsonb_array_length(r.action_items) as "actionItemCount",
             length(r.transcription) > 0 as "hasTranscription"
        from recordings r
       where ${where}
       order by r.recorded_at desc, r.id
       limit ${paging.limit} offset ${paging.offset ?? 0}`,
    countUpTo(db, db`recordings r where ${where}`, paging),
  ]);
  return pageOf(items, total, paging, true);
}

/** One of the caller's recordings in full; another person's, workspace's or company's → not_found. */
export async function getRecording(db: Db, caller: ScopedCaller, id: string): Promise<Recording> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  const [r] = await db<Recording[]>`
    select r.id, r.title, ${isoColumn(db, "r.recorded_at")} as "recordedAt",
           r.duration_seconds as "durationSeconds", r.company_id as "companyId", r.summary,
           r.action_items as "actionItems", r.notes, r.transcription, ${
    isoColumn(db, "r.created_at")
  } as "createdAt"
      from recordings r
     where r.workspace_id = ${s.workspaceId} and r.user_id = ${userId} and r.id = ${id}
       and ${companyFilter(db, s, "r.company_id")}`;
  if (!r) throw notFound(`recordingId: no recording ${id}`);
  // Action items are stored JSON written by the recording app: each answered as exactly { text, done }.
  return {
    ...r,
    actionItems: r.actionItems.map((a) => ({ text: String(a.text ?? ""), done: a.done === true })),
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

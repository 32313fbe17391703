// Workspace documents: markdown content and/or a stored file's location, optionally linked to AI activities.
import { withTx } from "../db/tx.ts";
import { allOf, type ConstraintAnswers, isoColumn, likePattern, throwMapped } from "../db/sql.ts";
import type postgres from "postgres";
import type { Db } from "../db/client.ts";
import { invalidInput, notFound } from "../errors.ts";
import { requireAiActivity } from "./ai_activities.ts";
import {
  companyFilter,
  companyForWrite,
  inScope,
  requireCompany,
  type Scope,
  type ScopedCaller,
  scopeOf,
} from "./scope.ts";
import { countUpTo, type Page, pageOf } from "./page.ts";

export const DOCUMENT_KINDS = [
  "report",
  "brief",
  "notes",
  "research",
  "proposal",
  "contract",
  "specification",
  "transcript",
  "summary",
  "other",
] as const;
export const DOCUMENT_SOURCES = ["ai", "user", "upload", "import", "integration"] as const;
/** What the document is to the AI activity: its product, something it read, a reference, or an attachment. */
export const DOCUMENT_RELATIONSHIPS = ["output", "input", "reference", "attachment"] as const;
/** Where a document's file lives when it is not (only) markdown in the database. */
export const STORAGE_PROVIDERS = [
  "s3",
  "gcs",
  "azure_blob",
  "google_drive",
  "dropbox",
  "onedrive",
  "sharepoint",
  "url",
] as const;
export const DEFAULT_MIME_TYPE = "text/markdown";
/** type/subtype with optional parameters (RFC 6838 names). */
export const MIME_TYPE =
  /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(\s*;.{0,200})?$/i;

export type DocumentKind = typeof DOCUMENT_KINDS[number];
export type DocumentSource = typeof DOCUMENT_SOURCES[number];
export type DocumentRelationship = typeof DOCUMENT_RELATIONSHIPS[number];
export type StorageProvider = typeof STORAGE_PROVIDERS[number];

export interface StorageFields {
  storageProvider?: StorageProvider | null;
  storagePath?: string | null;
  storageUrl?: string | null;
  fileSizeBytes?: number | null;
  checksumSha256?: string | null;
}

/** What list_workspace_documents answers per document (the rest: get_workspace_document). */
export interface DocumentSummary {
  id: string;
  title: string;
  kind: DocumentKind;
  source: DocumentSource;
  mimeType: string;
  contentBytes: number;
  createdAt: string;
}

export interface WorkspaceDocument extends DocumentSummary {
  description: string | null;
  companyId: string | null;
  storageProvider: StorageProvider | null;
  storagePath: string | null;
  storageUrl: string | null;
  fileSizeBytes: number | null;
  checksumSha256: string | null;
  createdBy: string | null;
  updatedAt: string;
  contentMarkdown: string | null;
  metadata: Record<string, unknown>;
  activities: LinkedActivity[];
}

export interface LinkedActivity {
  activityId: string;
  title: string;
  kind: string;
  status: string;
  relationship: DocumentRelationship;
  linkedAt: string;
}

export interface NewDocument extends StorageFields {
  title: string;
  kind: DocumentKind;
  source?: DocumentSource;
  description?: string;
  companyId?: string;
  mimeType?: string;
  contentMarkdown?: string;
  activityId?: string;
  relationship?: DocumentRelationship;
  metadata?: Record<string, unknown>;
}

/** undefined = unchanged, null = cleared. */
export interface DocumentPatch extends StorageFields {
  title?: string;
  description?: string | null;
  kind?: DocumentKind;
  source?: DocumentSource;
  companyId?: string | null;
  mimeType?: string;
  contentMarkdown?: string | null;
  metadata?: Record<string, unknown>;
}

export interface DocumentFilter {
  kind?: DocumentKind;
  source?: DocumentSource;
  search?: string;
  limit: number;
  offset?: number;
}

function summaryColumns(db: Db) {
  return db`
    d.id, d.title, d.kind, d.source, d.mime_type as "mimeType",
    coalesce(octet_length(d.content_markdown), 0) as "contentBytes", ${
    isoColumn(db, "d.created_at")
  } as "createdAt"`;
}

/** Constraint violations as answers naming the field. */
const ERRORS: ConstraintAnswers = {
  workspace_documents_content_size: invalidInput(
    "contentMarkdown: must be at most 1 MiB (1048576 bytes) of UTF-8",
  ),
};

/** Storage fields hang together: a path or URL needs a provider, and provider `url` needs the URL. */
function checkStorage(f: StorageFields): void {
  if ((f.storagePath || f.storageUrl) && !f.storageProvider) {
    throw invalidInput("storageProvider: is required with storagePath or storageUrl");
  }
  if (f.storageProvider === "url" && !f.storageUrl) {
    throw invalidInput("storageUrl: is required when storageProvider is url");
  }
}

async function fetchDocument(db: Db, s: Scope, id: string): Promise<WorkspaceDocument | null> {
  const [row] = await db<Omit<WorkspaceDocument, "activities">[]>`
    select ${summaryColumns(db)}, d.description, d.company_id as "companyId",
           d.storage_provider as "storageProvider", d.storage_path as "storagePath", d.storage_url as "storageUrl",
           d.file_size_bytes::float8 as "fileSizeBytes", d.checksum_sha256 as "checksumSha256",
           d.created_by as "createdBy", ${isoColumn(db, "d.updated_at")} as "updatedAt",
           d.content_markdown as "contentMarkdown", d.metadata
      from workspace_documents d
     where d.workspace_id = ${s.workspaceId} and d.id = ${id} and ${companyFilter(db, s, "d.company_id")}`;
  if (!row) return null;
  const activities = await db<LinkedActivity[]>`
    select a.id as "activityId", a.title, a.kind, a.status, l.relationship, ${
    isoColumn(db, "l.created_at")
  } as "linkedAt"
      from ai_activity_documents l
      join ai_activities a on a.workspace_id = l.workspace_id and a.id = l.activity_id
     where l.workspace_id = ${s.workspaceId} and l.document_id = ${id} and ${
    companyFilter(db, s, "a.company_id")
  }
     order by l.created_at, a.id`;
  return { ...row, activities: [...activities] };
}

/** One document with its content and the AI activities linked to it that the caller may see. */
export async function getDocument(db: Db, caller: ScopedCaller, id: string): Promise<WorkspaceDocument> {
  const d = await fetchDocument(db, scopeOf(caller), id);
  if (!d) throw notFound(`documentId: no document ${id}`);
  return d;
}

/**
 * Creates a document by the caller's user; with activityId it is linked to that AI activity (relationship,
 * default output) in the same transaction and, unless companyId says otherwise, takes the activity's company.
 */
export async function createDocument(
  db: Db,
  caller: ScopedCaller,
  input: NewDocument,
): Promise<WorkspaceDocument> {
  const s = scopeOf(caller);
  if (input.relationship && !input.activityId) throw invalidInput("relationship: needs activityId");
  if (input.mimeType !== undefined && !MIME_TYPE.test(input.mimeType)) {
    throw invalidInput("mimeType: must be a media type such as text/markdown or application/pdf");
  }
  checkStorage(input);
  let companyId = input.companyId ?? null;
  if (input.activityId) {
    const activity = await requireAiActivity(db, s, input.activityId);
    if (companyId && activity.companyId && companyId !== activity.companyId) {
      throw invalidInput(
        `activityId: activity ${input.activityId} belongs to another company than companyId`,
      );
    }
    companyId ??= activity.companyId;
  }
  companyId = companyForWrite(s, companyId);
  if (companyId) await requireCompany(db, s, companyId);
  const insert = async (tx: Db): Promise<string> => {
    const [{ id }] = await tx<{ id: string }[]>`
      insert into workspace_documents (workspace_id, company_id, title, description, kind, source, mime_type,
                                       content_markdown, storage_provider, storage_path, storage_url,
                                       file_size_bytes, checksum_sha256, metadata, created_by)
      values (${s.workspaceId}, ${companyId}, ${input.title}, ${input.description ?? null}, ${input.kind},
              ${input.source ?? "ai"}, ${input.mimeType ?? DEFAULT_MIME_TYPE}, ${
      input.contentMarkdown ?? null
    },
              ${input.storageProvider ?? null}, ${input.storagePath ?? null}, ${input.storageUrl ?? null},
              ${input.fileSizeBytes ?? null}, ${input.checksumSha256 ?? null},
              ${tx.json((input.metadata ?? {}) as postgres.JSONValue)}, ${caller.userId ?? null})
      returning id`;
    if (input.activityId) {
      await tx`
        insert into ai_activity_documents (workspace_id, activity_id, document_id, relationship)
        values (${s.workspaceId}, ${input.activityId}, ${id}, ${input.relationship ?? "output"})`;
    }
    return id;
  };
  let id: string;
  try {
    id = await withTx(db, insert);
  } catch (err) {
    throwMapped(err, ERRORS);
  }
  return (await fetchDocument(db, s, id))!;
}

const PATCH_COLUMNS = {
  title: "title",
  description: "description",
  kind: "kind",
  source: "source",
  mimeType: "mime_type",
  contentMarkdown: "content_markdown",
  storageProvider: "storage_provider",
  storagePath: "storage_path",
  storageUrl: "storage_url",
  fileSizeBytes: "file_size_bytes",
  checksumSha256: "checksum_sha256",
} as const;

/**
 * Changes the given fields in one statement (metadata is replaced as a whole). Storage consistency is checked on
 * the stored values merged with the patch. Moving to another company needs that company to be in scope.
 */
export async function updateDocument(
  db: Db,
  caller: ScopedCaller,
  id: string,
  patch: DocumentPatch,
): Promise<WorkspaceDocument> {
  const s = scopeOf(caller);
  const sets: postgres.Fragment[] = [];
  for (const [field, column] of Object.entries(PATCH_COLUMNS)) {
    const v = patch[field as keyof typeof PATCH_COLUMNS];
    if (v !== undefined) sets.push(db`${db(column)} = ${v}`);
  }
  if (patch.metadata !== undefined) {
    sets.push(db`metadata = ${db.json(patch.metadata as postgres.JSONValue)}`);
  }
  if (patch.companyId !== undefined) {
    if (patch.companyId === null) {
      if (s.companyIds !== null) {
        throw invalidInput("companyId: cannot be cleared by a key limited to companies");
      }
    } else {
      if (!inScope(s, patch.companyId)) throw notFound(`companyId: no company ${patch.companyId}`);
      await requireCompany(db, s, patch.companyId);
    }
    sets.push(db`company_id = ${patch.companyId}`);
  }
  if (sets.length === 0) throw invalidInput("nothing to change: give at least one field");
  if (patch.mimeType !== undefined && !MIME_TYPE.test(patch.mimeType)) {
    throw invalidInput("mimeType: must be a media type such as text/markdown or application/pdf");
  }
  const current = await fetchDocument(db, s, id);
  if (!current) throw notFound(`documentId: no document ${id}`);
  const merged: StorageFields = {};
  for (const k of ["storageProvider", "storagePath", "storageUrl"] as const) {
    (merged as Record<string, unknown>)[k] = patch[k] !== undefined ? patch[k] : current[k];
  }
  checkStorage(merged);
  let rows: { id: string }[];
  try {
    rows = await db<{ id: string }[]>`
      update workspace_documents d set ${sets.reduce((acc, p) => db`${acc}, ${p}`)}, updated_at = now()
       where d.workspace_id = ${s.workspaceId} and d.id = ${id} and ${companyFilter(db, s, "d.company_id")}
      returning d.id`;
  } catch (err) {
    throwMapped(err, ERRORS);
  }
  if (rows.length === 0) throw notFound(`documentId: no document ${id}`);
  return (await fetchDocument(db, s, id))!;
}

export type DocumentPage = Page<DocumentSummary>;

/** The caller's documents without their content, newest first; kind, source and text search combine with AND. */
export async function listDocuments(db: Db, caller: ScopedCaller, f: DocumentFilter): Promise<DocumentPage> {
  const s = scopeOf(caller);
  const parts: postgres.Fragment[] = [
    db`d.workspace_id = ${s.workspaceId}`,
    companyFilter(db, s, "d.company_id"),
  ];
  if (f.kind) parts.push(db`d.kind = ${f.kind}`);
  if (f.source) parts.push(db`d.source = ${f.source}`);
  if (f.search) {
    const p = likePattern(f.search);
    parts.push(db`(d.title ilike ${p} escape '\\' or d.description ilike ${p} escape '\\'
      or d.content_markdown ilike ${p} escape '\\')`);
  }
  const where = allOf(db, parts);
  const offset = f.offset ?? 0;
  const [items, total] = await Promise.all([
    db<DocumentSummary[]>`
      select ${summaryColumns(db)} from workspace_documents d where ${where}
       order by d.created_at desc, d.id desc limit ${f.limit} offset ${offset}`,
    countUpTo(db, db`workspace_documents d where ${where}`, f),
  ]);
  return pageOf([...items], total, f, true);
}

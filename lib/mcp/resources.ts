// MCP resources: resources/list, resources/templates/list and resources/read over documents, recordings and
// contact exports, under exactly the rules of the tools that read the same data (docs/mcp.md "Resources").
//
// Who may read a kind is decided by one question: is the tool that reads the same data in this caller's tools/list
// view (ctx.registry.view: the variant, role areas, modules, the person rule, the key's and URL's toolsets)? The
// rows themselves come from the same lib/workspace functions as those tools, so workspace and company scoping are
// the same code. Whatever the caller may not read answers exactly like what does not exist.
import { getRecording as getRecordingTool } from "../../tools/get_recording.ts";
import { getWorkspaceDocument } from "../../tools/get_workspace_document.ts";
import { exportContacts as exportTool, ExportContactsInput } from "../../tools/export_contacts.ts";
import { AppError } from "../errors.ts";
import { utf8Bytes } from "../json_bytes.ts";
import { exportContacts as exportCsv } from "../workspace/contacts.ts";
import { getDocument, listDocuments } from "../workspace/documents.ts";
import { getRecording, listRecordings, type Recording } from "../workspace/recordings.ts";
import { RPC, RpcError } from "./errors.ts";
import { sameCaller, verifyLink } from "./exports.ts";
import { appResources, isAppUri, readAppResource } from "./apps.ts";
import type { Db } from "../db/client.ts";
import type { Logger } from "../log.ts";
import type { Caller } from "./caller.ts";
import type { Registry } from "./registry.ts";
import { ENVELOPE_BYTES, escapeInSlices, type Room, SLICE_CHARS } from "./result_json.ts";
import {
  documentUri,
  type ExportFilter,
  exportUri,
  parseResourceUri,
  recordingUri,
  ResourceNotFound,
  resourceRpcError,
  ResourceTooLarge,
  TEMPLATES,
  uriParam,
} from "./resources_uri.ts";

export { ResourceNotFound, ResourceTooLarge } from "./resources_uri.ts";

/** What the resource functions use of a request (lib/mcp/server.ts McpCallContext satisfies it). */
export interface ResourceContext {
  /** the host declared MCP Apps (lib/mcp/apps.ts): the ui:// views are listed and readable */
  apps?: boolean;
  /** the caller's registry, narrowed to its toolsets: whose view says which kinds it may read */
  registry: Registry;
  caller: Caller;
  db: Db;
  log: Logger;
  requestId: string;
  /** SECRET_KEY, to read export_contacts' download links; absent: such links are not found */
  secretKey?: string;
  /** "2026" for 2026-07-28 requests (the not-found code differs); default "2025" */
  era?: "2025" | "2026";
}

/** A resources/list entry. */
export interface Resource {
  uri: string;
  name: string;
  description?: string;
  mimeType: string;
  /** bytes of the content, when known without reading it */
  size?: number;
}

/** A resources/read content entry (always text here). */
export interface TextResourceContents {
  uri: string;
  mimeType: string;
  text: string;
  _meta?: Record<string, unknown>;
}

/** Resources per resources/list page (a recording counts two: summary and transcript). */
export const RESOURCES_PAGE_SIZE = 50;
/** The furthest a list pages into one kind, as offsetField allows the list tools. */
export const MAX_LIST_OFFSET = 100_000;

/** May this caller use `tool` (so read what it reads)? The caller's tools/list view, cached per signature. */
function mayUse(ctx: ResourceContext, tool: string): boolean {
  return ctx.registry.view(ctx.caller).tools.has(tool);
}

// ---- resources/templates/list ---------------------------------------------------------------------------

/** The templates of the kinds this caller may read (one page: there are four at most). */
export function listResourceTemplates(ctx: ResourceContext): { resourceTemplates: unknown[] } {
  return { resourceTemplates: TEMPLATES.filter((t) => mayUse(ctx, t.tool)).map((t) => t.template) };
}

// ---- resources/list -------------------------------------------------------------------------------------

/** One kind of listed resource: a page of it from `offset`, at most `room` entries, and where the next starts. */
interface Section {
  name: string;
  tool: string;
  page(
    ctx: ResourceContext,
    offset: number,
    room: number,
  ): Promise<{ items: Resource[]; next: number | null }>;
}

const SECTIONS: readonly Section[] = [
  {
    // One entry: every contact the caller may export. Filtered exports are the template's; download links are
    // per call and expire, so they are not listed.
    name: "exports",
    tool: exportTool.name,
    page: (ctx) =>
      Promise.resolve({
        items: [{
          uri: exportUri(ctx.caller.workspaceId),
          name: "contacts.csv",
          description:
            "Every contact you may export, as CSV (UTF-8 with BOM, at most 10000 rows and 10 MiB), " +
            "made when read. Filters: the query of the contacts-export template.",
          mimeType: "text/csv",
        }],
        next: null,
      }),
  },
  {
    name: "documents",
    tool: getWorkspaceDocument.name,
    async page(ctx, offset, room) {
      const p = await listDocuments(ctx.db, ctx.caller, { limit: room, offset });
      return {
        items: p.items.map((d) => ({
          uri: documentUri(ctx.caller.workspaceId, d.id),
          name: d.title,
          description: `Document (${d.kind}, ${d.source}), created ${d.createdAt}.`,
          mimeType: "text/markdown",
          size: d.contentBytes,
        })),
        next: p.nextOffset,
      };
    },
  },
  {
    name: "recordings",
    tool: getRecordingTool.name,
    async page(ctx, offset, room) {
      const p = await listRecordings(ctx.db, ctx.caller, { limit: Math.floor(room / 2), offset });
      return {
        items: p.items.flatMap((r) => [
          {
            uri: recordingUri(ctx.caller.workspaceId, r.id, "summary"),
            name: `${r.title} (summary)`,
            description:
              `Recording of ${r.recordedAt}: summary, ${r.actionItemCount} action items and notes.`,
            mimeType: "text/markdown",
          },
          {
            uri: recordingUri(ctx.caller.workspaceId, r.id, "transcript"),
            name: `${r.title} (transcript)`,
            description: `Recording of ${r.recordedAt}: the transcription${
              r.hasTranscription ? "" : " (empty)"
            }.`,
            mimeType: "text/plain",
          },
        ]),
        next: p.nextOffset,
      };
    },
  },
];

interface Cursor {
  /** index in SECTIONS */
  s: number;
  /** offset within that section */
  o: number;
}

function encodeCursor(c: Cursor): string {
  return btoa(JSON.stringify({ v: 1, s: SECTIONS[c.s].name, o: c.o })).replace(/=+$/, "")
    .replace(/\+/g, "-").replace(/\//g, "_");
}

/** An opaque cursor of ours back to its place, or -32602. Absent (undefined or null): the first page. */
function isObjectWithCursor(params: unknown): boolean {
  return typeof params === "object" && params !== null && "cursor" in params &&
    (params as Record<string, unknown>).cursor != null;
}

function decodeCursor(params: unknown): Cursor {
  const raw = typeof params === "object" && params !== null && !Array.isArray(params)
    ? (params as Record<string, unknown>).cursor
    : undefined;
  if (raw === undefined || raw === null) return { s: 0, o: 0 };
  const bad = new RpcError(
    RPC.INVALID_PARAMS,
    "Invalid params: cursor is not a nextCursor of resources/list",
  );
  if (typeof raw !== "string" || raw.length > 200 || !/^[A-Za-z0-9_-]+$/.test(raw)) throw bad;
  let v: unknown;
  try {
    v = JSON.parse(atob(raw.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    throw bad;
  }
  if (typeof v !== "object" || v === null) throw bad;
  const { v: version, s, o } = v as Record<string, unknown>;
  const index = SECTIONS.findIndex((x) => x.name === s);
  if (
    version !== 1 || index < 0 || typeof o !== "number" || !Number.isInteger(o) || o < 0 ||
    o > MAX_LIST_OFFSET
  ) throw bad;
  return { s: index, o };
}

/**
 * One page of what the caller may read, in a stable order: the contacts export, documents (newest first), then
 * recordings (newest first, summary and transcript). `nextCursor` only when more may follow (never "").
 */
export async function listResources(
  ctx: ResourceContext,
  params: unknown,
): Promise<{ resources: Resource[]; nextCursor?: string }> {
  let { s, o } = decodeCursor(params);
  const resources: Resource[] = [];
  for (; s < SECTIONS.length; s++, o = 0) {
    const section = SECTIONS[s];
    if (!mayUse(ctx, section.tool)) continue;
    const room = RESOURCES_PAGE_SIZE - resources.length;
    // Full (or no room for a recording's two entries): the next page starts with this section.
    if (room < 2) return { resources, nextCursor: encodeCursor({ s, o }) };
    const page = await section.page(ctx, o, room);
    resources.push(...page.items);
    if (page.next !== null) {
      if (page.next > MAX_LIST_OFFSET) continue;
      return { resources, nextCursor: encodeCursor({ s, o: page.next }) };
    }
  }
  return { resources };
}

// ---- resources/read -------------------------------------------------------------------------------------

/** A lib/workspace not_found (another company, another person's recording, no such row) is the resource's. */
async function orNotFound<T>(uri: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof AppError && (err.code === "not_found" || err.code === "access_denied")) {
      throw new ResourceNotFound(uri);
    }
    throw err;
  }
}

/** h:mm:ss */
function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
}

/** A recording's summary resource: what get_recording answers but the transcription, as markdown. */
export function recordingSummaryMarkdown(r: Recording): string {
  const items = r.actionItems.length === 0
    ? "(none)"
    : r.actionItems.map((a) => `- [${a.done ? "x" : " "}] ${a.text}`).join("\n");
  return `# ${r.title}\n\nRecorded ${r.recordedAt}, duration ${duration(r.durationSeconds)}.\n\n` +
    `## Summary\n\n${r.summary || "(none)"}\n\n## Action items\n\n${items}\n\n## Notes\n\n${
      r.notes || "(none)"
    }\n`;
}

async function readExport(
  ctx: ResourceContext,
  uri: string,
  filter: ExportFilter,
): Promise<{ contents: TextResourceContents[] }> {
  const out = await exportCsv(ctx.db, ctx.caller, filter);
  return {
    contents: [{
      uri,
      mimeType: "text/csv",
      text: out.csv,
      // a CSV file cannot say it was cut (the download route's X-Export-* headers)
      _meta: {
        "portico/export": {
          rows: out.rows,
          matched: out.matched,
          truncated: out.truncated,
          cutBy: out.cutBy,
        },
      },
    }],
  };
}

/**
 * The contents of `uri` for this caller. ResourceNotFound for what does not exist and for what the caller may
 * not read (another workspace, a company outside its scope, another person's recording, a role, module, variant
 * or toolset without the tool); RpcError -32602 for a malformed URI.
 */
export async function readResource(
  ctx: ResourceContext,
  uri: string,
): Promise<{ contents: TextResourceContents[] }> {
  const ref = parseResourceUri(uri);
  const notFound = new ResourceNotFound(uri);
  switch (ref.kind) {
    case "foreign":
      throw notFound;
    case "document": {
      if (ref.workspaceId !== ctx.caller.workspaceId || !mayUse(ctx, getWorkspaceDocument.name)) {
        throw notFound;
      }
      const d = await orNotFound(uri, () => getDocument(ctx.db, ctx.caller, ref.documentId));
      return { contents: [{ uri, mimeType: "text/markdown", text: d.contentMarkdown ?? "" }] };
    }
    case "recording": {
      if (ref.workspaceId !== ctx.caller.workspaceId || !mayUse(ctx, getRecordingTool.name)) throw notFound;
      const r = await orNotFound(uri, () => getRecording(ctx.db, ctx.caller, ref.recordingId));
      return ref.part === "summary"
        ? { contents: [{ uri, mimeType: "text/markdown", text: recordingSummaryMarkdown(r) }] }
        : { contents: [{ uri, mimeType: "text/plain", text: r.transcription }] };
    }
    case "export":
      if (ref.workspaceId !== ctx.caller.workspaceId || !mayUse(ctx, exportTool.name)) throw notFound;
      return await readExport(ctx, uri, ref.filter);
    case "export_link": {
      // Only for the credential that made it (the link alone works at GET /exports; here the caller is known).
      if (ctx.secretKey === undefined) throw notFound;
      const v = verifyLink(ctx.secretKey, ref.token);
      if (
        !v.ok || v.claims.k !== "contacts" || !sameCaller(v.claims, ctx.caller) ||
        !mayUse(ctx, exportTool.name)
      ) {
        throw notFound;
      }
      const filter = ExportContactsInput.safeParse(v.claims.f);
      if (!filter.success) throw notFound;
      return await readExport(ctx, uri, filter.data);
    }
  }
}

/**
 * resources/read as JSON text, at most `limitBytes` (UTF-8): a larger resource is a ResourceTooLarge error, never
 * a silently cut file. Long texts (a 10 MiB export) are escaped with the event loop let through.
 */
export async function readResourceJson(
  ctx: ResourceContext,
  params: unknown,
  limitBytes: number,
): Promise<string> {
  const uri = uriParam(params);
  const { contents } = await readResource(ctx, uri);
  const parts: string[] = [];
  for (const c of contents) {
    const { text, ...rest } = c;
    const head = JSON.stringify(rest);
    const escaped = text.length > SLICE_CHARS ? await escapeInSlices(text) : JSON.stringify(text);
    parts.push(`${head.slice(0, -1)},"text":${escaped}}`);
  }
  const json = `{"contents":[${parts.join(",")}]}`;
  const bytes = json.length * 3 <= limitBytes ? json.length : utf8Bytes(json);
  if (bytes > limitBytes) throw new ResourceTooLarge(uri, bytes, limitBytes);
  return json;
}

/**
 * resources/list, resources/templates/list or resources/read as JSON text (the dispatcher adds the 2026 fields), a
 * read within the room the answer has left; resource errors become the JSON-RPC error of the request's era.
 */
export async function resourceMethod(
  ctx: ResourceContext,
  method: "resources/list" | "resources/templates/list" | "resources/read",
  params: unknown,
  room: Room,
): Promise<string> {
  try {
    if (method === "resources/list") {
      const page = await listResources(ctx, params);
      // A host with MCP Apps sees the views first, on the first page (lib/mcp/apps.ts).
      if (ctx.apps && !isObjectWithCursor(params)) {
        page.resources.unshift(...(appResources(ctx) as unknown as Resource[]));
      }
      return JSON.stringify(page);
    }
    if (method === "resources/read" && ctx.apps && isAppUri(uriParam(params))) {
      const uri = uriParam(params);
      const json = JSON.stringify(readAppResource(ctx, uri));
      const limit = Math.max(room.left - ENVELOPE_BYTES, 0);
      const bytes = utf8Bytes(json);
      if (bytes > limit) throw new ResourceTooLarge(uri, bytes, limit);
      return json;
    }
    if (method === "resources/templates/list") return JSON.stringify(listResourceTemplates(ctx));
    return await readResourceJson(ctx, params, Math.max(room.left - ENVELOPE_BYTES, 0));
  } catch (err) {
    if (err instanceof ResourceNotFound || err instanceof ResourceTooLarge) {
      throw resourceRpcError(err, ctx.era ?? "2025");
    }
    throw err;
  }
}

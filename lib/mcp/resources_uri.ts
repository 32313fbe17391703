// MCP resource URIs: their templates, parsing a URI into what it names, and the resource errors with their codes.
import type { z } from "zod";
import { ExportContactsInput } from "../../tools/export_contacts.ts";
import { isUuid } from "../errors.ts";
import { unsafeInputProblem } from "../unsafe_input.ts";
import { EXPORT_FILES, EXPORT_PATH } from "./exports.ts";
import { inputError, RPC, RpcError } from "./errors.ts";

/** The export file names a `portico://…/exports/` URI may end in: `contacts.csv`, or as export_contacts names it. */
const EXPORT_NAME = /^contacts(-\d{8}T\d{6}Z)?\.csv$/;
/** Longer URIs are refused before any parsing (a signed export link is at most ~16,400 characters). */
export const MAX_URI_CHARS = 20_000;

export type ExportFilter = z.output<typeof ExportContactsInput>;

/** The filter fields an export URI's query may carry: exactly export_contacts' input fields. */
export const EXPORT_QUERY_FIELDS = Object.keys(ExportContactsInput.shape);

/** What a resource URI names. Ids are lower-cased UUIDs; the workspace is the one the URI names. */
export type ResourceRef =
  | { kind: "document"; workspaceId: string; documentId: string }
  | { kind: "recording"; workspaceId: string; recordingId: string; part: "summary" | "transcript" }
  | { kind: "export"; workspaceId: string; filter: ExportFilter }
  | { kind: "export_link"; token: string }
  | { kind: "foreign" };

export const documentUri = (workspaceId: string, id: string) =>
  `portico://workspaces/${workspaceId}/documents/${id}`;
export const recordingUri = (workspaceId: string, id: string, part: "summary" | "transcript") =>
  `portico://workspaces/${workspaceId}/recordings/${id}/${part}`;
/** The export of every contact the caller may export; filters go in the query (EXPORT_QUERY_FIELDS). */
export const exportUri = (workspaceId: string) => `portico://workspaces/${workspaceId}/exports/contacts.csv`;

/** The resources/templates/list entries (RFC 6570), one per kind, each with the tool whose rules it follows. */
export const TEMPLATES = [
  {
    tool: "get_workspace_document",
    template: {
      uriTemplate: "portico://workspaces/{workspaceId}/documents/{documentId}",
      name: "workspace-document",
      description:
        "A workspace document's markdown content (contentMarkdown; empty when it has none). Ids from " +
        "list_workspace_documents or resources/list.",
      mimeType: "text/markdown",
    },
  },
  {
    tool: "get_recording",
    template: {
      uriTemplate: "portico://workspaces/{workspaceId}/recordings/{recordingId}/summary",
      name: "recording-summary",
      description:
        "One of your recordings as markdown: title, date, duration, summary, action items and notes.",
      mimeType: "text/markdown",
    },
  },
  {
    tool: "get_recording",
    template: {
      uriTemplate: "portico://workspaces/{workspaceId}/recordings/{recordingId}/transcript",
      name: "recording-transcript",
      description: "One of your recordings' transcription as plain text.",
      mimeType: "text/plain",
    },
  },
  {
    tool: "export_contacts",
    template: {
      uriTemplate: `portico://workspaces/{workspaceId}/exports/contacts.csv{?${
        EXPORT_QUERY_FIELDS.join(",")
      }}`,
      name: "contacts-export",
      description:
        "The contacts matching the list_contacts filters as CSV (UTF-8 with BOM, at most 10000 rows and " +
        "10 MiB), made when read. The URIs export_contacts hands out (…/exports/contacts-<stamp>.csv) read the " +
        "same way.",
      mimeType: "text/csv",
    },
  },
] as const;

/** A resource that does not exist or that this caller may not read: one answer for both, so nothing leaks. */
export class ResourceNotFound extends Error {
  override name = "ResourceNotFound";
  constructor(readonly uri: string) {
    super("Resource not found");
  }
}

/** A resource whose answer would exceed the bytes one answer may carry (ANSWER_MAX_BYTES). */
export class ResourceTooLarge extends Error {
  override name = "ResourceTooLarge";
  constructor(readonly uri: string, readonly bytes: number, readonly limitBytes: number) {
    super(
      `Resource too large: ${bytes} bytes as JSON, more than the ${limitBytes} bytes this answer can carry; ` +
        "read it through its tool with a narrower filter.",
    );
  }
}

/**
 * A resource error as the JSON-RPC error of its era. Not found: -32002 in the 2025 revisions, -32602 in
 * 2026-07-28 (its resources page forbids -32002), `data: {uri}` in both. Too large: -32603 with the sizes.
 */
export function resourceRpcError(err: ResourceNotFound | ResourceTooLarge, era: "2025" | "2026"): RpcError {
  if (err instanceof ResourceNotFound) {
    return new RpcError(era === "2026" ? RPC.INVALID_PARAMS : RPC.RESOURCE_NOT_FOUND, err.message, {
      uri: err.uri,
    });
  }
  return new RpcError(RPC.INTERNAL_ERROR, err.message, {
    uri: err.uri,
    bytes: err.bytes,
    limitBytes: err.limitBytes,
  });
}

const invalid = (message: string) => new RpcError(RPC.INVALID_PARAMS, `Invalid params: ${message}`);

/** params.uri of resources/read, or -32602. */
export function uriParam(params: unknown): string {
  const uri = typeof params === "object" && params !== null && !Array.isArray(params)
    ? (params as Record<string, unknown>).uri
    : undefined;
  if (typeof uri !== "string" || uri === "") throw invalid("resources/read needs params.uri (a string)");
  if (uri.length > MAX_URI_CHARS) throw invalid(`uri is longer than ${MAX_URI_CHARS} characters`);
  return uri;
}

const PORTICO = /^portico:\/\/workspaces\/([^/?#]*)\/(documents|recordings|exports)\/([^?#]*)(\?[^#]*)?$/;

function uuid(value: string, what: string): string {
  if (!isUuid(value)) throw invalid(`${what} in the uri must be a UUID`);
  return value.toLowerCase();
}

/**
 * What `uri` names. -32602 for a malformed URI: not a URI at all, or a `portico:` URI that fits no template or
 * has a malformed id or filter. A well-formed URI of anything else is `foreign` (not found).
 */
export function parseResourceUri(uri: string): ResourceRef {
  if (/^portico:/i.test(uri)) {
    const m = PORTICO.exec(uri);
    if (!m) throw invalid("not a Portico resource URI (see resources/templates/list)");
    const [, ws, kind, rest, query] = m;
    const workspaceId = uuid(ws, "the workspace id");
    if (kind === "exports") {
      if (!EXPORT_NAME.test(rest)) {
        throw invalid("an export URI ends in contacts.csv or contacts-<stamp>.csv");
      }
      return { kind: "export", workspaceId, filter: exportFilter(query ?? "") };
    }
    if (query !== undefined) throw invalid(`a ${kind} URI takes no query`);
    if (kind === "documents") {
      return { kind: "document", workspaceId, documentId: uuid(rest, "the document id") };
    }
    const r = /^([^/]*)\/(summary|transcript)$/.exec(rest);
    if (!r) throw invalid("a recording URI ends in /summary or /transcript");
    return {
      kind: "recording",
      workspaceId,
      recordingId: uuid(r[1], "the recording id"),
      part: r[2] as "summary",
    };
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw invalid("uri is not a URI");
  }
  // A download link export_contacts handed out: served here too, for the caller it was made for.
  const linkPath = `${EXPORT_PATH}/${EXPORT_FILES.contacts}`;
  const token = url.searchParams.get("token");
  if ((url.protocol === "https:" || url.protocol === "http:") && url.pathname === linkPath && token) {
    return { kind: "export_link", token };
  }
  return { kind: "foreign" };
}

/** The query of an export URI as export_contacts input: known fields, each once, valid values (else -32602). */
function exportFilter(query: string): ExportFilter {
  const out: Record<string, string> = {};
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(query);
  } catch {
    throw invalid("the export uri's query is malformed");
  }
  for (const [k, v] of params) {
    if (!EXPORT_QUERY_FIELDS.includes(k)) {
      throw invalid(
        `unknown export filter ${JSON.stringify(k.slice(0, 40))}; known: ${EXPORT_QUERY_FIELDS.join(", ")}`,
      );
    }
    if (Object.hasOwn(out, k)) throw invalid(`export filter ${k} is given twice`);
    out[k] = v;
  }
  const unsafe = unsafeInputProblem(out);
  if (unsafe) throw invalid(unsafe);
  const parsed = ExportContactsInput.safeParse(out);
  if (!parsed.success) throw invalid(inputError(parsed.error).message);
  return parsed.data;
}

// MCP tool update_workspace_document: changes the given fields of a workspace document.
import { z } from "zod";
import { markdownField, metadataField } from "../lib/mcp/crm_fields.ts";
import { textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { DOCUMENT_KINDS, DOCUMENT_SOURCES, updateDocument as update } from "../lib/workspace/documents.ts";
import { mimeTypeField, storageFields } from "./create_workspace_document.ts";

const CLEAR = "null clears it.";
const s = storageFields(CLEAR);
const Input = z.strictObject({
  documentId: uuidField("The document's id, as returned by list_workspace_documents."),
  title: textField("New title.", { min: 1, max: 200 }).optional(),
  description: textField(`New description; ${CLEAR}`, { max: 10000 }).nullable()
    .optional(),
  kind: z.enum(DOCUMENT_KINDS).describe(`New document kind.`).optional(),
  source: z.enum(DOCUMENT_SOURCES).describe(`New document source.`)
    .optional(),
  companyId: uuidField(`Move the document to this company (in the key's scope); ${CLEAR}`).nullable()
    .optional(),
  mimeType: mimeTypeField("New media type, e.g. text/markdown.").optional(),
  contentMarkdown: markdownField(`New content (replaces the old), at most 1 MiB of UTF-8; ${CLEAR}`)
    .nullable()
    .optional(),
  storageProvider: s.storageProvider.nullable().optional(),
  storagePath: s.storagePath.nullable().optional(),
  storageUrl: s.storageUrl.nullable().optional(),
  fileSizeBytes: s.fileSizeBytes.nullable().optional(),
  checksumSha256: s.checksumSha256.nullable().optional(),
  metadata: metadataField(
    "New metadata object, replacing the old one as a whole; at most 16 KiB.",
  )
    .optional(),
});

export const updateWorkspaceDocument = defineTool({
  name: "update_workspace_document",
  title: "Update document",
  area: "documents",
  module: "documents",
  needsUser: false,
  variants: { A: Input },
  // Replaces content and metadata, which cannot be recovered afterwards.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description:
    "Changes the given fields of a workspace document. Returns the document (get_workspace_document fields).",
  run: (ctx, { documentId, ...patch }) => update(ctx.db, ctx.caller, documentId, patch),
});

// MCP tool update_workspace_document: changes the given fields of a workspace document.
import { z } from "zod";
import { markdownField, metadataField } from "../lib/mcp/crm_fields.ts";
import { textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { DOCUMENT_KINDS, DOCUMENT_SOURCES, updateDocument as update } from "../lib/workspace/documents.ts";
import { mimeTypeField, storageFields } from "./create_workspace_document.ts";

const CLEAR = "null clears it. Omit to keep.";
const s = storageFields(CLEAR);
const Input = z.strictObject({
  documentId: uuidField("The document's id (UUID), as returned by list_workspace_documents. Required."),
  title: textField("New title, 1-200 characters. Omit to keep.", { min: 1, max: 200 }).optional(),
  description: textField(`New description; up to 10000 characters; ${CLEAR}`, { max: 10000 }).nullable()
    .optional(),
  kind: z.enum(DOCUMENT_KINDS).describe(`New kind: ${DOCUMENT_KINDS.join(", ")}. Omit to keep.`).optional(),
  source: z.enum(DOCUMENT_SOURCES).describe(`New source: ${DOCUMENT_SOURCES.join(", ")}. Omit to keep.`)
    .optional(),
  companyId: uuidField(`Move the document to this company (UUID, in the key's scope); ${CLEAR}`).nullable()
    .optional(),
  mimeType: mimeTypeField("New media type, e.g. text/markdown. Omit to keep.").optional(),
  contentMarkdown: markdownField(`New content (replaces the old), at most 1 MiB of UTF-8; ${CLEAR}`)
    .nullable()
    .optional(),
  storageProvider: s.storageProvider.nullable().optional(),
  storagePath: s.storagePath.nullable().optional(),
  storageUrl: s.storageUrl.nullable().optional(),
  fileSizeBytes: s.fileSizeBytes.nullable().optional(),
  checksumSha256: s.checksumSha256.nullable().optional(),
  metadata: metadataField(
    "New metadata object, replacing the old one as a whole; at most 16 KiB. Omit to keep.",
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
    "Changes the given fields of a workspace document; omitted fields stay as they are. Returns the " +
    "document as get_workspace_document does. not_found when the id is unknown or outside the key's companies.",
  run: (ctx, { documentId, ...patch }) => update(ctx.db, ctx.caller, documentId, patch),
});

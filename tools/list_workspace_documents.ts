// MCP tool list_workspace_documents: the caller's documents as summaries (without content), newest first.
import { z } from "zod";
import { limitField, offsetField, textField } from "../lib/mcp/fields.ts";
import { pageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { DOCUMENT_KINDS, DOCUMENT_SOURCES, listDocuments as list } from "../lib/workspace/documents.ts";

const Input = z.strictObject({
  kind: z.enum(DOCUMENT_KINDS).describe(`Only this kind.`).optional(),
  source: z.enum(DOCUMENT_SOURCES).describe(`Only this source.`)
    .optional(),
  search: textField(
    "Text to find in title, description or content (case-insensitive substring).",
    { max: 200 },
  ).optional(),
  limit: limitField(20, 100),
  offset: offsetField(),
});

export const listWorkspaceDocuments = defineTool({
  name: "list_workspace_documents",
  title: "List documents",
  area: "documents",
  module: "documents",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: pageOutput(),
  description:
    "Lists workspace documents, newest first. Returns a page of {id, title, kind, source, mimeType, contentBytes, createdAt}; content and details from get_workspace_document.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});

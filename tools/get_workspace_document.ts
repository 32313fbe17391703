// MCP tool get_workspace_document: one document with its content and the AI activities linked to it.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { getDocument as get } from "../lib/workspace/documents.ts";

const Input = z.strictObject({
  documentId: uuidField("The document's id, as returned by list_workspace_documents."),
});

export const getWorkspaceDocument = defineTool({
  name: "get_workspace_document",
  title: "Get document",
  area: "documents",
  module: "documents",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Gets one workspace document by id. Returns the document with contentMarkdown, metadata and linked AI activities.",
  run: (ctx, input) => get(ctx.db, ctx.caller, input.documentId),
});

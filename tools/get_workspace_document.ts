// MCP tool get_workspace_document: one document with its content and the AI activities linked to it.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { getDocument as get } from "../lib/workspace/documents.ts";

const Input = z.strictObject({
  documentId: uuidField("The document's id (UUID), as returned by list_workspace_documents. Required."),
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
    "Gets one workspace document. Returns the list_workspace_documents fields plus contentMarkdown, " +
    "metadata and activities (linked AI activities: activityId, title, kind, status, relationship, linkedAt). " +
    "not_found when the id is unknown or outside the key's companies.",
  run: (ctx, input) => get(ctx.db, ctx.caller, input.documentId),
});

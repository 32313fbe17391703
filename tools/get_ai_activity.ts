// MCP tool get_ai_activity: one AI activity with phases, metadata, result and linked documents.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { getAiActivity as get } from "../lib/workspace/ai_activities.ts";

const Input = z.strictObject({
  activityId: uuidField("The AI activity's id (UUID), as returned by list_ai_activities. Required."),
});

export const getAiActivity = defineTool({
  name: "get_ai_activity",
  title: "Get AI activity",
  area: "ai_activities",
  module: "ai_activities",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Gets one AI activity. Returns the list_ai_activities summary fields plus description, metadata, " +
    "resultMarkdown, phases (in order: position, name, status, summary, error, startedAt, finishedAt) and " +
    "documents (linked workspace documents: documentId, title, kind, relationship, linkedAt). not_found when " +
    "the id is unknown or outside the key's companies.",
  run: (ctx, input) => get(ctx.db, ctx.caller, input.activityId),
});

// MCP tool get_ai_activity: one AI activity with phases, metadata, result and linked documents.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { getAiActivity as get } from "../lib/workspace/ai_activities.ts";

const Input = z.strictObject({
  activityId: uuidField("The AI activity's id, as returned by list_ai_activities."),
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
    "Gets one AI activity by id. Returns the activity with metadata, resultMarkdown, phases and linked documents.",
  run: (ctx, input) => get(ctx.db, ctx.caller, input.activityId),
});

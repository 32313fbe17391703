// MCP tool list_ai_activities: the caller's AI activities as summaries, newest first.
import { z } from "zod";
import { limitField, offsetField, textField } from "../lib/mcp/fields.ts";
import { pageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import {
  AI_ACTIVITY_KINDS,
  AI_ACTIVITY_SOURCES,
  AI_ACTIVITY_STATUSES,
  listAiActivities as list,
} from "../lib/workspace/ai_activities.ts";

const Input = z.strictObject({
  kind: z.enum(AI_ACTIVITY_KINDS).describe(`Only this kind.`)
    .optional(),
  source: z.enum(AI_ACTIVITY_SOURCES).describe(
    `Only this source.`,
  )
    .optional(),
  status: z.enum(AI_ACTIVITY_STATUSES).describe(
    `Only this status.`,
  )
    .optional(),
  search: textField(
    "Text to find in title, description, agentName or aiTaskId (case-insensitive substring).",
    { max: 200 },
  ).optional(),
  limit: limitField(20, 100),
  offset: offsetField(),
});

export const listAiActivities = defineTool({
  name: "list_ai_activities",
  title: "List AI activities",
  area: "ai_activities",
  module: "ai_activities",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: pageOutput(),
  description:
    "Lists AI activities, newest first; filters combine with AND. Returns a page of {id, kind, status, title, agentName, phaseCount, resultBytes, createdAt, finishedAt}; details from get_ai_activity.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});

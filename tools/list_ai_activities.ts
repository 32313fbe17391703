// MCP tool list_ai_activities: the caller's AI activities as summaries, newest first.
import { z } from "zod";
import { limitField, offsetField, textField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import {
  AI_ACTIVITY_KINDS,
  AI_ACTIVITY_SOURCES,
  AI_ACTIVITY_STATUSES,
  listAiActivities as list,
} from "../lib/workspace/ai_activities.ts";

const Input = z.strictObject({
  kind: z.enum(AI_ACTIVITY_KINDS).describe(`Only this kind: ${AI_ACTIVITY_KINDS.join(", ")}. Optional.`)
    .optional(),
  source: z.enum(AI_ACTIVITY_SOURCES).describe(
    `Only this source: ${AI_ACTIVITY_SOURCES.join(", ")}. Optional.`,
  )
    .optional(),
  status: z.enum(AI_ACTIVITY_STATUSES).describe(
    `Only this status: ${AI_ACTIVITY_STATUSES.join(", ")}. Optional.`,
  )
    .optional(),
  search: textField(
    "Text to find in title, description, agentName or aiTaskId (case-insensitive substring); up to 200 " +
      "characters. Optional.",
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
  description: "Lists the AI activities the key may see, newest first; filters combine with AND. Returns " +
    "{ items, total, limit, offset, hasMore, nextOffset }; items are summaries (id, kind, source, status, title, agentName, " +
    "aiTaskId, companyId, phaseCount, resultBytes, createdBy, createdAt, updatedAt, finishedAt).",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});

// MCP tool update_ai_activity_phase: updates or appends one phase of an AI activity, its status and its result.
import { z } from "zod";
import { instantField, markdownField } from "../lib/mcp/crm_fields.ts";
import { textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import {
  AI_ACTIVITY_STATUSES,
  PHASE_STATUSES,
  updateAiActivityPhase as update,
} from "../lib/workspace/ai_activities.ts";
import { phaseNameField } from "./track_ai_activity.ts";

const Input = z.strictObject({
  activityId: uuidField("The AI activity's id."),
  phaseName: phaseNameField(
    "The phase's name: an existing phase of that name is updated, otherwise a new phase is " +
      "appended after the last one.",
  ),
  phaseStatus: z.enum(PHASE_STATUSES).describe(`The phase's status.`),
  phaseSummary: textField("What happened in the phase.", { max: 10000 })
    .optional(),
  phaseError: textField("Why the phase failed.", { max: 10000 })
    .optional(),
  startedAt: instantField(
    "When the phase started (ISO 8601). Default: kept, or now when the phase first leaves pending.",
  ).optional(),
  finishedAt: instantField(
    "When the phase ended (ISO 8601). Default: now when the status is completed, failed or skipped; cleared " +
      "for other statuses.",
  ).optional(),
  activityStatus: z.enum(AI_ACTIVITY_STATUSES).describe(
    `Moves the whole activity to this status.`,
  ).optional(),
  resultMarkdown: markdownField(
    "Markdown appended to the activity's result after a blank line (or replacing it, see " +
      "replaceResultMarkdown); the whole result may hold at most 1 MiB of UTF-8.",
  ).optional(),
  replaceResultMarkdown: z.boolean({ error: "must be true or false" }).default(false).describe(
    "true: resultMarkdown replaces the result instead of being appended. Default false.",
  ),
});

export const updateAiActivityPhase = defineTool({
  name: "update_ai_activity_phase",
  title: "Update AI activity phase",
  area: "ai_activities",
  module: "ai_activities",
  needsUser: false,
  variants: { A: Input },
  // replaceResultMarkdown overwrites the previous result, which cannot be recovered.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  description:
    "Updates or appends the phase phaseName of an AI activity, optionally setting its status and result. Returns the activity (get_ai_activity fields).",
  run: (ctx, { activityId, ...u }) => update(ctx.db, ctx.caller, activityId, u),
});

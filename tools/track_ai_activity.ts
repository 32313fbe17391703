// MCP tool track_ai_activity: records a piece of AI work (with its phases) by the key's user.
import { z } from "zod";
import { instantField, markdownField, metadataField } from "../lib/mcp/crm_fields.ts";
import { textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import {
  AI_ACTIVITY_KINDS,
  AI_ACTIVITY_SOURCES,
  AI_ACTIVITY_STATUSES,
  MAX_PHASES,
  PHASE_STATUSES,
  trackAiActivity as track,
} from "../lib/workspace/ai_activities.ts";

/** A phase name: what the phases of one activity are told apart by. */
export function phaseNameField(description: string) {
  return textField(description, { min: 1, max: 100 });
}

const PhaseInput = z.strictObject({
  name: phaseNameField("The phase's name, unique within the activity."),
  status: z.enum(PHASE_STATUSES).describe(`Phase status. Default pending.`)
    .optional(),
  summary: textField("What happened in the phase.", { max: 10000 })
    .optional(),
  error: textField("Why the phase failed.", { max: 10000 }).optional(),
  startedAt: instantField("When the phase started (ISO 8601). Default now unless the status is pending.")
    .optional(),
  finishedAt: instantField("When it ended (ISO 8601). Default now for completed, failed or skipped.")
    .optional(),
});

const Input = z.strictObject({
  kind: z.enum(AI_ACTIVITY_KINDS).describe(`What kind of work.`),
  title: textField("Short title.", { min: 1, max: 200 }),
  source: z.enum(AI_ACTIVITY_SOURCES).describe(
    `Where the work was started. Default mcp.`,
  ).optional(),
  description: textField("What the work is about.", { max: 10000 })
    .optional(),
  agentName: textField("Name of the agent or model doing it.", { max: 200 })
    .optional(),
  status: z.enum(AI_ACTIVITY_STATUSES).describe(
    `Status. Default running.`,
  ).optional(),
  companyId: uuidField(
    "The company the work is for. Default: the key's only company, else none.",
  ).optional(),
  aiTaskId: textField("The agent platform's own id of the task.", {
    max: 200,
  })
    .optional(),
  phases: z.array(PhaseInput, { error: "must be an array of phases" })
    .max(MAX_PHASES, { error: `must hold at most ${MAX_PHASES} phases` })
    .describe(
      `Initial phases in order (positions 1, 2, …); at most ${MAX_PHASES}, unique names.`,
    )
    .optional(),
  resultMarkdown: markdownField("The result so far as markdown; at most 1 MiB of UTF-8.")
    .optional(),
  metadata: metadataField("Free-form JSON object (model, tokens, links …); at most 16 KiB. Default {}.")
    .optional(),
});

export const trackAiActivity = defineTool({
  name: "track_ai_activity",
  title: "Track AI activity",
  area: "ai_activities",
  module: "ai_activities",
  needsUser: true,
  variants: { A: Input },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description:
    "Records a piece of AI work with optional phases and result; report progress with update_ai_activity_phase. Returns the activity (get_ai_activity fields).",
  run: (ctx, input) => track(ctx.db, ctx.caller, input),
});

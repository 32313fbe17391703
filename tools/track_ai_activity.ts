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
  name: phaseNameField("The phase's name, 1-100 characters, unique within the activity. Required."),
  status: z.enum(PHASE_STATUSES).describe(`Phase status: ${PHASE_STATUSES.join(", ")}. Default pending.`)
    .optional(),
  summary: textField("What happened in the phase; up to 10000 characters. Optional.", { max: 10000 })
    .optional(),
  error: textField("Why the phase failed; up to 10000 characters. Optional.", { max: 10000 }).optional(),
  startedAt: instantField("When the phase started (ISO 8601). Default now unless the status is pending.")
    .optional(),
  finishedAt: instantField("When it ended (ISO 8601). Default now for completed, failed or skipped.")
    .optional(),
});

const Input = z.strictObject({
  kind: z.enum(AI_ACTIVITY_KINDS).describe(`What kind of work: ${AI_ACTIVITY_KINDS.join(", ")}. Required.`),
  title: textField("Short title, 1-200 characters. Required.", { min: 1, max: 200 }),
  source: z.enum(AI_ACTIVITY_SOURCES).describe(
    `Where the work was started: ${AI_ACTIVITY_SOURCES.join(", ")}. Default mcp.`,
  ).optional(),
  description: textField("What the work is about; up to 10000 characters. Optional.", { max: 10000 })
    .optional(),
  agentName: textField("Name of the agent or model doing it; up to 200 characters. Optional.", { max: 200 })
    .optional(),
  status: z.enum(AI_ACTIVITY_STATUSES).describe(
    `Status: ${AI_ACTIVITY_STATUSES.join(", ")}. Default running.`,
  ).optional(),
  companyId: uuidField(
    "The company the work is for (UUID). Default: the key's only company when it is limited to one, else none.",
  ).optional(),
  aiTaskId: textField("The agent platform's own id of the task; up to 200 characters. Optional.", {
    max: 200,
  })
    .optional(),
  phases: z.array(PhaseInput, { error: "must be an array of phases" })
    .max(MAX_PHASES, { error: `must hold at most ${MAX_PHASES} phases` })
    .describe(
      `Initial phases in order (positions 1, 2, …); at most ${MAX_PHASES}, unique names. Default none.`,
    )
    .optional(),
  resultMarkdown: markdownField("The result so far as markdown; at most 1 MiB of UTF-8. Default empty.")
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
    "Records a piece of AI work by the key's user, with optional initial phases and result. Returns " +
    "the activity as get_ai_activity does: every field, phases in order, resultMarkdown, metadata and linked " +
    "documents. Report progress afterwards with update_ai_activity_phase.",
  run: (ctx, input) => track(ctx.db, ctx.caller, input),
});

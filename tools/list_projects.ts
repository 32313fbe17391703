// MCP tool list_projects: the caller's projects as summaries, optionally by status.
import { z } from "zod";
import { limitField, offsetField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listProjects as list, PROJECT_STATUSES } from "../lib/workspace/projects.ts";

const Input = z.strictObject({
  status: z.enum(PROJECT_STATUSES).optional().describe(
    "Only projects with this status: in_progress, completed or invoiced. Default: every status.",
  ),
  limit: limitField(100, 500),
  offset: offsetField(),
});

export const listProjects = defineTool({
  name: "list_projects",
  area: "projects",
  module: "projects",
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Lists the projects the key may see, newest first. Returns a JSON array of summaries: id, name, " +
    "status, budget, currency, clientId, clientName, companyId, startDate, endDate, estimatedHours, taskPrefix.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});

// MCP tool update_project_status: moves a project to in_progress, completed or invoiced.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { PROJECT_STATUSES, setProjectStatus } from "../lib/workspace/projects.ts";

const Input = z.strictObject({
  projectId: uuidField("The project's id (UUID). Required."),
  status: z.enum(PROJECT_STATUSES).describe("The new status: in_progress, completed or invoiced. Required."),
});

export const updateProjectStatus = defineTool({
  name: "update_project_status",
  title: "Set project status",
  area: "projects",
  module: "projects",
  needsUser: false,
  variants: { A: Input, B: Input },
  // Reversible: the status can be set back, nothing else changes.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Sets a project's status to in_progress, completed or invoiced. Returns the updated project as " +
    "a JSON object with every field.",
  run: (ctx, input) => setProjectStatus(ctx.db, ctx.caller, input.projectId, input.status),
});

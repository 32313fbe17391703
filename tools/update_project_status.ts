// MCP tool update_project_status: moves a project to in_progress, completed or invoiced.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { PROJECT_STATUSES, setProjectStatus } from "../lib/workspace/projects.ts";

const Input = z.strictObject({
  projectId: uuidField("The project's id."),
  status: z.enum(PROJECT_STATUSES).describe("The new status."),
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
  description: "Sets a project's status. Returns the updated project.",
  run: (ctx, input) => setProjectStatus(ctx.db, ctx.caller, input.projectId, input.status),
});

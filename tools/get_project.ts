// MCP tool get_project: one project with every field.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { getProject as get } from "../lib/workspace/projects.ts";

const Input = z.strictObject({
  projectId: uuidField("The project's id, as returned by list_projects."),
});

export const getProject = defineTool({
  name: "get_project",
  title: "Get project",
  area: "projects",
  module: "projects",
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: "Gets one project by id. Returns the project with description, notes and timestamps.",
  run: (ctx, input) => get(ctx.db, ctx.caller, input.projectId),
});

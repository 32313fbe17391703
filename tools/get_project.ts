// MCP tool get_project: one project with every field.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { getProject as get } from "../lib/workspace/projects.ts";

const Input = z.strictObject({
  projectId: uuidField("The project's id (UUID), as returned by list_projects. Required."),
});

export const getProject = defineTool({
  name: "get_project",
  title: "Get project",
  area: "projects",
  module: "projects",
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Gets one project. Returns the project as a JSON object: the list_projects summary fields plus " +
    "description, notes, offerId, createdBy, createdAt and updatedAt. not_found when the id is unknown or " +
    "outside the key's companies.",
  run: (ctx, input) => get(ctx.db, ctx.caller, input.projectId),
});

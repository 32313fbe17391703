// MCP tool list_members: the workspace's people the caller may see, with the user ids other tools ask for.
import { z } from "zod";
import { limitField, offsetField, textField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listMembers as list } from "../lib/workspace/members.ts";

const Input = z.strictObject({
  query: textField("Part of a name or email.", { min: 1, max: 200 }).optional(),
  limit: limitField(50, 200),
  offset: offsetField(),
});

export const listMembers = defineTool({
  name: "list_members",
  title: "List members",
  area: "members",
  module: null,
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: "Lists workspace members by name with the userId other tools take. Returns a page of members.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});

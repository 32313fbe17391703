// MCP tool list_projects: the caller's projects as summaries, optionally by status.
import { z } from "zod";
import { limitField, offsetField } from "../lib/mcp/fields.ts";
import { toolContent } from "../lib/mcp/errors.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listProjects as list, PROJECT_STATUSES } from "../lib/workspace/projects.ts";

const Input = z.strictObject({
  status: z.enum(PROJECT_STATUSES).optional().describe(
    "Only projects with this status.",
  ),
  limit: limitField(100, 500),
  offset: offsetField(),
});

export const listProjects = defineTool({
  name: "list_projects",
  title: "List projects",
  area: "projects",
  module: "projects",
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Lists projects, newest first. Returns a JSON array of summaries; when cut, a second text block gives the next offset.",
  // The seed fixes the answer as a JSON array, so the page's facts cannot sit beside the items: the array stays
  // the first block, alone and unchanged, and a cut list adds a plain-text second block.
  run: async (ctx, input) => {
    const page = await list(ctx.db, ctx.caller, input);
    const blocks: { type: "text"; text: string }[] = [{ type: "text", text: JSON.stringify(page.items) }];
    if (page.hasMore) {
      blocks.push({
        type: "text",
        text: `More projects: ${page.items.length} of ${page.total} shown (offset ${page.offset}). Call ` +
          `list_projects again with offset ${page.nextOffset} for the next page.`,
      });
    }
    return toolContent(blocks);
  },
});

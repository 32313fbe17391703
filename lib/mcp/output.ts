// Output schemas (MCP 2025-06-18 `outputSchema`) shared by tools: the page every list tool answers.
import { z } from "zod";

/**
 * The page shape of lib/workspace/page.ts: `total` is null, with `totalAtLeast`, when the matches run more than
 * TOTAL_COUNT_WINDOW past the page. Items are objects whose fields the tool's description names; spelling every
 * field out would cost more tokens in tools/list than the schema saves.
 */
export function pageOutput<E extends z.ZodRawShape = Record<never, never>>(extra?: E) {
  return z.object({
    items: z.array(z.looseObject({})),
    // null (with totalAtLeast) when the count stopped at its window (lib/workspace/page.ts)
    total: z.int().nullable(),
    totalAtLeast: z.int().optional(),
    // the page also echoes `limit` and `offset`; a client knows them from its request, so they cost no tokens here
    hasMore: z.boolean(),
    nextOffset: z.int().nullable(),
    ...(extra ?? ({} as E)),
  });
}

/** The page of the lists with keyset paging (contacts, tasks, activities): nextCursor next to nextOffset. */
export function cursorPageOutput() {
  return pageOutput({ nextCursor: z.string().nullable() });
}

/**
 * `full` of the list tools whose records have no get_ tool: rows carry every field instead of the summary a
 * model needs to pick a record (docs/mcp.md, "Compact list rows").
 */
export function fullField() {
  return z.boolean({ error: "must be true or false" }).default(false)
    .describe("true: every field of each record instead of a summary.");
}

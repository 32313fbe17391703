// Output schemas (MCP 2025-06-18 `outputSchema`) shared by tools: the page every list tool answers.
import { z } from "zod";

/**
 * The page shape of lib/workspace/page.ts. Items are objects whose fields the tool's description and get_ tool
 * name; spelling every field out would cost more tokens in tools/list than the schema saves.
 */
export function pageOutput<E extends z.ZodRawShape = Record<never, never>>(extra?: E) {
  return z.object({
    items: z.array(z.looseObject({})),
    // null (with totalAtLeast, left undeclared: extra fields are allowed) when the count stopped at its window
    total: z.int().nullable(),
    limit: z.int(),
    offset: z.int(),
    hasMore: z.boolean(),
    nextOffset: z.int().nullable(),
    ...(extra ?? ({} as E)),
  });
}

// One list answer for every list tool: a page of items, how many match, and how to ask for the rest.
import type { Db } from "../db/client.ts";
import type { Fragment } from "postgres";

/** A page of a list: `items` from `offset`, at most `limit`; `nextOffset` is the offset of the next page. */
export interface Page<T> {
  items: T[];
  /**
   * every match of the filter, not only this page — exact while it stays cheap to count; null when the matches
   * run more than TOTAL_COUNT_WINDOW past this page (then `totalAtLeast` says how many were counted)
   */
  total: number | null;
  /** present when `total` is null: at least this many match */
  totalAtLeast?: number;
  limit: number;
  offset: number;
  /** more matches follow this page */
  hasMore: boolean;
  /** the offset to ask for next (same filter, same limit); null when this is the last page */
  nextOffset: number | null;
}

/** Paging as the list tools take it: a limit (each tool has its default and ceiling) and an offset. */
export interface Paging {
  limit: number;
  offset?: number;
}

/**
 * How far past the end of the page a list counts its matches exactly. A count over every match grows with the
 * workspace (about 1 s at 100,000 tasks); one that stops here costs the same at any size, and still tells
 * whether there is a next page.
 */
export const TOTAL_COUNT_WINDOW = 1000;

/** The rows a list counts at most for a page: the page itself, and the window after it. */
export function countLimit(paging: Paging): number {
  return (paging.offset ?? 0) + paging.limit + TOTAL_COUNT_WINDOW;
}

/**
 * Counts the rows of `from` (a fragment such as `contacts where …`) up to `countLimit(paging)`: pass the result
 * and the same paging to `pageOf`, which turns a count that reached the limit into `totalAtLeast`.
 */
export async function countUpTo(db: Db, from: Fragment, paging: Paging): Promise<number> {
  const [{ n }] = await db<{ n: number }[]>`
    select count(*)::int as n from (select 1 from ${from} limit ${countLimit(paging)}) counted`;
  return n;
}

/**
 * Builds the page answer from one page of rows and the count of the same filter — exact, or from `countUpTo`
 * with `capped` set, where a count that reached the limit means "at least that many".
 */
export function pageOf<T>(items: T[], total: number, paging: Paging, capped = false): Page<T> {
  const offset = paging.offset ?? 0;
  const hasMore = offset + items.length < total;
  const atLeast = capped && total >= countLimit(paging);
  return {
    items,
    total: atLeast ? null : total,
    ...(atLeast ? { totalAtLeast: total } : {}),
    limit: paging.limit,
    offset,
    hasMore,
    nextOffset: hasMore ? offset + items.length : null,
  };
}

/** The description tail every list tool states, so the shape is described once. */
export const PAGE_SHAPE =
  "Returns { items, total, limit, offset, hasMore, nextOffset }: total counts every match (null with " +
  "totalAtLeast when there are over 1,000 more than this page); when hasMore is true, call again with " +
  "offset = nextOffset (same filters) for the next page.";

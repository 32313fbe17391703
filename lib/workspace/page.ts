// One list answer for every list tool: a page of items, how many match, and how to ask for the rest.

/** A page of a list: `items` from `offset`, at most `limit`; `nextOffset` is the offset of the next page. */
export interface Page<T> {
  items: T[];
  /** every match of the filter, not only this page */
  total: number;
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

/** Builds the page answer from one page of rows and the total count of the same filter. */
export function pageOf<T>(items: T[], total: number, paging: Paging): Page<T> {
  const offset = paging.offset ?? 0;
  const hasMore = offset + items.length < total;
  return {
    items,
    total,
    limit: paging.limit,
    offset,
    hasMore,
    nextOffset: hasMore ? offset + items.length : null,
  };
}

/** The description tail every list tool states, so the shape is described once. */
export const PAGE_SHAPE =
  "Returns { items, total, limit, offset, hasMore, nextOffset }: total counts every match; when hasMore is " +
  "true, call again with offset = nextOffset (same filters) for the next page.";

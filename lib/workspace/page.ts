// One list answer for every list tool: a page of items, how many match, and how to ask for the rest.
import type { Db } from "../db/client.ts";
import type { Fragment } from "postgres";
import { createHash } from "node:crypto";
import { invalidInput, isUuid } from "../errors.ts";

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
  /**
   * the lists with keyset paging (contacts, tasks, activities): the cursor of the next page (same filter),
   * null on the last page
   */
  nextCursor?: string | null;
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

// ---------------------------------------------------------------------------------------------------------
// Keyset paging: a cursor names the last row of a page by its ORDER BY key and id, so the next page starts
// with a row-value comparison on the list's ORDER BY index instead of reading and discarding `offset` rows.

/** Paging of the lists with keysets: an offset, or the cursor of the previous page (not both). */
export interface CursorPaging extends Paging {
  cursor?: string;
}

/** The longest cursor accepted: room for a text sort key of the longest sortable field (500 characters). */
export const CURSOR_MAX_LENGTH = 4096;

/**
 * How a sort key travels in a cursor, as text that SQL turns back into the exact value: an instant as integer
 * microseconds since the epoch (full precision; an ISO string of milliseconds would skip or repeat rows), a
 * date as days since 1970-01-01, text as itself. Digit counts stay inside PostgreSQL's ranges, so no cursor can
 * make the query fail.
 */
export type KeyKind = "timestamptz" | "date" | "text";
const KEY_SHAPES: Record<Exclude<KeyKind, "text">, RegExp> = {
  timestamptz: /^-?\d{1,17}$/,
  date: /^-?\d{1,6}$/,
};

/** The sort key of a row as the text a cursor carries (select it as "cursorKey" beside the row). */
export function cursorKeyColumn(db: Db, kind: KeyKind, expr: Fragment): Fragment {
  if (kind === "timestamptz") return db`(extract(epoch from ${expr}) * 1000000)::bigint::text`;
  if (kind === "date") return db`(${expr} - date '1970-01-01')::text`;
  return db`(${expr})::text`;
}

/** A cursor's key as an SQL value of the column's type (see cursorKeyColumn). */
export function cursorKeyValue(db: Db, kind: KeyKind, key: string): Fragment {
  if (kind === "timestamptz") return db`(timestamptz 'epoch' + ${key}::bigint * interval '1 microsecond')`;
  if (kind === "date") return db`(date '1970-01-01' + ${key}::int)`;
  return db`${key}::text`;
}

/** Where a cursor points: after the row with this sort key (null for an empty value) and id. */
export interface CursorPosition {
  key: string | null;
  id: string;
}

/**
 * A short fingerprint of what a cursor is valid for: the list and every filter and sort value that decides
 * which rows match and in what order (not limit or the row shape). A cursor is a position in one ordering; in
 * another it would skip or repeat rows silently, so it is refused instead.
 */
export function cursorFingerprint(list: string, filter: Record<string, unknown>): string {
  const given = Object.keys(filter).filter((k) => filter[k] !== undefined && filter[k] !== "").sort();
  const text = JSON.stringify([list, given.map((k) => [k, filter[k]])]);
  return createHash("sha256").update(text).digest("base64url").slice(0, 11);
}

const CURSOR_PREFIX = "k1.";

export function encodeCursor(fingerprint: string, position: CursorPosition): string {
  const json = JSON.stringify([fingerprint, position.key, position.id]);
  return CURSOR_PREFIX + btoa(String.fromCodePoint(...new TextEncoder().encode(json)))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * The position a cursor names, checked against the fingerprint of this call's filters and the key's kind:
 * anything else is `invalid_input: cursor: …`. The position is only a starting point inside the caller's own
 * WHERE (workspace, company scope, filters), so even a forged one reaches no other rows.
 */
export function decodeCursor(
  cursor: string,
  paging: CursorPaging,
  fingerprint: string,
  kind: KeyKind,
  nullable: boolean,
): CursorPosition {
  if ((paging.offset ?? 0) !== 0) throw invalidInput("cursor: cannot be combined with a non-zero offset");
  if (cursor.length > CURSOR_MAX_LENGTH) {
    throw invalidInput(`cursor: too long (at most ${CURSOR_MAX_LENGTH} characters)`);
  }
  const malformed = () =>
    invalidInput("cursor: not a cursor of this list; pass nextCursor unchanged, or page without cursor");
  if (!cursor.startsWith(CURSOR_PREFIX) || !/^[A-Za-z0-9_-]+$/.test(cursor.slice(CURSOR_PREFIX.length))) {
    throw malformed();
  }
  let parsed: unknown;
  try {
    const b64 = cursor.slice(CURSOR_PREFIX.length).replaceAll("-", "+").replaceAll("_", "/");
    const bytes = Uint8Array.from(atob(b64), (c) => c.codePointAt(0)!);
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw malformed();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) throw malformed();
  const [fp, key, id] = parsed;
  if (typeof fp !== "string" || typeof id !== "string" || !isUuid(id)) throw malformed();
  if (
    key === null ? !nullable : typeof key !== "string" || (kind !== "text" && !KEY_SHAPES[kind].test(key))
  ) {
    throw malformed();
  }
  if (fp !== fingerprint) {
    throw invalidInput(
      "cursor: made for other filters or another sort; repeat the filters and sort of the call that returned it",
    );
  }
  return { key, id: id.toLowerCase() };
}

/**
 * The condition "after this position" for `ORDER BY key <dir> nulls last, id <dir>`: a row-value comparison,
 * which a btree index on (…, key <dir>, id <dir>) turns into the start of its scan. An empty key sorts last, so
 * after a non-empty key come the greater ones and every empty one; after an empty key only empty keys with a
 * greater id.
 */
export function afterPosition(
  db: Db,
  kind: KeyKind,
  key: Fragment,
  id: Fragment,
  position: CursorPosition,
  dir: "asc" | "desc",
  nullable: boolean,
): Fragment {
  const pid = db`${position.id}::uuid`;
  if (position.key === null) {
    return dir === "desc" ? db`(${key} is null and ${id} < ${pid})` : db`(${key} is null and ${id} > ${pid})`;
  }
  const v = cursorKeyValue(db, kind, position.key);
  const cmp = dir === "desc" ? db`(${key}, ${id}) < (${v}, ${pid})` : db`(${key}, ${id}) > (${v}, ${pid})`;
  return nullable ? db`(${cmp} or ${key} is null)` : cmp;
}

/** A row as a keyset list reads it: the row and its sort key as cursor text. */
export type Keyed<T> = T & { cursorKey: string | null };

/**
 * The page answer of a keyset list. Without a cursor it is pageOf's (with nextCursor added). After a cursor
 * the rows before it are not counted — counting them is the cost keysets avoid — so `total` is null,
 * `totalAtLeast` counts the matches from the cursor on (up to `limit` + TOTAL_COUNT_WINDOW), `offset` is 0
 * (the page starts at the cursor) and `nextOffset` null: the next page is asked for with `nextCursor`.
 * `count` is countUpTo's over the same WHERE (after the cursor when there is one).
 */
export function keysetPageOf<T extends { id: string }>(
  rows: readonly Keyed<T>[],
  count: number,
  paging: CursorPaging,
  fingerprint: string,
): Page<T> {
  const items = rows.map(({ cursorKey: _, ...row }) => row as unknown as T);
  const last = rows.at(-1);
  if (paging.cursor === undefined) {
    const page = pageOf(items, count, paging, true);
    return { ...page, nextCursor: page.hasMore && last ? encodeCursor(fingerprint, keyOf(last)) : null };
  }
  const hasMore = items.length < count;
  return {
    items,
    total: null,
    totalAtLeast: count,
    limit: paging.limit,
    offset: 0,
    hasMore,
    nextOffset: null,
    nextCursor: hasMore && last ? encodeCursor(fingerprint, keyOf(last)) : null,
  };
}

function keyOf(row: Keyed<{ id: string }>): CursorPosition {
  return { key: row.cursorKey, id: row.id };
}

/** The description tail every list tool states, so the shape is described once. */
export const PAGE_SHAPE =
  "Returns { items, total, limit, offset, hasMore, nextOffset }: total counts every match (null with " +
  "totalAtLeast when there are over 1,000 more than this page); when hasMore is true, call again with " +
  "offset = nextOffset (same filters) for the next page.";

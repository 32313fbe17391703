// The valid choices an answer names beside an unknown id, when they are few (issue 25: "errors that name an
// unknown id list the valid choices when they are few").
import type { Db } from "../db/client.ts";
import type { Fragment } from "postgres";

/** How many choices an answer lists; with more, it names the tool that lists them instead. */
export const LISTED_CHOICES = 10;

/**
 * `; the valid ones: <id> ("Name"), …` for at most LISTED_CHOICES rows of `from` (a fragment selecting `id` and
 * `name` with the caller's own filters, ordered), `; none exists` for none, or `; <lister> lists them` for more.
 */
export async function choicesSuffix(db: Db, from: Fragment, what: string, lister: string): Promise<string> {
  const rows = await db<{ id: string; name: string }[]>`${from} limit ${LISTED_CHOICES + 1}`;
  if (rows.length === 0) return `; there are no ${what}`;
  if (rows.length > LISTED_CHOICES) return `; ${lister} lists the ${what}`;
  return `; the ${what}: ${rows.map((r) => `${r.id} (${JSON.stringify(r.name)})`).join(", ")}`;
}

// Task references: a task named by its UUID or its display id (WEB-42), resolved to the UUID with the caller's
// visibility rules — the one place every tool's task id parameter goes through.
import type { Db } from "../db/client.ts";
import { isUuid, notFound } from "../errors.ts";
import { type ScopedCaller, scopeOf } from "./scope.ts";
import { visible } from "./task_rows.ts";

/** A display id: the project's task prefix (projects.task_prefix: a letter, then 1-9 letters or digits) and a number. */
export const DISPLAY_ID = /^([A-Za-z][A-Za-z0-9]{1,9})-0*([1-9]\d{0,8})$/;

/** A task reference as written: a UUID (lower-cased) or a display id (upper-cased, no leading zeros); else null. */
export function normaliseTaskRef(ref: string): string | null {
  const s = ref.trim();
  if (isUuid(s)) return s.toLowerCase();
  const m = s.match(DISPLAY_ID);
  return m ? `${m[1].toUpperCase()}-${m[2]}` : null;
}

/** Is this (normalised) reference a display id rather than a UUID? */
export function isDisplayId(ref: string): boolean {
  return !isUuid(ref) && DISPLAY_ID.test(ref);
}

/**
 * The UUID of the task a reference names. A UUID is returned as given: the tool's own lookup answers not_found
 * for an unknown or invisible one, as before. A display id is looked up among the tasks the caller may see (its
 * workspace, its companies, private tasks only of their creator and assignees), so a display id of a task the
 * caller cannot see is `not_found: <field>: no task WEB-42`, exactly like an unknown one. It cannot be ambiguous:
 * a prefix names at most one project of a workspace (unique index projects_task_prefix, upper case only) and a
 * number at most one task of a project (tasks_project_number), subtasks included.
 */
export async function resolveTaskRef(
  db: Db,
  caller: ScopedCaller,
  ref: string,
  field: string,
): Promise<string> {
  const m = isDisplayId(ref) ? ref.match(DISPLAY_ID) : null;
  if (!m) return ref;
  const s = scopeOf(caller);
  const [row] = await db<{ id: string }[]>`
    select t.id from tasks t
      join projects p on p.workspace_id = t.workspace_id and p.id = t.project_id
     where p.workspace_id = ${s.workspaceId} and p.task_prefix = ${m[1].toUpperCase()}
       and t.number = ${Number(m[2])}::int and ${visible(db, s, caller.userId ?? null, "t")}`;
  if (!row) throw notFound(`${field}: no task ${ref}`);
  return row.id;
}

/**
 * The input with the named fields' task references resolved to UUIDs (an array field element by element; null
 * and absent values stay as they are). Fields are resolved in order, so an error names the first bad one.
 */
export async function resolveTaskRefs<T extends Record<string, unknown>>(
  db: Db,
  caller: ScopedCaller,
  input: T,
  fields: readonly string[],
): Promise<T> {
  const out: Record<string, unknown> = { ...input };
  for (const field of fields) {
    const v = out[field];
    if (typeof v === "string") out[field] = await resolveTaskRef(db, caller, v, field);
    else if (Array.isArray(v)) {
      const ids: unknown[] = [];
      for (const [i, x] of v.entries()) {
        ids.push(typeof x === "string" ? await resolveTaskRef(db, caller, x, `${field}.${i}`) : x);
      }
      out[field] = ids;
    }
  }
  return out as T;
}

// Page form bodies with repeated fields kept (checkbox groups send one value per checked box).
import type { Context } from "hono";

export interface FormBody {
  /** fields sent once, as text; a field sent twice is left out (no form of ours repeats a single field) */
  one: Record<string, string>;
  /** every text value of `name`, in the order sent */
  all(name: string): string[];
}

export async function readForm(c: Context): Promise<FormBody> {
  const body = await c.req.parseBody({ all: true });
  const one: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === "string") one[k] = v;
  return {
    one,
    all(name) {
      const v = body[name];
      const values = Array.isArray(v) ? v : v === undefined ? [] : [v];
      return values.filter((x): x is string => typeof x === "string");
    },
  };
}

// The one form the authorization and sign-in pages post: every field bounded, read once per request.
import type { Context } from "hono";
import { z } from "zod";
import { readForm } from "../http/form.ts";

const str = (max: number) => z.string().max(max).optional();
const PageFormFields = z.object({
  csrf: str(200),
  ticket: str(8000),
  return_to: str(2000),
  user_id: str(100),
  email: str(320),
  password: str(1024),
  decision: str(10),
  place: str(100),
  // the approval request's note to the operators (its own limit, lib/oauth/approvals.ts, is checked on the page)
  note: str(2000),
  // consent's tool limits: the marker of a form that offered them, the read-only box (toolset boxes: `toolsets`)
  toolset_choice: str(10),
  read_only: str(10),
});

export type PageForm = z.infer<typeof PageFormFields> & {
  /** every checked `toolset` box of the consent form */
  toolsets: string[];
};

/** The posted page form; null when a field is too long or not text (answered like a failed CSRF check). */
export async function readPageForm(c: Context): Promise<PageForm | null> {
  const body = await readForm(c);
  const r = PageFormFields.safeParse(body.one);
  return r.success ? { ...r.data, toolsets: body.all("toolset").slice(0, 50) } : null;
}

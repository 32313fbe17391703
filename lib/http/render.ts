// The one helper that turns a Preact view into an HTML response: doctype, UTF-8, never cached.
//
// Export: `render(c, view, status = 200)`; e.g. `return render(c, <Layout title="Keys">…</Layout>)`.
import type { Context } from "hono";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";

export function render(c: Context, view: VNode, status = 200): Response {
  c.header("Cache-Control", "no-store");
  c.header("Content-Type", "text/html; charset=utf-8");
  return c.body("<!doctype html>" + renderToString(view), status as 200);
}

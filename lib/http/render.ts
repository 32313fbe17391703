// Renders a Preact view to a full HTML answer: doctype, UTF-8, no-store, and the page context (branding,
// request id) every view reads.
//
// Export: `render(c, view, status = 200)`; e.g. `return render(c, <Layout title="Keys">…</Layout>)`.
import type { Context } from "hono";
import { h, type VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { DEFAULT_BRANDING } from "../branding.ts";
import { PageContext } from "../../views/page_context.ts";
import type { AppEnv } from "./types.ts";

export function render(c: Context<AppEnv>, view: VNode, status = 200): Response {
  c.header("Cache-Control", "no-store");
  c.header("Content-Type", "text/html; charset=utf-8");
  const value = { branding: c.get("branding") ?? DEFAULT_BRANDING, requestId: c.get("requestId") };
  const page = h(PageContext.Provider, { value }, view);
  return c.body("<!doctype html>" + renderToString(page), status as 200);
}

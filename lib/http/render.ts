// Renders a Preact view to a full HTML answer: doctype, UTF-8, no-store, and the page context (branding,
// request id, language) every view reads.
//
// Exports: `renderPage(c, Page, props, status = 200)` — the way routes render a page, so the page's own body runs
// inside the render and can use hooks (`useI18n`); `render(c, vnode, status = 200)` for a tree built already.
import type { Context } from "hono";
import { type FunctionComponent, h, type VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { DEFAULT_BRANDING } from "../branding.ts";
import { i18nFor, localeOf } from "../i18n/mod.ts";
import { PageContext } from "../../views/page_context.ts";
import type { AppEnv } from "./types.ts";

export function render(c: Context<AppEnv>, view: VNode, status = 200): Response {
  c.header("Cache-Control", "no-store");
  c.header("Content-Type", "text/html; charset=utf-8");
  const locale = localeOf(c);
  c.header("Content-Language", locale);
  const value = {
    branding: c.get("branding") ?? DEFAULT_BRANDING,
    requestId: c.get("requestId"),
    i18n: i18nFor(locale),
  };
  const page = h(PageContext.Provider, { value }, view);
  return c.body("<!doctype html>" + renderToString(page), status as 200);
}

// deno-lint-ignore no-explicit-any
export function renderPage<P extends Record<string, any>>(
  c: Context<AppEnv>,
  Page: FunctionComponent<P>,
  props: P,
  status = 200,
): Response {
  return render(c, h(Page, props) as VNode, status);
}

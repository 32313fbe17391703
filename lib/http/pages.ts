// Browser pages are declared once, by being routes of a page sub-app: its errors are answered as pages (a database
// outage as an HTML 503 page), while every other surface answers JSON — no list of page paths elsewhere.
import { Hono } from "hono";
import type { Context } from "hono";
import type { Logger } from "../log.ts";
import { ErrorPage } from "../../views/error_page.tsx";
import { onError } from "./middleware.ts";
import { renderPage } from "./render.ts";
import type { AppEnv } from "./types.ts";

/** A database outage on a page: the person sees a page saying to wait (Retry-After and no-store are set). */
function outagePage(c: Context<AppEnv>): Response {
  return renderPage(c, ErrorPage, {
    title: (t) => t.common.unavailableTitle,
    message: (t) => t.common.unavailableMessage("Portico"),
    code: "temporarily_unavailable",
  }, 503);
}

/**
 * A sub-app for browser pages: mount it with `app.route("/", pages)`. Hono wraps each of its routes in its own
 * error handler, so an error on a page is answered here and the rest of the app is untouched (no per-request cost
 * outside pages).
 */
export function createPageApp(log: Logger): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(onError(log, outagePage));
  return app;
}

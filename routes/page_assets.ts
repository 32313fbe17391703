// The pages' own assets besides the stylesheet: the operator's logo and accent stylesheet, and the one small
// script (copy buttons); plus the middleware that hands the branding to every rendered page.
import { Hono, type MiddlewareHandler } from "hono";
import { BRAND_CSS_PATH, type Branding, LOGO_PATH } from "../lib/branding.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { PAGES_SCRIPT, PAGES_SCRIPT_PATH } from "../views/script.ts";

// The paths are fixed and the pages link them with a content hash (`?v=`), so a year of caching is safe.
const LONG_CACHE = "public, max-age=31536000, immutable";
// An SVG opened directly is a document: no script runs in it, no request leaves it, and it is sandboxed.
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox; frame-ancestors 'none'";

/** Sets `branding` for every request, so render() (and the error handler's pages) can show it. */
export function brandingContext(branding: Branding): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("branding", branding);
    await next();
  };
}

export function createPageAssetRoutes(branding: Branding): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get(LOGO_PATH, (c) => {
    const logo = branding.logo;
    if (!logo) return c.json({ error: "not_found", error_description: "no BRAND_LOGO is configured" }, 404);
    c.header("Content-Type", logo.type);
    c.header("Cache-Control", LONG_CACHE);
    if (logo.type === "image/svg+xml") c.header("Content-Security-Policy", SVG_CSP);
    return c.body(logo.body as Uint8Array<ArrayBuffer>);
  });

  app.get(BRAND_CSS_PATH, (c) => {
    c.header("Content-Type", "text/css; charset=utf-8");
    c.header("Cache-Control", LONG_CACHE);
    return c.body(branding.css?.body ?? "");
  });

  app.get(PAGES_SCRIPT_PATH, (c) => {
    c.header("Content-Type", "text/javascript; charset=utf-8");
    c.header("Cache-Control", "public, max-age=3600");
    return c.body(PAGES_SCRIPT);
  });

  return app;
}

// The pages' own assets: the stylesheet, the operator's logo and accent stylesheet, the icon, and the one small
// script (copy buttons); plus the middleware that hands the branding to every rendered page.
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { BRAND_CSS_PATH, type Branding, FAVICON_ICO_PATH, FAVICON_PATH, LOGO_PATH } from "../lib/branding.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { PAGES_SCRIPT, PAGES_SCRIPT_PATH } from "../views/script.ts";
import { STYLESHEET, STYLESHEET_PATH } from "../views/style.ts";

// The paths are fixed and the pages link them with a content hash (`?v=`), so a year of caching is safe.
const LONG_CACHE = "public, max-age=31536000, immutable";
// A path nobody links with a hash (like the stylesheet and the script): an hour, so a new accent shows soon.
const SHORT_CACHE = "public, max-age=3600";
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

  app.get(STYLESHEET_PATH, (c) => {
    c.header("Cache-Control", SHORT_CACHE);
    c.header("Content-Type", "text/css; charset=utf-8");
    return c.body(STYLESHEET);
  });

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
    c.header("Cache-Control", SHORT_CACHE);
    return c.body(PAGES_SCRIPT);
  });

  // The icon every page links (views/layout.tsx), and the same icon where browsers look without a link, so
  // neither is a 404 in every page load's log. An SVG, sandboxed like an SVG logo.
  const icon = (cache: string) => (c: Context<AppEnv>) => {
    c.header("Content-Type", "image/svg+xml");
    c.header("Cache-Control", cache);
    c.header("Content-Security-Policy", SVG_CSP);
    return c.body(branding.favicon.body);
  };
  app.get(FAVICON_PATH, icon(LONG_CACHE));
  app.get(FAVICON_ICO_PATH, icon(SHORT_CACHE));

  return app;
}

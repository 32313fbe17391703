// The page frame every view uses: title, our stylesheets, the operator's name and logo, a centred card.
//
// Export: `Layout({ title, children, wide?, script? })`. Branding, the request id and the language (`<html lang>`)
// come from PageContext
// (set by lib/http/render.ts), so no route has to pass them.
import type { ComponentChildren } from "preact";
import { useContext } from "preact/hooks";
import { BRAND_CSS_PATH, FAVICON_PATH, LOGO_PATH } from "../lib/branding.ts";
import { PageContext } from "./page_context.ts";
import { PAGES_SCRIPT_PATH } from "./script.ts";
import { STYLESHEET_PATH } from "./style.ts";

export interface LayoutProps {
  title: string;
  children: ComponentChildren;
  /** a wider column for lists (connected apps, API keys) */
  wide?: boolean;
  /** load /assets/pages.js (copy buttons); the route must send SCRIPT_CSP */
  script?: boolean;
}

export function Layout({ title, children, wide, script }: LayoutProps) {
  const { branding, i18n } = useContext(PageContext);
  return (
    <html lang={i18n.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{`${title} · ${branding.name}`}</title>
        <link rel="icon" type="image/svg+xml" href={`${FAVICON_PATH}?v=${branding.favicon.version}`} />
        <link rel="stylesheet" href={STYLESHEET_PATH} />
        {branding.css && <link rel="stylesheet" href={`${BRAND_CSS_PATH}?v=${branding.css.version}`} />}
        {script && <script src={PAGES_SCRIPT_PATH} defer></script>}
      </head>
      <body>
        <main class={wide ? "wide" : undefined}>
          <header class="brand">
            {branding.logo && <img src={`${LOGO_PATH}?v=${branding.logo.version}`} alt="" />}
            <span>{branding.name}</span>
          </header>
          <div class="card">{children}</div>
        </main>
      </body>
    </html>
  );
}

/** The operator's product name (BRAND_NAME), for texts inside a page. */
export function BrandName() {
  return <>{useContext(PageContext).branding.name}</>;
}

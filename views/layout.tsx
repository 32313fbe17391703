// The page frame every view uses: title, our stylesheet, a centred card.
//
// Export: `Layout({ title, children, wide? })`.
import type { ComponentChildren } from "preact";
import { STYLESHEET_PATH } from "./style.ts";

export interface LayoutProps {
  title: string;
  children: ComponentChildren;
  /** a wider column for lists (connected apps, API keys) */
  wide?: boolean;
}

export function Layout({ title, children, wide }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{`${title} · Portico`}</title>
        <link rel="stylesheet" href={STYLESHEET_PATH} />
      </head>
      <body>
        <main class={wide ? "wide" : undefined}>
          <div class="brand">Portico</div>
          <div class="card">{children}</div>
        </main>
      </body>
    </html>
  );
}

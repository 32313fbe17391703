/// <reference lib="dom" />
// A stand-in view for developing the glue before a view exists: shows the tool result's keys.
import { render } from "preact";
import type { ViewContext } from "../../views/apps/view_context.ts";

export function mount(root: HTMLElement, ctx: ViewContext): void {
  render(
    <section data-placeholder data-theme={ctx.theme}>
      <h1>Portico view</h1>
      <p>{ctx.result ? Object.keys(ctx.result).join(", ") : "waiting for a result"}</p>
    </section>,
    root,
  );
}

/**
 * The seam between the MCP Apps views (views/apps/<name>.tsx) and the host glue (lib/mcp/apps*.ts).
 * Each view exports `mount(root: HTMLElement, ctx: ViewContext): void`; the glue calls mount again with a new
 * context when the host sends a new result.
 *
 * Bundling (for the glue): deno.json's `"jsx": "precompile"` yields server-only templates that render NOTHING in a
 * browser, and `deno bundle` ignores per-file JSX pragmas. Bundle the views with a config whose compilerOptions say
 * `"jsx": "react-jsx", "jsxImportSource": "preact"` (imports: preact, preact/), e.g.
 * `deno bundle --config <that>.json --platform browser --minify -o out.js views/apps/plan.tsx`
 * (tests/helpers/app_views.ts does exactly this for the views' own tests). Each view ships its own CSS in a
 * <style> element rendered by Preact (text, not HTML), so a bundle is one JS file.
 */

/** A tool result as the host hands it back (CallToolResult, the parts the views read). */
export interface ViewToolResult {
  isError?: boolean;
  structuredContent?: unknown;
  content: Array<{ type: string; text?: string }>;
}

export interface ViewContext {
  /** the tool's input arguments and its result's structuredContent, as the host delivered them */
  input: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  /** calls a tool of this server through the host (the person's own credential); resolves to the result */
  callTool(name: string, args: Record<string, unknown>): Promise<ViewToolResult>;
  /** light or dark, from the host's theme */
  theme: "light" | "dark";
  /** the tool's name when the host said it (e.g. "time_log_summary" vs "list_time_logs"); optional */
  toolName?: string;
  /** the whole tool result when the host delivered it (isError, content text); optional */
  toolResult?: ViewToolResult | null;
  /** the host's locale (BCP 47), for date/number formatting; optional, defaults to the browser's */
  locale?: string;
}

/** Every view module's shape. */
export type MountView = (root: HTMLElement, ctx: ViewContext) => void;

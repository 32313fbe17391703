// What the three MCP Apps views share: the theme's CSS variables, the base stylesheet, reading a tool result's
// text, the alert for refusals, and mount() plumbing. DOM only through Preact; CSS is a constant string rendered
// as the text of a <style> element.
import type { ComponentChildren, FunctionComponent } from "preact";
import { render } from "preact";
import type { ViewContext, ViewToolResult } from "./view_context.ts";

export const BASE_CSS = `
.pv { --fg: #1d2125; --muted: #5b636b; --bg: #fff; --card: #f5f6f8; --line: #c9ced4; --accent: #2557d6;
  --accent-fg: #fff; --danger: #b3261e; --warn: #8a5a00; --ok: #1e7a3c; --ghost: #e6ecfb; --solid: #2557d6;
  --today: #b3261e; color-scheme: light; }
.pv[data-theme=dark] { --fg: #e7e9ec; --muted: #a3abb3; --bg: #15181b; --card: #1f2327; --line: #4a5159;
  --accent: #7aa2ff; --accent-fg: #0d1117; --danger: #ff8a80; --warn: #ffcc66; --ok: #7bd88f; --ghost: #25304a;
  --solid: #7aa2ff; --today: #ff8a80; color-scheme: dark; }
.pv { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  background: var(--bg); padding: .75rem; min-width: 0; }
.pv *, .pv *::before, .pv *::after { box-sizing: border-box; }
.pv h1 { font-size: 1.1rem; margin: 0 0 .25rem; }
.pv h2 { font-size: 1rem; margin: 1rem 0 .4rem; }
.pv p { margin: 0 0 .5rem; }
.pv .muted { color: var(--muted); }
.pv button { font: inherit; font-size: .85rem; padding: .3rem .6rem; min-height: 24px; min-width: 24px;
  border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-fg);
  cursor: pointer; }
.pv button.secondary { background: transparent; color: var(--accent); }
.pv button:disabled { opacity: .6; cursor: default; }
.pv button:focus-visible, .pv [tabindex]:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.pv .alert { border: 1px solid var(--danger); color: var(--danger); border-radius: 8px; padding: .5rem .75rem;
  margin: .5rem 0; background: var(--card); }
.pv .status { border: 1px solid var(--ok); color: var(--ok); border-radius: 8px; padding: .5rem .75rem;
  margin: .5rem 0; background: var(--card); }
.pv .scroll { overflow-x: auto; max-width: 100%; }
.pv table { border-collapse: collapse; width: 100%; }
.pv th, .pv td { padding: .3rem .5rem; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
.pv td.num, .pv th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.pv .tag { display: inline-block; font-size: .75rem; padding: 0 .4rem; border-radius: 999px;
  border: 1px solid currentColor; white-space: nowrap; }
.pv .tag.warn { color: var(--warn); }
.pv .tag.danger { color: var(--danger); }
.pv .tag.ok { color: var(--ok); }
`;

/**
 * The text of a tool result's text parts (what a refusal says), or, for an answer that asks the person first
 * (2026-07-28 `input_required`: `inputRequests` of elicitations), the messages it asks with.
 */
export function resultText(r: ViewToolResult | null | undefined): string {
  if (!r) return "";
  const text = (Array.isArray(r.content) ? r.content : [])
    .filter((c) => c && c.type === "text" && typeof c.text === "string").map((c) => c.text).join("\n").trim();
  if (text) return text;
  const asks = (r as { inputRequests?: unknown }).inputRequests;
  if (!asks || typeof asks !== "object") return "";
  return Object.values(asks as Record<string, unknown>)
    .map((
      q,
    ) => (q && typeof q === "object" ? (q as { params?: { message?: unknown } }).params?.message : null))
    .filter((m): m is string => typeof m === "string").join("\n").trim();
}

/** An object's structuredContent, or null. */
export function structured(r: ViewToolResult): Record<string, unknown> | null {
  const s = r.structuredContent;
  return s && typeof s === "object" && !Array.isArray(s) ? s as Record<string, unknown> : null;
}

/**
 * A result that did not do what was asked: an error, or an answer that asks the person first (a confirmation or
 * input request: no structuredContent of the expected shape). The text to show, or null when it succeeded.
 */
export function refusalOf(
  r: ViewToolResult,
  succeeded: (s: Record<string, unknown>) => boolean,
): string | null {
  const s = structured(r);
  if (!r.isError && s && succeeded(s)) return null;
  return resultText(r) ||
    (r.isError ? "The server refused." : "The server asked for something the view can't give.");
}

/** What a thrown call (host gone, transport failure) says. */
export function thrownText(err: unknown): string {
  return `The call failed: ${err instanceof Error ? err.message : String(err)}`;
}

export const str = (v: unknown): string | null => typeof v === "string" ? v : null;
export const num = (v: unknown): number | null => typeof v === "number" && Number.isFinite(v) ? v : null;
export const arr = (v: unknown): unknown[] => Array.isArray(v) ? v : [];
export const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};

/** A region that may scroll sideways (wide tables on a phone), reachable by keyboard. */
export function Scroll({ label, children }: { label: string; children: ComponentChildren }) {
  return <div class="scroll" tabIndex={0} role="region" aria-label={label}>{children}</div>;
}

export function Alert({ text }: { text: string | null }) {
  return text ? <div class="alert" role="alert" data-alert>{text}</div> : null;
}

export function Status({ text }: { text: string | null }) {
  return text ? <div class="status" role="status" data-outcome>{text}</div> : null;
}

/** The view's frame: its theme, its stylesheet, its content. */
export function Frame(
  { theme, css, view, children }: { theme: string; css: string; view: string; children: ComponentChildren },
) {
  return (
    <div class="pv" data-theme={theme === "dark" ? "dark" : "light"} data-view={view}>
      <style>{BASE_CSS + css}</style>
      {children}
    </div>
  );
}

const mounted = new WeakMap<HTMLElement, { n: number; input: unknown; result: unknown }>();

/**
 * Renders `View` into `root`. Called again with a new result or input (the host sent one), it starts the view
 * afresh: a new key drops the state the previous result left (a plan moved, an invoice made). Called again with the
 * same ones (a theme or locale change), it re-renders and keeps that state.
 */
export function mountView(
  View: FunctionComponent<{ ctx: ViewContext }>,
  root: HTMLElement,
  ctx: ViewContext,
) {
  const last = mounted.get(root);
  const n = last && last.input === ctx.input && last.result === ctx.result ? last.n : (last?.n ?? 0) + 1;
  mounted.set(root, { n, input: ctx.input, result: ctx.result });
  render(<View key={n} ctx={ctx} />, root);
}

/** 2026-11-27 → "27 Nov" (UTC; the dates are calendar days). */
export function shortDate(day: string, locale?: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return day;
  return d.toLocaleDateString(locale, { day: "numeric", month: "short", timeZone: "UTC" });
}

/** 2026-11-27 → "Fri 27 Nov". */
export function dayLabel(day: string, locale?: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return day;
  return d.toLocaleDateString(locale, { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" });
}

/** Days since 1970-01-01 of YYYY-MM-DD (UTC), or NaN. */
export function dayNum(day: string): number {
  return Math.floor(Date.parse(`${day}T00:00:00Z`) / 86_400_000);
}

/** YYYY-MM-DD of a day number. */
export function dayStr(n: number): string {
  return new Date(n * 86_400_000).toISOString().slice(0, 10);
}

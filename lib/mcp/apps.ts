// MCP Apps (io.modelcontextprotocol/ui, 2026-01-26): the ui://portico/{plan,offer,week} views, the tools that name
// them, and the one rule of who sees any of it: only a host that declared the extension (docs/mcp.md "MCP Apps").
// For every other host tools/list, resources/list, initialize and server/discover stay byte-for-byte as before.
import { APP_HTML } from "./apps_bundles.generated.ts";
import type { Caller } from "./caller.ts";
import type { Registry, ToolView } from "./registry.ts";
import { ResourceNotFound } from "./resources_uri.ts";

/** What the views need of a request (lib/mcp/resources.ts ResourceContext satisfies it). */
interface ViewsContext {
  registry: Registry;
  caller: Caller;
}

export const APPS_EXTENSION = "io.modelcontextprotocol/ui";
export const APP_MIME = "text/html;profile=mcp-app";

type ViewName = keyof typeof APP_HTML;

/** Each view, the tools whose results it shows (the first is the one a reader needs), and what it is. */
const VIEWS: Record<ViewName, { tools: readonly string[]; title: string; description: string }> = {
  plan: {
    tools: ["gantt_plan"],
    title: "Plan",
    description: "gantt_plan as a chart: people as lanes, planned and auto-planned bars, today, late marks.",
  },
  offer: {
    tools: ["get_offer", "create_offer"],
    title: "Offer",
    description: "An offer: rows, VAT, totals and the payment plan, with invoicing of a tranche.",
  },
  week: {
    tools: ["list_time_logs", "time_log_summary"],
    title: "Week",
    description: "Time logs as a day-by-hour grid per project or category, with totals.",
  },
};

export const VIEW_NAMES = Object.keys(VIEWS) as ViewName[];

export function viewUri(name: ViewName): string {
  return `ui://portico/${name}`;
}

/** tool name → the view that shows its result */
const VIEW_OF_TOOL = new Map<string, ViewName>(
  VIEW_NAMES.flatMap((v) => VIEWS[v].tools.map((t) => [t, v] as [string, ViewName])),
);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Whether client capabilities declare the extension: `extensions["io.modelcontextprotocol/ui"]` is an object
 * and, when it lists mimeTypes, they include text/html;profile=mcp-app.
 */
export function declaresApps(capabilities: unknown): boolean {
  if (!isObject(capabilities) || !isObject(capabilities.extensions)) return false;
  const ui = capabilities.extensions[APPS_EXTENSION];
  if (!isObject(ui)) return false;
  return !Array.isArray(ui.mimeTypes) || ui.mimeTypes.includes(APP_MIME);
}

/** `?apps=1` (or true) on the /mcp URL: the 2025 revisions' way in (capabilities arrive only in initialize). */
export function appsQuery(value: string | undefined): boolean {
  return value === "1" || value === "true";
}

/** The server's capabilities with the extension declared (views have no settings of their own). */
export function withAppsCapability(capabilities: Record<string, unknown>): Record<string, unknown> {
  return { ...capabilities, extensions: { [APPS_EXTENSION]: {} } };
}

const appsLists = new WeakMap<ToolView, { listJson: string; listBytes: Uint8Array<ArrayBuffer> }>();

/**
 * The caller's tools/list with `_meta.ui.resourceUri` on the tools that have a view (computed once per view of
 * the registry). No tool is app-only: the views call tools the model has too (visibility stays the default).
 */
export function appsList(view: ToolView): { listJson: string; listBytes: Uint8Array<ArrayBuffer> } {
  let out = appsLists.get(view);
  if (!out) {
    const list = JSON.parse(view.listJson) as { tools: Array<Record<string, unknown>> };
    for (const tool of list.tools) {
      const v = VIEW_OF_TOOL.get(tool.name as string);
      if (v) tool._meta = { ui: { resourceUri: viewUri(v) } };
    }
    const listJson = JSON.stringify(list);
    out = { listJson, listBytes: new TextEncoder().encode(listJson) };
    appsLists.set(view, out);
  }
  return out;
}

/** A view is the caller's when one of its tools is in the caller's tools/list view (same rule as tools). */
function mayShow(ctx: ViewsContext, name: ViewName): boolean {
  const tools = ctx.registry.view(ctx.caller).tools;
  return VIEWS[name].tools.some((t) => tools.has(t));
}

const HTML_BYTES = Object.fromEntries(
  VIEW_NAMES.map((n) => [n, new TextEncoder().encode(APP_HTML[n]).length]),
) as Record<ViewName, number>;

/** The empty CSP of every view: no network, no frames (the extension's secure default, said explicitly). */
const UI_META = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } };

/** The views this caller may see, as resources/list entries (they come before every other resource). */
export function appResources(ctx: ViewsContext): Record<string, unknown>[] {
  return VIEW_NAMES.filter((n) => mayShow(ctx, n)).map((n) => ({
    uri: viewUri(n),
    name: `view-${n}`,
    title: VIEWS[n].title,
    description: VIEWS[n].description,
    mimeType: APP_MIME,
    size: HTML_BYTES[n],
    _meta: UI_META,
  }));
}

/** `uri` names a view (ui://portico/…) */
export function isAppUri(uri: unknown): uri is string {
  return typeof uri === "string" && uri.startsWith("ui://");
}

/** resources/read of a view: the same document for everyone who may see it; data arrives by postMessage. */
export function readAppResource(ctx: ViewsContext, uri: string): { contents: Record<string, unknown>[] } {
  const name = uri.slice("ui://portico/".length) as ViewName;
  if (!uri.startsWith("ui://portico/") || !VIEW_NAMES.includes(name) || !mayShow(ctx, name)) {
    throw new ResourceNotFound(uri);
  }
  return { contents: [{ uri, mimeType: APP_MIME, text: APP_HTML[name], _meta: UI_META }] };
}

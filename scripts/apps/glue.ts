/// <reference lib="dom" />
// The view side of the MCP Apps protocol (io.modelcontextprotocol/ui, 2026-01-26), bundled into every view: a
// minimal JSON-RPC 2.0 client over postMessage to the host (window.parent). It initializes (ui/initialize), takes
// the tool's input and result from the host's notifications, re-mounts the view on each, follows the host's theme,
// reports the view's size, and proxies the view's tools/call to the host, which calls Portico's /mcp with the
// person's own credential. The official App class (@modelcontextprotocol/ext-apps) does the same over the MCP SDK
// and zod: 34 kB plus about 500 kB of dependencies, against about 2 kB here (docs/mcp.md "MCP Apps").
import type { MountView, ViewContext, ViewToolResult } from "../../views/apps/view_context.ts";

/** The extension's protocol revision this glue speaks (ui/initialize's protocolVersion). */
export const APPS_PROTOCOL_VERSION = "2026-01-26";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Starts the view: connects to the host and mounts the view into #root on every input, result or theme. */
export function start(name: string, mount: MountView): void {
  const root = document.getElementById("root") as HTMLElement;
  const host = globalThis.parent;
  let nextId = 1;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const state: {
    input: Json | null;
    toolResult: ViewToolResult | null;
    theme: "light" | "dark";
    toolName?: string;
    locale?: string;
  } = { input: null, toolResult: null, theme: "light" };

  const post = (msg: Json) => host.postMessage({ jsonrpc: "2.0", ...msg }, "*");
  const request = (method: string, params: Json): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      post({ id, method, params });
    });

  function render() {
    const r = state.toolResult;
    const ctx: ViewContext = {
      input: state.input,
      result: r && isObject(r.structuredContent) ? r.structuredContent : null,
      toolResult: r,
      callTool: async (toolName, args) => {
        const out = await request("tools/call", { name: toolName, arguments: args });
        if (!isObject(out) || !Array.isArray(out.content)) throw new Error("the host sent no tool result");
        return out as unknown as ViewToolResult;
      },
      theme: state.theme,
      toolName: state.toolName,
      locale: state.locale,
    };
    mount(root, ctx);
  }

  function hostContext(c: unknown) {
    if (!isObject(c)) return;
    if (c.theme === "light" || c.theme === "dark") state.theme = c.theme;
    if (typeof c.locale === "string") state.locale = c.locale;
    const tool = isObject(c.toolInfo) && isObject(c.toolInfo.tool) ? c.toolInfo.tool : null;
    if (tool && typeof tool.name === "string") state.toolName = tool.name;
    const doc = document.documentElement;
    doc.dataset.theme = state.theme;
    doc.style.colorScheme = state.theme;
    // The host's design tokens (CSS custom properties only; values are set as property values, never parsed).
    const vars = isObject(c.styles) && isObject(c.styles.variables) ? c.styles.variables : {};
    for (const [k, v] of Object.entries(vars)) {
      if (k.startsWith("--") && typeof v === "string") doc.style.setProperty(k, v);
    }
  }

  globalThis.addEventListener("message", (event: MessageEvent) => {
    if (event.source !== host) return; // only the host that embeds this view speaks to it
    const m = event.data;
    if (!isObject(m) || m.jsonrpc !== "2.0") return;
    if (typeof m.method !== "string") {
      const w = typeof m.id === "number" ? waiting.get(m.id) : undefined;
      if (!w) return;
      waiting.delete(m.id as number);
      if (isObject(m.error)) w.reject(new Error(String(m.error.message ?? "the host refused the request")));
      else w.resolve(m.result);
      return;
    }
    const p = isObject(m.params) ? m.params : {};
    switch (m.method) {
      case "ui/notifications/tool-input":
        state.input = isObject(p.arguments) ? p.arguments : null;
        return render();
      case "ui/notifications/tool-result":
        state.toolResult = Array.isArray(p.content) ? p as unknown as ViewToolResult : null;
        return render();
      case "ui/notifications/host-context-changed":
        hostContext(p);
        return render();
      case "ui/resource-teardown":
      case "ping":
        if (m.id !== undefined) post({ id: m.id, result: {} });
        return;
      default:
        if (m.id !== undefined) {
          post({ id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } });
        }
    }
  });

  request("ui/initialize", {
    appInfo: { name: `portico-${name}`, version: "1" },
    appCapabilities: {},
    protocolVersion: APPS_PROTOCOL_VERSION,
  }).then((init) => {
    if (isObject(init)) hostContext(init.hostContext);
    post({ method: "ui/notifications/initialized", params: {} });
    render();
    // The host sizes the frame to the view (inline display mode).
    new ResizeObserver(() => {
      const r = document.documentElement.getBoundingClientRect();
      post({
        method: "ui/notifications/size-changed",
        params: { width: Math.ceil(r.width), height: Math.ceil(r.height) },
      });
    }).observe(document.documentElement);
  }, () => render());
}

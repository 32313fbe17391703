/// <reference lib="dom" />
// The test host's browser side: the official AppBridge of @modelcontextprotocol/ext-apps embedding a view in a
// sandboxed iframe (no same origin, scripts only), as a chat host does. Tool calls of the view go to the test
// process (hostCallTool, exposed by Playwright), which calls Portico's /mcp with the person's credential: the
// credential never enters this page or the view.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

interface Embed {
  html: string;
  tool: string;
  args: Record<string, unknown>;
  result: Record<string, unknown>;
  theme: "light" | "dark";
}

declare const hostCallTool: (params: unknown) => Promise<Record<string, unknown>>;

async function embed(e: Embed): Promise<void> {
  document.documentElement.dataset.theme = e.theme;
  document.documentElement.style.colorScheme = e.theme;
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.title = `Portico ${e.tool} view`;
  frame.style.cssText = "display:block;width:100%;height:400px;border:0";
  document.getElementById("slot")!.replaceChildren(frame);
  const bridge = new AppBridge(null, { name: "portico-test-host", version: "1" }, { serverTools: {} }, {
    hostContext: {
      theme: e.theme,
      locale: "en-GB",
      displayMode: "inline",
      toolInfo: { tool: { name: e.tool, inputSchema: { type: "object" } } },
    },
  });
  bridge.oncalltool = (params) => hostCallTool(params) as never;
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  // Connected before the document loads: the view's ui/initialize is its first message.
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = e.html;
  await initialized;
  await bridge.sendToolInput({ arguments: e.args });
  await bridge.sendToolResult(e.result as never);
  Object.assign(globalThis, { bridge });
}

Object.assign(globalThis, { embed });

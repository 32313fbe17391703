// mcp-remote (the npm package most stdio-only MCP hosts use to reach a remote server) as a real subprocess, run
// the way its README tells people to: `npx -y mcp-remote@VERSION <url>`. Its home and token store live in a
// temporary folder, and the browser it opens is a script that writes the URL down for the test to drive.
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { eventually } from "./wait.ts";

/** The version issue 23 was measured with. */
export const MCP_REMOTE_VERSION = "0.15.1";

/** Whether Node's npx is on this machine (mcp-remote needs Node.js; the npm registry must be reachable). */
export const haveNpx = (() => {
  try {
    return new Deno.Command("npx", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync()
      .success;
  } catch {
    return false;
  }
})();

export interface McpRemote {
  transport: StdioClientTransport;
  /** the loopback port mcp-remote was told to listen on for the authorization callback */
  callbackPort: number;
  /** the first URL mcp-remote asked the system to open in a browser (waits for it) */
  openedUrl(): Promise<URL>;
  /** what mcp-remote wrote to stderr so far (its log: the failure message when a step fails) */
  log(): string;
  /**
   * Ends mcp-remote if it is still running and removes the temporary folder (after the transport is closed).
   * Closing the transport ends npx, but npx does not pass the signal on: a mcp-remote still waiting for the
   * browser (a failed test) would outlive it. Its log names its pid ("[pid] …"), so it is ended by that id.
   */
  cleanup(): Promise<void>;
}

/** Whether `pid` is (still) a mcp-remote process, not a later process that reused the id. */
function isMcpRemote(pid: number): boolean {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes("mcp-remote");
  } catch {
    return false;
  }
}

/**
 * A free loopback port below the kernel's ephemeral range. mcp-remote holds to the port it is given (no second
 * candidate), and takes it seconds after it is chosen (npx, discovery, registration); a port from the ephemeral
 * range could meanwhile go to a server or connection of a test running beside this one, which bind port 0.
 */
function callbackPortOutsideEphemeral(): number {
  let low = 32768;
  try {
    low = Number(Deno.readTextFileSync("/proc/sys/net/ipv4/ip_local_port_range").trim().split(/\s+/)[0]) ||
      low;
  } catch {
    // not Linux: the usual default
  }
  const from = Math.min(20000, low - 2000);
  for (let i = 0; i < 100; i++) {
    const port = from + Math.floor(Math.random() * (low - from));
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch {
      // taken: another one
    }
  }
  throw new Error(`no free port in ${from}-${low - 1}`);
}

/**
 * Prepares `npx -y mcp-remote@VERSION <mcpUrl> <port>` behind an SDK stdio transport (connect() starts it).
 *
 * Browser: mcp-remote calls the `open` package, which on Linux runs its bundled `xdg-open` script (when
 * executable) or the `xdg-open` on PATH; with no desktop session the script hands the URL to `$BROWSER`. Both
 * paths end in the fake browser below, which appends the URL to a file and exits 0, so nothing else is launched.
 * HOME and MCP_REMOTE_CONFIG_DIR point into the temporary folder (no registration or token is reused from an
 * earlier run); npm's own cache stays where it is, so the package is fetched from the registry once per machine.
 */
export async function prepareMcpRemote(mcpUrl: string, extraArgs: string[] = []): Promise<McpRemote> {
  const dir = await Deno.makeTempDir({ prefix: "portico-mcp-remote-" });
  const bin = `${dir}/bin`;
  const opened = `${dir}/opened.txt`;
  await Deno.mkdir(bin);
  await Deno.mkdir(`${dir}/home`);
  const browser = `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\nexit 0\n`;
  for (const name of ["xdg-open", "fake-browser"]) {
    await Deno.writeTextFile(`${bin}/${name}`, browser, { mode: 0o755 });
  }
  const realHome = Deno.env.get("HOME") ?? "/root";
  const callbackPort = callbackPortOutsideEphemeral();
  const transport = new StdioClientTransport({
    command: "npx",
    args: [
      "--yes",
      `mcp-remote@${MCP_REMOTE_VERSION}`,
      mcpUrl,
      String(callbackPort),
      // mcp-remote waits 30 s for the browser by default; a person waiting for an operator takes longer
      "--auth-timeout",
      "600",
      ...extraArgs,
    ],
    env: {
      PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin"}`,
      HOME: `${dir}/home`,
      MCP_REMOTE_CONFIG_DIR: `${dir}/mcp-auth`,
      BROWSER: `${bin}/fake-browser`,
      npm_config_cache: Deno.env.get("npm_config_cache") ?? `${realHome}/.npm`,
      npm_config_update_notifier: "false",
      npm_config_fund: "false",
      NO_COLOR: "1",
    },
    stderr: "pipe",
  });
  let log = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    log += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
  });
  const readOpened = async () => {
    try {
      return (await Deno.readTextFile(opened)).split("\n").filter((l) => l.length > 0);
    } catch {
      return [];
    }
  };
  return {
    transport,
    callbackPort,
    async openedUrl() {
      try {
        await eventually("mcp-remote opens a browser", async () => (await readOpened()).length > 0, 100);
      } catch (err) {
        throw new Error(`${(err as Error).message}; mcp-remote's log:\n${log}`);
      }
      return new URL((await readOpened())[0]);
    },
    log: () => log,
    async cleanup() {
      const pid = Number(/^\[(\d+)\]/m.exec(log)?.[1]);
      if (pid > 0 && isMcpRemote(pid)) {
        try {
          Deno.kill(pid, "SIGTERM");
        } catch {
          // ended meanwhile
        }
      }
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

// The peer of bench/refresh_peer.ts: node-oidc-provider (pinned in bench/peers/package.json) on Node, started as
// bench/peers/oidc_provider.mjs with its in-memory store or, given a database, on PostgreSQL
// (bench/peers/pg_adapter.mjs, for --durable-peer).
import { freePort, processCpuSeconds, type Running } from "./load.ts";

export const PEERS = new URL("./peers/", import.meta.url).pathname;
export const PEER_VERSION =
  JSON.parse(Deno.readTextFileSync(`${PEERS}package.json`)).dependencies["oidc-provider"];

async function run(cmd: string, args: string[], cwd: string): Promise<boolean> {
  try {
    const out = await new Deno.Command(cmd, { args, cwd, stdout: "null", stderr: "inherit" }).output();
    return out.success;
  } catch {
    return false;
  }
}

/** Node is there and the pinned peer is installed (`npm ci` in bench/peers on first use, from its lock file). */
export async function peerReady(): Promise<boolean> {
  if (!await run("node", ["--version"], PEERS)) return false;
  try {
    // pg arrived after oidc-provider (--durable-peer): an install from before it lacks it
    Deno.statSync(`${PEERS}node_modules/oidc-provider/package.json`);
    Deno.statSync(`${PEERS}node_modules/pg/package.json`);
    return true;
  } catch {
    console.log("  installing the peer (npm ci in bench/peers) …");
    return await run("npm", ["ci", "--no-audit", "--no-fund"], PEERS);
  }
}

export async function nodeVersion(): Promise<string> {
  const out = await new Deno.Command("node", { args: ["--version"], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * Starts the peer with one refresh-token chain per connection; on `databaseUrl` (a database of its own: its
 * table is emptied at every start) when given, in memory otherwise.
 */
export async function startPeer(
  connections: number,
  databaseUrl?: string,
): Promise<Running & { chains: string[] }> {
  const port = freePort();
  const child = new Deno.Command("node", {
    args: [`${PEERS}oidc_provider.mjs`, JSON.stringify({ port, chains: connections, databaseUrl })],
    stdin: "piped",
    stdout: "piped",
    // its start-up warnings (Node 20 runtime, the in-memory adapter); kept to name why a start failed
    stderr: "piped",
  }).spawn();
  let errText = "";
  const errRead = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (errText = (errText + chunk).slice(-2000)) }),
  ).catch(() => {});
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) {
      await errRead;
      throw new Error(`the peer exited before listening:\n${errText}`);
    }
    text += value;
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  const { refreshTokens } = JSON.parse(text.slice(0, text.indexOf("\n")));
  const status = child.status;
  return {
    port,
    pid: child.pid,
    chains: refreshTokens,
    cpuSeconds: () => processCpuSeconds(child.pid),
    async stop() {
      await child.stdin.close().catch(() => {});
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await status;
      await errRead;
      clearTimeout(timer);
    },
  };
}

// Front ends compared, alternating rounds in one process: bare Deno.serve, lib/http/serve.ts with
// HTTP_FRONT_END=deno (Deno.serve + the body deadline) and with HTTP_FRONT_END=node (node:http with header and
// idle deadlines) — a trivial handler (GET, 1 KB POST) and the real app answering `tools/call list_projects`.
import { serve } from "../lib/http/serve.ts";
import { parseConfig } from "../lib/config.ts";
import { silentLogger } from "../lib/log.ts";
import { createApp } from "../routes/mod.ts";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../tests/helpers/app.ts";
import { freshDatabase } from "../tests/helpers/db.ts";
import { buildFixture, mcpHeaders } from "../tests/helpers/mcp.ts";

const CONNECTIONS = 16;
const SECONDS = 3;
const BODY = "x".repeat(1024);

async function trivial(req: Request): Promise<Response> {
  if (req.body) await req.arrayBuffer();
  return new Response("ok");
}

async function rps(port: number, init: () => RequestInit, path = "/"): Promise<number> {
  const url = `http://127.0.0.1:${port}${path}`;
  const until = performance.now() + SECONDS * 1000;
  let count = 0;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < until) {
      const res = await fetch(url, init());
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      count++;
    }
  }));
  return Math.round(count / SECONDS);
}

export async function benchServeFront(): Promise<void> {
  console.log(`\n## front ends (${CONNECTIONS} connections, ${SECONDS} s each; requests/s)`);
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const config = parseConfig({
      ISSUER: "http://localhost:8000",
      SECRET_KEY: TEST_SECRET,
      LOG_LEVEL: "error",
      // one key from 16 connections for seconds: the /mcp limits (600/60 per key) would stop the run
      ...TEST_RATE_LIMITS,
    });
    const app = createApp({
      config,
      sql: db.sql,
      log: silentLogger,
      secretKey: TEST_SECRET,
      scrypt: TEST_SCRYPT,
    });
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_projects", arguments: {} },
    });
    const opts = { hostname: "127.0.0.1", port: 0, requestTimeoutMs: 30_000, onListen() {} };
    const bare = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, trivial);
    const deno = await serve(trivial, { ...opts, frontEnd: "deno" });
    const node = await serve(trivial, {
      ...opts,
      frontEnd: "node",
      headersTimeoutMs: 10_000,
      idleTimeoutMs: 60_000,
    });
    const appDeno = await serve(app.fetch, { ...opts, frontEnd: "deno" });
    const appNode = await serve(app.fetch, {
      ...opts,
      frontEnd: "node",
      headersTimeoutMs: 10_000,
      idleTimeoutMs: 60_000,
    });
    const trivialRows: Array<[string, number]> = [
      ["bare Deno.serve", bare.addr.port],
      ["serve.ts deno", deno.addr.port],
      ["serve.ts node", node.addr.port],
    ];
    for (let round = 1; round <= 3; round++) {
      const order = round % 2 ? trivialRows : [...trivialRows].reverse();
      for (const [name, port] of order) {
        const get = await rps(port, () => ({}));
        const post = await rps(port, () => ({ method: "POST", body: BODY }));
        console.log(`round ${round}  ${name.padEnd(16)} GET ${get}  POST 1 KB ${post}`);
      }
      const appOrder: Array<[string, number]> = round % 2
        ? [["app deno", appDeno.addr.port], ["app node", appNode.addr.port]]
        : [["app node", appNode.addr.port], ["app deno", appDeno.addr.port]];
      for (const [name, port] of appOrder) {
        const r = await rps(
          port,
          () => ({ method: "POST", headers: mcpHeaders(f.keys.owner), body: call }),
          "/mcp",
        );
        console.log(`round ${round}  ${name.padEnd(16)} tools/call list_projects ${r}`);
      }
    }
    await bare.shutdown();
    for (const s of [deno, node, appDeno, appNode]) await s.shutdown();
  } finally {
    await db.close();
  }
}

if (import.meta.main) await benchServeFront();

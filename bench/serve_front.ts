// Front ends compared: requests per second through bare Deno.serve, through lib/http/serve.ts (Deno.serve with the
// body deadline), and through node:http converting to a web Request — a trivial handler, GET and a 1 KB POST.
import http from "node:http";
import { serve } from "../lib/http/serve.ts";

const CONNECTIONS = 16;
const SECONDS = 3;
const BODY = "x".repeat(1024);

async function trivial(req: Request): Promise<Response> {
  if (req.body) await req.arrayBuffer();
  return new Response("ok");
}

function nodeFront(handler: (req: Request) => Promise<Response>): Promise<{ port: number; close(): void }> {
  const server = http.createServer(async (req, res) => {
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: hasBody ? (ReadableStream.from(req) as ReadableStream<Uint8Array>) : null,
      duplex: "half",
    } as RequestInit);
    const response = await handler(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(new Uint8Array(await response.arrayBuffer()));
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve) =>
    server.listen(
      0,
      "127.0.0.1",
      () => resolve({ port: (server.address() as { port: number }).port, close: () => server.close() }),
    )
  );
}

async function rps(port: number, post: boolean): Promise<number> {
  const url = `http://127.0.0.1:${port}/`;
  const until = performance.now() + SECONDS * 1000;
  let count = 0;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < until) {
      const res = await fetch(url, post ? { method: "POST", body: BODY } : {});
      await res.arrayBuffer();
      count++;
    }
  }));
  return Math.round(count / SECONDS);
}

export async function benchServeFront(): Promise<void> {
  console.log(`\n## front ends (${CONNECTIONS} connections, ${SECONDS} s each, trivial handler; requests/s)`);
  const bare = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, trivial);
  const guarded = serve(trivial, { hostname: "127.0.0.1", port: 0, requestTimeoutMs: 30_000, onListen() {} });
  const node = await nodeFront(trivial);
  const rows: Array<[string, number]> = [
    ["Deno.serve", bare.addr.port],
    ["lib/http/serve.ts", guarded.addr.port],
    ["node:http front", node.port],
  ];
  for (let round = 1; round <= 3; round++) {
    for (const [name, port] of rows) {
      console.log(
        `round ${round}  ${name.padEnd(18)} GET ${await rps(port, false)}  POST 1 KB ${await rps(
          port,
          true,
        )}`,
      );
    }
  }
  await bare.shutdown();
  await guarded.shutdown();
  node.close();
}

if (import.meta.main) await benchServeFront();

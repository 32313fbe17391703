// A small round-robin balancer for pressure tests and benches: a Deno.serve on loopback that forwards each
// request to the next of its backends in turn, appending the peer to X-Forwarded-For as a proxy does (list
// 127.0.0.1 in the backends' TRUSTED_PROXIES, and a client's own X-Forwarded-For is its address).
import { fetcher, type HttpTarget } from "./serve.ts";

export interface RoundRobin extends HttpTarget {
  /** requests forwarded to each backend so far */
  served(): number[];
}

/** Hop-by-hop and encoding headers the proxy does not pass on (fetch has already decoded the body). */
const DROPPED = ["connection", "keep-alive", "transfer-encoding", "content-encoding", "content-length"];

export function roundRobin(backends: readonly { base: string }[]): RoundRobin {
  let next = 0;
  const counts = backends.map(() => 0);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req, info) => {
    const i = next++ % backends.length;
    counts[i]++;
    const url = new URL(req.url);
    const headers = new Headers(req.headers);
    const peer = info.remoteAddr.hostname;
    const xff = headers.get("x-forwarded-for");
    headers.set("x-forwarded-for", xff ? `${xff}, ${peer}` : peer);
    headers.set("accept-encoding", "identity");
    headers.delete("host");
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
    const res = await fetch(`${backends[i].base}${url.pathname}${url.search}`, {
      method: req.method,
      headers,
      body,
      redirect: "manual",
    });
    const out = new Headers(res.headers);
    for (const h of DROPPED) out.delete(h);
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers: out });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  return { base, request: fetcher(base), close: () => server.shutdown(), served: () => [...counts] };
}

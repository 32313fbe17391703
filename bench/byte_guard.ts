// Option (b) of issue 28.5, kept only to measure it (bench/serve_front.ts): a byte-level header guard in front of
// an internal Deno.serve. Not a product path: lib/http/serve.ts's `deno` front end bounds headers without
// touching a byte (BENCHMARKS.md, "HTTP front ends").

type Handler = (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;
const latin1 = new TextDecoder("latin1");

const CRLFCRLF = [13, 10, 13, 10];

/** Where the head's CRLFCRLF ends in `buf[from..to)`, given how many of its bytes the previous chunk ended with. */
function headEnd(
  buf: Uint8Array,
  from: number,
  to: number,
  matched: number,
): { end: number; matched: number } {
  for (let i = from; i < to; i++) {
    matched = buf[i] === CRLFCRLF[matched] ? matched + 1 : buf[i] === 13 ? 1 : 0;
    if (matched === 4) return { end: i + 1, matched: 0 };
  }
  return { end: -1, matched };
}

/**
 * Option (b), for measurement only: a public listener whose every connection is spliced to an internal
 * Deno.serve on loopback, the client's bytes watched for the end of each request head (Content-Length bodies
 * skipped; anything else passed through unwatched), the connection closed when a head takes longer than
 * `headersMs` from its first byte (or from the connection opening). The handler sees the real client address.
 */
export function serveByteGuard(
  handler: Handler,
  headersMs: number,
  hostname = "127.0.0.1",
  port = 0,
): Promise<{ port: number; shutdown(): Promise<void> }> {
  const peers = new Map<number, Deno.NetAddr>();
  const inner = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req, info) => {
    const real = peers.get((info.remoteAddr as Deno.NetAddr).port);
    return handler(req, { remoteAddr: real ?? info.remoteAddr, completed: info.completed });
  });
  const listener = Deno.listen({ hostname, port });
  const conns = new Set<Deno.Conn>();

  async function splice(conn: Deno.Conn): Promise<void> {
    const up = await Deno.connect({ hostname: "127.0.0.1", port: inner.addr.port });
    const upPort = (up.localAddr as Deno.NetAddr).port;
    peers.set(upPort, conn.remoteAddr as Deno.NetAddr);
    conns.add(conn);
    let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(() => conn.close(), headersMs);
    const down = up.readable.pipeTo(conn.writable).catch(() => {});
    const buf = new Uint8Array(64 * 1024);
    let state: "head" | "body" | "raw" = "head";
    let matched = 0, remaining = 0, head = "";
    try {
      for (let n; (n = await conn.read(buf)) !== null;) {
        let i = 0;
        while (i < n && state !== "raw") {
          if (state === "body") {
            const take = Math.min(remaining, n - i);
            i += take;
            remaining -= take;
            if (remaining === 0) state = "head";
            continue;
          }
          timer ??= setTimeout(() => conn.close(), headersMs);
          const r = headEnd(buf, i, n, matched);
          head += latin1.decode(buf.subarray(i, r.end < 0 ? n : r.end));
          matched = r.matched;
          if (r.end < 0) break;
          clearTimeout(timer);
          timer = undefined;
          i = r.end;
          if (/\r\ntransfer-encoding:/i.test(head)) state = "raw";
          else {
            remaining = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
            state = remaining > 0 ? "body" : "head";
          }
          head = "";
        }
        for (let w = 0; w < n;) w += await up.write(buf.subarray(w, n));
      }
    } catch {
      // closed by the deadline, or reset
    } finally {
      clearTimeout(timer);
      peers.delete(upPort);
      conns.delete(conn);
      try {
        up.close();
      } catch { /* already closed */ }
      await down;
    }
  }

  const accepting = (async () => {
    for await (const conn of listener) splice(conn).catch(() => {});
  })().catch(() => {});
  return Promise.resolve({
    port: (listener.addr as Deno.NetAddr).port,
    async shutdown() {
      listener.close();
      await accepting;
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await inner.shutdown();
    },
  });
}

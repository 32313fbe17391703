// A TCP proxy between the app's postgres.js pool and Postgres, which a test cuts and restores on the same port.
//
// `startDbProxy(url)` → a proxy in front of the server in `url`; `proxy.url` is the same database reached through
// it. `cut()` closes the listener and every piped connection (in-flight queries fail, new connections are
// refused); `restore()` listens again on the same port. `cutWhenSent(text)` arms a one-shot cut that fires the
// moment a client sends bytes containing `text` (e.g. the SQL of a transaction's second statement), before they
// reach Postgres — a crash in the middle of a request, at a chosen point.

export interface DbProxy {
  /** the database URL through the proxy */
  url: string;
  port: number;
  /** open client connections right now */
  readonly connections: number;
  cut(): void;
  /** listens again on the same port (retrying while the old socket is being released) */
  restore(): Promise<void>;
  /** cut everything when a client next sends bytes containing `text`; resolves when that happened */
  cutWhenSent(text: string): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Deno.TcpConn;
  server: Deno.TcpConn;
}

const encoder = new TextEncoder();

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

function closeQuietly(c: Deno.Conn) {
  try {
    c.close();
  } catch {
    // already closed
  }
}

export function startDbProxy(databaseUrl: string): DbProxy {
  const target = new URL(databaseUrl);
  const targetHost = target.hostname;
  const targetPort = Number(target.port || 5432);
  let listener: Deno.TcpListener | undefined = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const pairs = new Set<Pair>();
  const loops = new Set<Promise<void>>();
  let trigger: { needle: Uint8Array; fired: () => void } | undefined;

  function cutAll() {
    for (const p of pairs) {
      closeQuietly(p.client);
      closeQuietly(p.server);
    }
    pairs.clear();
  }

  /** Copies one direction; the client→server side checks for the armed trigger before forwarding. */
  async function pump(from: Deno.Conn, to: Deno.Conn, inspect: boolean, pair: Pair) {
    const buf = new Uint8Array(64 * 1024);
    try {
      while (true) {
        const n = await from.read(buf);
        if (n === null) break;
        const chunk = buf.subarray(0, n);
        if (inspect && trigger && contains(chunk, trigger.needle)) {
          const t = trigger;
          trigger = undefined;
          cutAll();
          t.fired();
          return;
        }
        let written = 0;
        while (written < n) written += await to.write(chunk.subarray(written));
      }
    } catch {
      // the other side (or cut()) closed the connection
    } finally {
      pairs.delete(pair);
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  async function accept(l: Deno.TcpListener) {
    try {
      for await (const client of l) {
        let server: Deno.TcpConn;
        try {
          server = await Deno.connect({ hostname: targetHost, port: targetPort });
        } catch {
          closeQuietly(client);
          continue;
        }
        if (listener !== l) { // cut while connecting
          closeQuietly(client);
          closeQuietly(server);
          continue;
        }
        // Without this, Nagle's algorithm and delayed ACKs add ~40 ms to many round trips through the proxy.
        client.setNoDelay(true);
        server.setNoDelay(true);
        const pair = { client, server };
        pairs.add(pair);
        const loop = Promise.all([pump(client, server, true, pair), pump(server, client, false, pair)])
          .then(() => {});
        loops.add(loop);
        loop.finally(() => loops.delete(loop));
      }
    } catch {
      // listener closed
    }
  }

  let acceptLoop = accept(listener);
  const proxied = new URL(databaseUrl);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(port);

  return {
    url: proxied.toString(),
    port,
    get connections() {
      return pairs.size;
    },
    cut() {
      listener?.close();
      listener = undefined;
      cutAll();
    },
    async restore() {
      if (listener) return;
      await acceptLoop; // the closed listener's pending accept lets go of the port
      for (let i = 0;; i++) {
        try {
          listener = Deno.listen({ hostname: "127.0.0.1", port });
          break;
        } catch (err) {
          if (!(err instanceof Deno.errors.AddrInUse) || i >= 100) throw err;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      acceptLoop = accept(listener);
    },
    cutWhenSent(text: string) {
      return new Promise<void>((resolve) => {
        trigger = { needle: encoder.encode(text), fired: resolve };
      });
    },
    async close() {
      trigger = undefined;
      listener?.close();
      listener = undefined;
      cutAll();
      await acceptLoop;
      await Promise.all([...loops]);
    },
  };
}

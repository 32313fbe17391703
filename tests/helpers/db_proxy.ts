// A TCP proxy between the app's postgres.js pool and Postgres, which a test cuts and restores on the same port.
//
// `startDbProxy(url)` → a proxy in front of the server in `url`; `proxy.url` is the same database reached through
// it. `cut()` closes the listener and every piped connection (in-flight queries fail, new connections are
// refused), and resolves once every client has closed its side too: it has seen the cut, so its next query goes
// out on a new connection. `restore()` listens again on the same port. `cutWhenSent(text)` arms a one-shot cut
// that fires the moment a client sends bytes containing `text` (e.g. the SQL of a transaction's second
// statement), before they reach Postgres — a crash in the middle of a request, at a chosen point. The database
// then stays away until `restore()`: postgres.js sends a query again on a new connection when the one it opened
// for it is lost before it was ready, and with the port still open that retry, on a host slow or fast enough,
// would make the "crash" invisible.

export interface DbProxy {
  /** the database URL through the proxy */
  url: string;
  port: number;
  /** open client connections right now */
  readonly connections: number;
  /** cuts at once; resolves when every client cut has closed its end (it noticed) */
  cut(): Promise<void>;
  /** listens again on the same port (retrying while the old socket is being released) */
  restore(): Promise<void>;
  /** cut everything (as cut()) when a client next sends bytes containing `text`; resolves when that happened */
  cutWhenSent(text: string): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Deno.TcpConn;
  server: Deno.TcpConn;
  /** set by cut(): the client's end stays open until the client closes it */
  cut: boolean;
  /** the client→server pump: ends when the client closed its end (or after a cut on its bytes) */
  fromClient: Promise<void>;
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
  /** cut pairs whose client has not closed its end yet */
  const lingering = new Set<Pair>();
  const loops = new Set<Promise<void>>();
  let trigger: { needle: Uint8Array; fired: () => void } | undefined;

  /** A crash: every piped connection closed on both sides at once. */
  function cutAll() {
    for (const p of pairs) {
      closeQuietly(p.client);
      closeQuietly(p.server);
    }
    pairs.clear();
  }

  /**
   * Closes every server side and tells every client (FIN), then resolves when each client has closed its end: it
   * noticed, so it sends nothing more on that connection.
   */
  function cutAndWait(): Promise<void> {
    for (const p of pairs) {
      p.cut = true;
      closeQuietly(p.server);
      try {
        p.client.closeWrite();
      } catch {
        closeQuietly(p.client);
      }
      lingering.add(p);
      p.fromClient.finally(() => lingering.delete(p));
    }
    pairs.clear();
    return Promise.all([...lingering].map((p) => p.fromClient)).then(() => {});
  }

  /** Copies one direction; the client→server side checks for the armed trigger before forwarding. */
  async function pump(from: Deno.Conn, to: Deno.Conn, inspect: boolean, pair: Pair) {
    const buf = new Uint8Array(64 * 1024);
    try {
      while (true) {
        const n = await from.read(buf);
        if (n === null) break;
        const chunk = buf.subarray(0, n);
        if (pair.cut) continue; // bytes a client sends after the cut go nowhere (and arm nothing)
        if (inspect && trigger && contains(chunk, trigger.needle)) {
          const t = trigger;
          trigger = undefined;
          listener?.close();
          listener = undefined;
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
      // after a cut, only the client's own pump closes the client's end: once the client has closed it
      if (!pair.cut || from === pair.client) closeQuietly(from);
      if (!pair.cut || to === pair.server) closeQuietly(to);
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
        const pair: Pair = { client, server, cut: false, fromClient: Promise.resolve() };
        pairs.add(pair);
        pair.fromClient = pump(client, server, true, pair);
        const loop = Promise.all([pair.fromClient, pump(server, client, false, pair)]).then(() => {});
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
      return cutAndWait();
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
      for (const p of [...pairs, ...lingering]) {
        closeQuietly(p.client);
        closeQuietly(p.server);
      }
      pairs.clear();
      lingering.clear();
      await acceptLoop;
      await Promise.all([...loops]);
    },
  };
}

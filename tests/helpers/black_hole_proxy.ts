// A TCP proxy in front of Postgres that can turn into a network black hole: bytes are swallowed, nothing is reset.
//
// `blackHole()`: every open connection stays open but nothing passes in either direction, and new connections
// are accepted and then ignored — what a dropped route or a firewall that drops packets looks like to a client.
// `heal()`: traffic passes again on new connections (the swallowed bytes are gone; held connections stay dead).
// `silentAfterStartup()`: new connections pass the client's start-up message and every byte of the server's
// answer, then swallow whatever the client sends: a database that lets a connection in and then never answers.

export interface BlackHoleProxy {
  /** the database URL through the proxy */
  url: string;
  blackHole(): void;
  silentAfterStartup(): void;
  /** resolves when the proxy next swallows bytes a client sent after its start-up (a query left unanswered) */
  nextSwallowed(): Promise<void>;
  heal(): void;
  close(): Promise<void>;
}

function closeQuietly(c: Deno.Conn) {
  try {
    c.close();
  } catch {
    // already closed
  }
}

export function startBlackHoleProxy(databaseUrl: string): BlackHoleProxy {
  const target = new URL(databaseUrl);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  let holed = false;
  let startupOnly = false;
  let swallowedWaiters: Array<() => void> = [];
  const swallowed = () => {
    const waiters = swallowedWaiters;
    swallowedWaiters = [];
    for (const w of waiters) w();
  };

  async function pump(from: Deno.Conn, to: Deno.Conn | null, swallowing: () => boolean) {
    const buf = new Uint8Array(64 * 1024);
    try {
      while (true) {
        const n = await from.read(buf);
        if (n === null) break;
        if (!to || swallowing()) continue;
        let written = 0;
        while (written < n) written += await to.write(buf.subarray(written, n));
      }
    } catch {
      // closed
    } finally {
      conns.delete(from);
      closeQuietly(from);
      if (to) {
        conns.delete(to);
        closeQuietly(to);
      }
    }
  }

  (async () => {
    try {
      for await (const client of listener) {
        conns.add(client);
        if (holed) { // accepted, then nothing: the client's start-up message goes nowhere
          pump(client, null, () => true);
          continue;
        }
        const server = await Deno.connect({ hostname: target.hostname, port: Number(target.port || 5432) });
        conns.add(server);
        client.setNoDelay(true);
        server.setNoDelay(true);
        // a connection opened before the hole stays dead after it: its swallowed bytes broke the protocol
        let dead = false;
        const swallowing = () => dead ||= holed;
        if (startupOnly) {
          // the first read is the start-up message (trust authentication: nothing else precedes ReadyForQuery)
          let first = true;
          pump(client, server, () => first ? (first = false) : (swallowed(), true));
          pump(server, client, () => false);
        } else {
          pump(client, server, swallowing);
          pump(server, client, swallowing);
        }
      }
    } catch {
      // listener closed
    }
  })();

  const proxied = new URL(databaseUrl);
  proxied.hostname = "127.0.0.1";
  proxied.port = String((listener.addr as Deno.NetAddr).port);
  return {
    url: proxied.toString(),
    blackHole() {
      holed = true;
    },
    silentAfterStartup() {
      startupOnly = true;
    },
    nextSwallowed() {
      return new Promise<void>((resolve) => swallowedWaiters.push(resolve));
    },
    heal() {
      holed = false;
      startupOnly = false;
    },
    close() {
      listener.close();
      for (const c of conns) closeQuietly(c);
      conns.clear();
      return Promise.resolve();
    },
  };
}

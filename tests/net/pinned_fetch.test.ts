// The DNS-pinned fetch on its own (lib/net/pinned_fetch.ts): the address check before any connection, the
// connection to the checked address, the byte limit and the deadline. Through the metadata fetcher, with its
// messages in context: tests/oauth/client_metadata.test.ts.
import assert from "node:assert/strict";
import { fetchPinned, type PinnedFetchSettings } from "../../lib/net/pinned_fetch.ts";
import { FetchRefusal, printable } from "../../lib/net/refusal.ts";

function settings(extra: Partial<PinnedFetchSettings> = {}): PinnedFetchSettings {
  return {
    timeoutMs: 3000,
    maxBytes: 64,
    allowLoopback: true,
    resolve: () => Promise.reject(new Error("DNS must not be asked")),
    ...extra,
  };
}

async function refused(p: Promise<unknown>, message: string | RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof FetchRefusal, `expected FetchRefusal, got ${e}`);
    if (typeof message === "string") assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

function serve(body: string, type = "application/json") {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hits++;
    return new Response(body, { headers: { "content-type": type } });
  });
  return { port: server.addr.port, hits: () => hits, close: () => server.shutdown() };
}

Deno.test("a host resolving to a special address is refused before anything is connected", async () => {
  const resolved: string[] = [];
  await refused(
    fetchPinned(
      new URL("https://docs.example.com/c.json"),
      settings({
        allowLoopback: false,
        resolve: (h) => {
          resolved.push(h);
          return Promise.resolve(["93.184.215.14", "10.0.0.1"]);
        },
      }),
    ),
    "host docs.example.com resolves to 10.0.0.1, a private address; documents are fetched only from public addresses",
  );
  assert.deepEqual(resolved, ["docs.example.com"]);
  // Loopback names never reach DNS, and are refused unless loopback is allowed.
  await refused(
    fetchPinned(new URL("http://app.localhost/c.json"), settings({ allowLoopback: false })),
    "host app.localhost resolves to 127.0.0.1, a loopback address; documents are fetched only from public addresses",
  );
});

Deno.test("a loopback name connects to a loopback address; the body is read within the byte limit", async () => {
  const server = serve(`{"ok":true}`);
  try {
    const got = await fetchPinned(new URL(`http://localhost:${server.port}/c.json`), settings());
    assert.equal(new TextDecoder().decode(got.body), `{"ok":true}`);
    assert.deepEqual(got.headers.get("content-type"), ["application/json"]);
    await refused(
      fetchPinned(new URL(`http://127.0.0.1:${server.port}/c.json`), settings({ maxBytes: 5 })),
      "the document is larger than 5 bytes",
    );
  } finally {
    await server.close();
  }
});

Deno.test("only JSON is read, and nothing answers past the deadline", async () => {
  const html = serve("<html></html>", "text/html");
  try {
    await refused(
      fetchPinned(new URL(`http://127.0.0.1:${html.port}/c.json`), settings()),
      "the document must be served as application/json (got text/html)",
    );
  } finally {
    await html.close();
  }
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const silent: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) silent.push(conn);
  })();
  try {
    await refused(
      fetchPinned(
        new URL(`http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/c.json`),
        settings({ timeoutMs: 200 }),
      ),
      "no answer within 200 ms",
    );
  } finally {
    listener.close();
    await accepting.catch(() => {});
    for (const c of silent) c.close();
  }
});

Deno.test("printable: only error_description characters, bounded", () => {
  assert.equal(printable('a"b\\c\u00e9\n'), "a?b?c??");
  assert.equal(printable("x".repeat(10), 8), "xxxxx...");
  assert.equal(printable("x".repeat(8), 8), "xxxxxxxx");
});

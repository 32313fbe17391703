// Client ID Metadata Documents: URL rules, fetch limits over real loopback sockets, caching (the address policy
// itself: tests/net/public_address.test.ts).
import assert from "node:assert/strict";
import { isMetadataDocumentUrl, metadataDocumentUrlProblem } from "../../lib/oauth/client_id_url.ts";
import { createMetadataDocumentFetcher, type MetadataFetchOptions } from "../../lib/oauth/client_metadata.ts";
import { cacheLifetimeSeconds } from "../../lib/oauth/metadata_cache.ts";
import type { MetadataDocument } from "../../lib/oauth/metadata_document.ts";
import { OAuthError } from "../../lib/oauth/errors.ts";

const LOOPBACK_ISSUER = "http://127.0.0.1:8000";
const PUBLIC_ISSUER = "https://portico.example.com";
const REDIRECT = "http://127.0.0.1:33418/callback";

// A test-only CA and a leaf for localhost, cimd.test, 127.0.0.1 and ::1 (valid until 2126).
const TEST_CA = `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUMwzYIlCbHvfcAfuVHGlTBPU0xK8wCgYIKoZIzj0EAwIw
GjEYMBYGA1UEAwwPUG9ydGljbyB0ZXN0IENBMCAXDTI2MTEyMzA0MTgyOFoYDzIx
MjYxMDMwMDQxODI4WjAaMRgwFgYDVQQDDA9Qb3J0aWNvIHRlc3QgQ0EwWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAATJwqyErqwIPElR2uVdGjEALO8P5VV9YihBRF29
0bCjWdadYhEDybow2VKBh04JUsOUCVVJcuOUo/UnDvy9OLiJo2MwYTAdBgNVHQ4E
FgQUDc+Nuq5F8NPVjsiOkqoAOgGyIdowHwYDVR0jBBgwFoAUDc+Nuq5F8NPVjsiO
kqoAOgGyIdowDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYwCgYIKoZI
zj0EAwIDSAAwRQIgX2pw0FNce2LsXE1n6zGovej9B3qV0UZjVs5FZsUQRYQCIQCi
mT9W5DRrAa0yYBAb7NEvY+FgguOYs9ZY71T8cD5I6Q==
-----END CERTIFICATE-----
`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIB4DCCAYWgAwIBAgIUWG21Abj+wOrD2TvbvgVQUWg/3uYwCgYIKoZIzj0EAwIw
GjEYMBYGA1UEAwwPUG9ydGljbyB0ZXN0IENBMCAXDTI2MTEyMzA0MjExMFoYDzIx
MjYxMDMwMDQyMTEwWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAASY4cxaGJmypmCjcsQqwIIZGn+mXMVcxaxlNeY8U0tbJ4Dt
3Kh0NVMM5jIYJQZJOI8MxO39xJwZlZ+JN1nStTz3o4GsMIGpMDcGA1UdEQQwMC6C
CWxvY2FsaG9zdIIJY2ltZC50ZXN0hwR/AAABhxAAAAAAAAAAAAAAAAAAAAABMAkG
A1UdEwQCMAAwDgYDVR0PAQH/BAQDAgeAMBMGA1UdJQQMMAoGCCsGAQUFBwMBMB0G
A1UdDgQWBBQVtet2Ro2ggS88jjETkVAqCsnG+DAfBgNVHSMEGDAWgBQNz426rkXw
09WOyI6SqgA6AbIh2jAKBggqhkjOPQQDAgNJADBGAiEA0hY3BPjnkLanf8JkUbrs
YGtQjvlMQv/GK7H9yuIHwWwCIQD00VY6rqmIhQ4tXBAWJj6tCequZ06ZTxUfKK+e
lEkx4g==
-----END CERTIFICATE-----
`;
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgghsVUx8tmTfUyRO7
037OW4vaDYydQFmbDQcQPxvVQT6hRANCAASY4cxaGJmypmCjcsQqwIIZGn+mXMVc
xaxlNeY8U0tbJ4Dt3Kh0NVMM5jIYJQZJOI8MxO39xJwZlZ+JN1nStTz3
-----END PRIVATE KEY-----
`;

function doc(clientId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { client_id: clientId, client_name: "Test MCP client", redirect_uris: [REDIRECT], ...extra };
}

/** What the server saw (a Request cannot be read once it is answered). */
interface Seen {
  method: string;
  path: string;
  headers: Headers;
}

interface Served {
  base: string;
  port: number;
  hits: () => number;
  requests: Seen[];
  close: () => Promise<void>;
}

/** A real loopback HTTP(S) server; `answer` sees the request and the URL it is served at. */
function serve(
  answer: (req: Request, base: string) => Response | Promise<Response>,
  tls = false,
): Served {
  const requests: Seen[] = [];
  let base = "";
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, ...(tls ? { cert: TEST_CERT, key: TEST_KEY } : {}) },
    (req) => {
      requests.push({
        method: req.method,
        path: new URL(req.url).pathname,
        headers: new Headers(req.headers),
      });
      return answer(req, base);
    },
  );
  const port = server.addr.port;
  base = `${tls ? "https" : "http"}://127.0.0.1:${port}`;
  return { base, port, hits: () => requests.length, requests, close: () => server.shutdown() };
}

/** A raw TCP server for answers Deno.serve would not send (lying Content-Length, no framing, silence). */
function rawServer(
  onRequest: (conn: Deno.Conn) => Promise<void>,
): { base: string; close: () => Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const tasks: Promise<void>[] = [];
  const conns = new Set<Deno.Conn>();
  const loop = (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      tasks.push((async () => {
        try {
          const buf = new Uint8Array(4096);
          let text = "";
          while (!text.includes("\r\n\r\n")) {
            const n = await conn.read(buf);
            if (n === null) return;
            text += new TextDecoder().decode(buf.subarray(0, n));
          }
          await onRequest(conn);
        } catch {
          // the fetcher hung up, as it should
        } finally {
          try {
            conn.close();
          } catch { /* closed */ }
        }
      })());
    }
  })();
  return {
    base: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    close: async () => {
      listener.close();
      await loop.catch(() => {});
      await Promise.all(tasks);
    },
  };
}

function fetcher(extra: Partial<MetadataFetchOptions> = {}) {
  return createMetadataDocumentFetcher({ issuer: LOOPBACK_ISSUER, ...extra });
}

/** Asserts the promise rejects with invalid_client and exactly this description. */
async function refused(p: Promise<unknown>, description: string | RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof OAuthError, `expected OAuthError, got ${e}`);
    assert.equal(e.error, "invalid_client");
    if (typeof description === "string") assert.equal(e.description, description);
    else assert.match(e.description, description);
    return true;
  });
}

Deno.test("client_id URL rules: https with a path, no fragment, userinfo or dot segments, canonical", () => {
  const ok = "https://app.example.com/oauth/client.json";
  assert.equal(metadataDocumentUrlProblem(ok, PUBLIC_ISSUER), null);
  assert.equal(metadataDocumentUrlProblem("https://app.example.com:8443/c?v=1", PUBLIC_ISSUER), null);
  const cases: [string, string][] = [
    ["http://app.example.com/c.json", "must be an https URL"],
    ["http://127.0.0.1:9000/c.json", "must be an https URL"], // issuer not on loopback
    ["ftp://app.example.com/c.json", "must be an https URL"],
    ["https://user:pw@app.example.com/c.json", "must not contain a username or password"],
    ["https://app.example.com/c.json#frag", "must not contain a fragment"],
    ["https://app.example.com/c.json#", "must not contain a fragment"],
    ["https://app.example.com/a/../c.json", "must not contain . or .. path segments"],
    ["https://app.example.com/./c.json", "must not contain . or .. path segments"],
    ["https://app.example.com/%2e%2E/c.json", "must not contain . or .. path segments"],
    ["https://app.example.com/a/..", "must not contain . or .. path segments"],
    ["https://app.example.com", "must have a path"],
    ["https://app.example.com/", "must have a path"],
    ["https://app.example.com:443/c.json", "must be written as a URL parser writes it"],
    ["https://App.Example.com/c.json", "must be written as a URL parser writes it"],
    ["HTTPS://app.example.com/c.json", "must be written as a URL parser writes it"],
    ["https://app.example.com/a b", "must be written as a URL parser writes it"],
    ["https://intranet/c.json", "host must be a fully qualified domain name"],
    ["not a url", "is not an absolute URL"],
    [`https://app.example.com/${"a".repeat(2000)}`, "must be at most 2000 characters"],
  ];
  for (const [url, expected] of cases) {
    const problem = metadataDocumentUrlProblem(url, PUBLIC_ISSUER);
    assert.ok(problem?.includes(expected), `${url}: ${problem}`);
  }
  // Development: plain http to a loopback host only while the issuer itself is on loopback.
  assert.equal(metadataDocumentUrlProblem("http://127.0.0.1:9000/c.json", LOOPBACK_ISSUER), null);
  assert.equal(metadataDocumentUrlProblem("http://localhost:9000/c.json", "http://localhost:8000"), null);
  assert.equal(metadataDocumentUrlProblem("http://[::1]:9000/c.json", LOOPBACK_ISSUER), null);
  assert.match(metadataDocumentUrlProblem("http://app.example.com/c.json", LOOPBACK_ISSUER)!, /https/);

  assert.equal(isMetadataDocumentUrl(ok, PUBLIC_ISSUER), true);
  assert.equal(
    isMetadataDocumentUrl("https://app.example.com/c#x", PUBLIC_ISSUER),
    true,
    "the fetcher explains",
  );
  assert.equal(isMetadataDocumentUrl("pcl_abc", PUBLIC_ISSUER), false);
  assert.equal(isMetadataDocumentUrl("http://127.0.0.1:9000/c.json", PUBLIC_ISSUER), false);
  assert.equal(isMetadataDocumentUrl("http://127.0.0.1:9000/c.json", LOOPBACK_ISSUER), true);
  assert.equal(isMetadataDocumentUrl("http://app.example.com/c.json", LOOPBACK_ISSUER), false);
});

Deno.test("cache lifetime: max-age clamped to 60 s .. 24 h, 5 min without one, no-store as the minimum", () => {
  assert.equal(cacheLifetimeSeconds(undefined), 300);
  assert.equal(cacheLifetimeSeconds("public"), 300);
  assert.equal(cacheLifetimeSeconds("max-age=600"), 600);
  assert.equal(cacheLifetimeSeconds("public, max-age=600", "100"), 500);
  assert.equal(cacheLifetimeSeconds("max-age=600, s-maxage=900"), 900);
  assert.equal(cacheLifetimeSeconds("max-age=5"), 60);
  assert.equal(cacheLifetimeSeconds("max-age=999999"), 86_400);
  assert.equal(cacheLifetimeSeconds("no-store"), 60);
  assert.equal(cacheLifetimeSeconds("max-age=600, no-cache"), 60);
  assert.equal(cacheLifetimeSeconds("max-age=abc"), 300);
});

Deno.test("a valid document over loopback http: fields, defaults and the request Portico sends", async () => {
  const server = serve((_req, base) =>
    Response.json(doc(`${base}/oauth/client.json`, {
      redirect_uris: [REDIRECT, "http://localhost:33418/callback", REDIRECT],
      client_uri: "https://app.example.com",
      logo_uri: "https://app.example.com/logo.png",
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      contacts: ["dev@app.example.com"],
    }))
  );
  try {
    const clientId = `${server.base}/oauth/client.json`;
    const got = await fetcher().get(clientId);
    assert.deepEqual(
      { ...got },
      {
        clientId,
        name: "Test MCP client",
        redirectUris: [REDIRECT, "http://localhost:33418/callback"],
        grantTypes: ["authorization_code"],
        scopes: null,
        clientUri: "https://app.example.com",
        logoUri: "https://app.example.com/logo.png",
        host: `127.0.0.1:${server.port}`,
        loopbackRedirectsOnly: true,
      } satisfies MetadataDocument,
    );
    assert.equal(Object.isFrozen(got), true);
    const req = server.requests[0];
    assert.equal(req.method, "GET");
    assert.equal(req.path, "/oauth/client.json");
    assert.equal(req.headers.get("accept"), "application/json");
    assert.equal(req.headers.get("host"), `127.0.0.1:${server.port}`);
  } finally {
    await server.close();
  }
});

Deno.test("a document without client_name is named by its host; grant types and scope are read", async () => {
  const server = serve((_req, base) =>
    Response.json({
      client_id: `${base}/c.json`,
      redirect_uris: ["https://app.example.com/cb"],
      grant_types: ["authorization_code", "refresh_token"],
      scope: "openid  profile workspace openid",
    }, { headers: { "content-type": "application/json; charset=utf-8" } })
  );
  try {
    const got = await fetcher().get(`${server.base}/c.json`);
    assert.equal(got.name, `127.0.0.1:${server.port}`);
    assert.deepEqual(got.grantTypes, ["authorization_code", "refresh_token"]);
    assert.deepEqual(got.scopes, ["openid", "profile", "workspace"]);
    assert.equal(got.loopbackRedirectsOnly, false);
    assert.equal(got.clientUri, null);
    assert.equal(got.logoUri, null);
  } finally {
    await server.close();
  }
});

Deno.test("a chunked document is reassembled; IPv6 loopback literals connect to [::1]", async () => {
  const server = serve((_req, base) => {
    const text = JSON.stringify(doc(`${base}/c.json`, { client_name: "Chunked client" }));
    const pieces = [text.slice(0, 10), text.slice(10, 40), text.slice(40)];
    return new Response(
      new ReadableStream<Uint8Array>({
        pull(c) {
          const next = pieces.shift();
          if (next === undefined) c.close();
          else c.enqueue(new TextEncoder().encode(next));
        },
      }),
      { headers: { "content-type": "application/json" } },
    );
  });
  try {
    assert.equal((await fetcher().get(`${server.base}/c.json`)).name, "Chunked client");
  } finally {
    await server.close();
  }
  const v6: Deno.HttpServer<Deno.NetAddr> = Deno.serve(
    { hostname: "::1", port: 0, onListen() {} },
    (): Response => Response.json(doc(`http://[::1]:${v6.addr.port}/c.json`)),
  );
  try {
    const got = await fetcher().get(`http://[::1]:${v6.addr.port}/c.json`);
    assert.equal(got.host, `[::1]:${v6.addr.port}`);
    assert.equal(got.name, "Test MCP client");
  } finally {
    await v6.shutdown();
  }
});

Deno.test("document validation: client_id match, redirect URIs, public clients only, grant types", async () => {
  let body: (base: string) => unknown = () => ({});
  const server = serve((_req, base) => Response.json(body(base)));
  try {
    const url = `${server.base}/c.json`;
    const prefix = `client metadata document ${url}: `;
    const cases: [(base: string) => unknown, string | RegExp][] = [
      [(b) => doc(`${b}/c.json/`), `the document's client_id (${url}/) is not exactly its URL`],
      [
        (b) => doc(`${b.replace("127.0.0.1", "localhost")}/c.json`),
        /: the document's client_id \(http:\/\/localhost:\d+\/c\.json\) is not exactly its URL$/,
      ],
      [() => ({ client_name: "x", redirect_uris: [REDIRECT] }), "the document has no client_id"],
      [(b) => ({ client_id: `${b}/c.json` }), "redirect_uris must list at least one URI"],
      [(b) => doc(`${b}/c.json`, { redirect_uris: [] }), "redirect_uris must list at least one URI"],
      [(b) => doc(`${b}/c.json`, { redirect_uris: REDIRECT }), "redirect_uris must list at least one URI"],
      [
        (b) => doc(`${b}/c.json`, { redirect_uris: [42] }),
        "redirect_uris entries must be strings of at most 2000 characters",
      ],
      [
        (b) => doc(`${b}/c.json`, { redirect_uris: ["http://app.example.com/cb"] }),
        "redirect_uris: http://app.example.com/cb may use http only for loopback hosts",
      ],
      [
        (b) => doc(`${b}/c.json`, { redirect_uris: ["https://app.example.com/cb#x"] }),
        "redirect_uris: https://app.example.com/cb#x must not contain a fragment",
      ],
      [
        (b) => doc(`${b}/c.json`, { redirect_uris: Array(21).fill(REDIRECT) }),
        "redirect_uris must list at most 20 URIs",
      ],
      [
        (b) => doc(`${b}/c.json`, { token_endpoint_auth_method: "client_secret_basic" }),
        "token_endpoint_auth_method client_secret_basic is not allowed: Portico accepts only public clients " +
        "(none) from client metadata documents",
      ],
      [
        (b) => doc(`${b}/c.json`, { token_endpoint_auth_method: "client_secret_post" }),
        "token_endpoint_auth_method client_secret_post is not allowed: Portico accepts only public clients " +
        "(none) from client metadata documents",
      ],
      [
        (b) =>
          doc(`${b}/c.json`, {
            token_endpoint_auth_method: "private_key_jwt",
            jwks_uri: "https://a.example/j",
          }),
        "token_endpoint_auth_method private_key_jwt is not allowed: Portico accepts only public clients " +
        "(none) from client metadata documents",
      ],
      [
        (b) => doc(`${b}/c.json`, { client_secret: "s3cret" }),
        "the document must not contain client_secret (a shared secret cannot be published)",
      ],
      [
        (b) => doc(`${b}/c.json`, { jwks: { keys: [] } }),
        "the document must not contain jwks: Portico does not support private_key_jwt, only public clients",
      ],
      [
        (b) => doc(`${b}/c.json`, { grant_types: ["client_credentials"] }),
        "grant type client_credentials is not supported (authorization_code, refresh_token)",
      ],
      [
        (b) => doc(`${b}/c.json`, { grant_types: ["refresh_token"] }),
        "grant_types must include authorization_code",
      ],
      [(b) => doc(`${b}/c.json`, { response_types: ["token"] }), "response_types may only contain code"],
      [(b) => doc(`${b}/c.json`, { client_name: "" }), "client_name must be 1-200 characters"],
      [
        (b) => doc(`${b}/c.json`, { client_name: "Good\u202eevil" }),
        "client_name must not contain control or text-direction characters",
      ],
      [
        (b) => doc(`${b}/c.json`, { scope: ["openid"] }),
        "scope must be a space-separated string of at most 2000 characters",
      ],
      [
        (b) => doc(`${b}/c.json`, { logo_uri: "http://app.example.com/l.png" }),
        "logo_uri must be an https URL",
      ],
      [(b) => doc(`${b}/c.json`, { client_uri: "javascript:alert(1)" }), "client_uri must be an http(s) URL"],
      [() => [1, 2], "the document must be a JSON object"],
    ];
    for (const [make, expected] of cases) {
      body = make;
      // A fresh fetcher each time: failures are remembered for 30 s.
      await refused(fetcher().get(url), typeof expected === "string" ? prefix + expected : expected);
    }
  } finally {
    await server.close();
  }
});

Deno.test("HTTP answers: redirects, errors, content types and encodings are refused", async () => {
  let answer: () => Response = () => new Response();
  const server = serve(() => answer());
  try {
    const url = `${server.base}/c.json`;
    const prefix = `client metadata document ${url}: `;
    for (const status of [301, 302, 303, 307, 308]) {
      answer = () => new Response(null, { status, headers: { location: `${server.base}/elsewhere.json` } });
      await refused(
        fetcher().get(url),
        `${prefix}redirects are not followed (the server answered ${status})`,
      );
    }
    assert.equal(server.requests.some((r) => r.path === "/elsewhere.json"), false, "never followed");
    answer = () => new Response("gone", { status: 404 });
    await refused(fetcher().get(url), `${prefix}the server answered 404; 200 is required`);
    answer = () => new Response(JSON.stringify(doc(url)), { headers: { "content-type": "text/html" } });
    await refused(
      fetcher().get(url),
      `${prefix}the document must be served as application/json (got text/html)`,
    );
    answer = () => new Response(JSON.stringify(doc(url)));
    await refused(
      fetcher().get(url),
      `${prefix}the document must be served as application/json (got text/plain)`,
    );
    answer = () => new Response("{not json", { headers: { "content-type": "application/json" } });
    await refused(fetcher().get(url), `${prefix}the document is not valid JSON`);
    answer = () =>
      new Response(new Uint8Array([0x7b, 0xff, 0x7d]), { headers: { "content-type": "application/json" } });
    await refused(fetcher().get(url), `${prefix}the document is not valid JSON`);
    answer = () =>
      new Response(JSON.stringify(doc(url)), {
        headers: { "content-type": "application/json", "content-encoding": "gzip" },
      });
    await refused(fetcher().get(url), `${prefix}the document is content-encoded (gzip)`);
    // A more specific +json type is accepted (the draft allows application/<AS-defined>+json).
    answer = () =>
      new Response(JSON.stringify(doc(url)), {
        headers: { "content-type": "application/client-metadata+json" },
      });
    assert.equal((await fetcher().get(url)).clientId, url);
  } finally {
    await server.close();
  }
});

Deno.test("size: 5120 bytes pass, one more is refused, whatever Content-Length says or when it never ends", async () => {
  const exact = (url: string, size: number) => {
    const base = JSON.stringify(doc(url, { padding: "" }));
    return JSON.stringify(doc(url, { padding: "x".repeat(size - base.length) }));
  };
  let answer: (base: string) => Response = () => new Response();
  const server = serve((_req, base) => answer(base));
  const url = `${server.base}/c.json`;
  const prefix = `client metadata document ${url}: `;
  try {
    answer = () => new Response(exact(url, 5120), { headers: { "content-type": "application/json" } });
    assert.equal(exact(url, 5120).length, 5120);
    assert.equal((await fetcher().get(url)).clientId, url);
    answer = () => new Response(exact(url, 5121), { headers: { "content-type": "application/json" } });
    await refused(fetcher().get(url), `${prefix}the document is larger than 5120 bytes`);
    // Chunked, and it never ends: reading stops at the limit.
    let pulled = 0;
    answer = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(c) {
            pulled++;
            c.enqueue(new TextEncoder().encode(" ".repeat(1024)));
          },
        }),
        { headers: { "content-type": "application/json" } },
      );
    await refused(fetcher().get(url), `${prefix}the document is larger than 5120 bytes`);
    assert.ok(pulled > 5, "the body streamed");
    // A lower limit applies the same way.
    answer = () => new Response(exact(url, 700), { headers: { "content-type": "application/json" } });
    await refused(fetcher({ maxBytes: 600 }).get(url), `${prefix}the document is larger than 600 bytes`);
  } finally {
    await server.close();
  }

  const big = (u: string) => exact(u, 6000);
  // No Content-Length and no chunking: the body runs until the server closes; reading stops past the limit.
  const unframed = rawServer(async (conn) => {
    await conn.write(new TextEncoder().encode("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"));
    for (;;) await conn.write(new TextEncoder().encode(" ".repeat(1024)));
  });
  try {
    await refused(
      fetcher().get(`${unframed.base}/c.json`),
      `client metadata document ${unframed.base}/c.json: the document is larger than 5120 bytes`,
    );
  } finally {
    await unframed.close();
  }
  // An honest Content-Length over the limit is refused before the body is read.
  const honest = rawServer(async (conn) => {
    const body = big(`${honest.base}/c.json`);
    await conn.write(
      new TextEncoder().encode(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      ),
    );
    await conn.write(new TextEncoder().encode(body));
  });
  try {
    await refused(
      fetcher().get(`${honest.base}/c.json`),
      `client metadata document ${honest.base}/c.json: the document is larger than 5120 bytes`,
    );
  } finally {
    await honest.close();
  }
  // A lying Content-Length (100) in front of a 6000-byte document: only 100 bytes are read, which is not JSON.
  const liar = rawServer(async (conn) => {
    await conn.write(
      new TextEncoder().encode(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n",
      ),
    );
    await conn.write(new TextEncoder().encode(big(`${liar.base}/c.json`)));
    for (;;) await conn.write(new TextEncoder().encode(" ".repeat(1024)));
  });
  try {
    await refused(
      fetcher().get(`${liar.base}/c.json`),
      `client metadata document ${liar.base}/c.json: the document is not valid JSON`,
    );
  } finally {
    await liar.close();
  }
});

Deno.test("a server that does not answer, or answers slowly, runs into the deadline", async () => {
  const silent = rawServer(async (conn) => {
    await conn.read(new Uint8Array(16)); // waits until Portico hangs up
  });
  const dribble = rawServer(async (conn) => {
    await conn.write(new TextEncoder().encode("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"));
    for (;;) {
      await new Promise((r) => setTimeout(r, 20));
      await conn.write(new TextEncoder().encode(" "));
    }
  });
  try {
    await refused(
      fetcher({ timeoutMs: 200 }).get(`${silent.base}/c.json`),
      `client metadata document ${silent.base}/c.json: no answer within 200 ms`,
    );
    await refused(
      fetcher({ timeoutMs: 200 }).get(`${dribble.base}/c.json`),
      `client metadata document ${dribble.base}/c.json: no answer within 200 ms`,
    );
  } finally {
    await silent.close();
    await dribble.close();
  }
});

Deno.test("plain http is refused unless the issuer is on loopback; nothing is fetched", async () => {
  const server = serve((_req, base) => Response.json(doc(`${base}/c.json`)));
  try {
    const url = `${server.base}/c.json`;
    await refused(
      createMetadataDocumentFetcher({ issuer: PUBLIC_ISSUER }).get(url),
      "client_id must be an https URL (plain http only for loopback hosts while Portico runs on loopback)",
    );
    assert.equal(server.hits(), 0);
    assert.equal((await fetcher().get(url)).clientId, url);
    assert.equal(server.hits(), 1);
  } finally {
    await server.close();
  }
});

Deno.test("SSRF: a host resolving to a special address is refused before any connection", async () => {
  const cases: [string[], string][] = [
    [["10.0.0.1"], "10.0.0.1, a private address"],
    [["169.254.169.254"], "169.254.169.254, a link-local address"],
    [["::1"], "::1, a loopback address"],
    [["::ffff:127.0.0.1"], "::ffff:127.0.0.1, a loopback address (IPv4-mapped)"],
    [["127.0.0.1"], "127.0.0.1, a loopback address"],
    [["100.64.1.1"], "100.64.1.1, a shared (carrier-grade NAT) address"],
    [["fd12:3456::1"], "fd12:3456::1, a unique local (private) address"],
    [["0.0.0.0"], "0.0.0.0, a 'this network' address"],
    // Every address is checked, not just the first.
    [["93.184.215.14", "10.0.0.1"], "10.0.0.1, a private address"],
  ];
  for (const [addresses, reason] of cases) {
    const asked: string[] = [];
    const f = createMetadataDocumentFetcher({
      issuer: PUBLIC_ISSUER,
      resolve: (host) => {
        asked.push(host);
        return Promise.resolve(addresses);
      },
    });
    await refused(
      f.get("https://evil.example.com/client.json"),
      `client metadata document https://evil.example.com/client.json: host evil.example.com resolves to ${reason}; ` +
        "documents are fetched only from public addresses",
    );
    assert.deepEqual(asked, ["evil.example.com"]);
  }
  // IP literals are checked without DNS.
  const noDns = createMetadataDocumentFetcher({
    issuer: PUBLIC_ISSUER,
    resolve: () => Promise.reject(new Error("must not be asked")),
  });
  await refused(
    noDns.get("https://169.254.169.254/latest/meta-data"),
    /host 169\.254\.169\.254 resolves to 169\.254\.169\.254, a link-local address;/,
  );
  await refused(
    noDns.get("https://[::ffff:7f00:1]/c.json"),
    /resolves to ::ffff:7f00:1, a loopback address \(IPv4-mapped\)/,
  );
  await refused(noDns.get("https://10.1.2.3:8443/c.json"), /resolves to 10\.1\.2\.3, a private address/);
  await refused(noDns.get("https://[fe80::1]/c.json"), /resolves to fe80::1, a link-local address/);
  // A loopback issuer exempts loopback only.
  await refused(
    createMetadataDocumentFetcher({ issuer: LOOPBACK_ISSUER, resolve: () => Promise.resolve(["10.0.0.1"]) })
      .get("https://dev.example.com/c.json"),
    /resolves to 10\.0\.0\.1, a private address/,
  );
  // A host that does not resolve.
  await refused(
    createMetadataDocumentFetcher({ issuer: PUBLIC_ISSUER, resolve: () => Promise.resolve([]) })
      .get("https://nowhere.example.com/c.json"),
    "client metadata document https://nowhere.example.com/c.json: host nowhere.example.com does not resolve",
  );
});

Deno.test("https: the connection goes to the resolved address, TLS is verified against the URL's host", async () => {
  const server = serve((req) => {
    const u = new URL(req.url);
    return Response.json(doc(`https://${req.headers.get("host")}${u.pathname}`));
  }, true);
  try {
    const asked: string[] = [];
    const f = createMetadataDocumentFetcher({
      issuer: LOOPBACK_ISSUER,
      caCerts: [TEST_CA],
      resolve: (host) => {
        asked.push(host);
        return Promise.resolve(["127.0.0.1"]);
      },
    });
    // cimd.test is a reserved name no DNS server answers: only the resolve seam's address can be reached.
    const url = `https://cimd.test:${server.port}/client.json`;
    const got = await f.get(url);
    assert.equal(got.clientId, url);
    assert.equal(got.host, `cimd.test:${server.port}`);
    assert.deepEqual(asked, ["cimd.test"]);
    assert.equal(server.requests[0].headers.get("host"), `cimd.test:${server.port}`);
    // The same address under a name the certificate does not carry.
    await refused(
      f.get(`https://other.test:${server.port}/client.json`),
      new RegExp(
        `^client metadata document https://other\\.test:${server.port}/client\\.json: TLS with other\\.test:` +
          `${server.port} failed \\(.*certificate`,
      ),
    );
    // Without the test CA the certificate is not trusted.
    await refused(
      createMetadataDocumentFetcher({
        issuer: LOOPBACK_ISSUER,
        resolve: () => Promise.resolve(["127.0.0.1"]),
      })
        .get(url),
      /TLS with cimd\.test:\d+ failed \(.*certificate/,
    );
    // localhost is never asked of DNS (RFC 6761) and works over TLS too.
    const local = `https://localhost:${server.port}/client.json`;
    assert.equal((await f.get(local)).host, `localhost:${server.port}`);
    assert.deepEqual(asked, ["cimd.test", "other.test"]);
  } finally {
    await server.close();
  }
});

Deno.test("cache: a second get does not fetch; the TTL from Cache-Control expires with the clock", async () => {
  let cacheControl: string | null = "max-age=120";
  const server = serve((_req, base) =>
    Response.json(doc(`${base}/c.json`), { headers: cacheControl ? { "cache-control": cacheControl } : {} })
  );
  try {
    let clock = 1_000_000;
    const f = fetcher({ now: () => clock });
    const url = `${server.base}/c.json`;
    const first = await f.get(url);
    assert.equal(await f.get(url), first, "the same cached object");
    assert.equal(server.hits(), 1);
    clock += 119_999;
    await f.get(url);
    assert.equal(server.hits(), 1, "still fresh just before max-age");
    clock += 2;
    await f.get(url);
    assert.equal(server.hits(), 2, "refetched after max-age");
    // No Cache-Control: five minutes.
    cacheControl = null;
    clock += 121_000;
    await f.get(url);
    assert.equal(server.hits(), 3);
    clock += 299_999;
    await f.get(url);
    assert.equal(server.hits(), 3);
    clock += 2;
    await f.get(url);
    assert.equal(server.hits(), 4);
    // no-store is held for the 60 s minimum.
    cacheControl = "no-store";
    clock += 300_001;
    await f.get(url);
    assert.equal(server.hits(), 5);
    clock += 59_999;
    await f.get(url);
    assert.equal(server.hits(), 5);
    clock += 2;
    await f.get(url);
    assert.equal(server.hits(), 6);
  } finally {
    await server.close();
  }
});

Deno.test("cache: least recently used entries are evicted past maxEntries", async () => {
  const server = serve((req, base) => Response.json(doc(`${base}${new URL(req.url).pathname}`)));
  try {
    const f = fetcher({ maxEntries: 2 });
    const hitsFor = (p: string) => server.requests.filter((r) => r.path === p).length;
    const [a, b, c] = ["/a.json", "/b.json", "/c.json"].map((p) => `${server.base}${p}`);
    await f.get(a);
    await f.get(b);
    await f.get(a); // a is now the most recently used
    await f.get(c); // evicts b
    assert.equal(server.hits(), 3);
    await f.get(a);
    await f.get(c);
    assert.equal(server.hits(), 3, "a and c are cached");
    await f.get(b);
    assert.equal(hitsFor("/b.json"), 2, "b was evicted and fetched again");
  } finally {
    await server.close();
  }
});

Deno.test("concurrent gets of one URL share one fetch; distinct fetches at once are bounded", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  const server = serve(async (req, base) => {
    await gate;
    return Response.json(doc(`${base}${new URL(req.url).pathname}`));
  });
  try {
    const f = fetcher({ maxConcurrentFetches: 1 });
    const url = `${server.base}/c.json`;
    const all = Array.from({ length: 5 }, () => f.get(url));
    await refused(
      f.get(`${server.base}/other.json`),
      "too many client metadata documents are being fetched at once; try again in a moment",
    );
    release();
    const docs = await Promise.all(all);
    assert.equal(server.hits(), 1);
    assert.ok(docs.every((d) => d === docs[0]));
    assert.equal((await f.get(`${server.base}/other.json`)).clientId, `${server.base}/other.json`);
  } finally {
    release();
    await server.close();
  }
});

Deno.test("new fetches per minute are budgeted; cached documents are not counted", async () => {
  const server = serve((req, base) => Response.json(doc(`${base}${new URL(req.url).pathname}`)));
  try {
    let clock = 9_000_000;
    const f = fetcher({ now: () => clock, maxFetchesPerMinute: 2 });
    await f.get(`${server.base}/a.json`);
    await f.get(`${server.base}/b.json`);
    await refused(
      f.get(`${server.base}/c.json`),
      "too many new client metadata documents this minute; try again in a minute",
    );
    assert.equal(server.hits(), 2, "the refused URL was not fetched");
    await f.get(`${server.base}/a.json`); // cached: served, not counted
    assert.equal(server.hits(), 2);
    clock += 60_000;
    assert.equal((await f.get(`${server.base}/c.json`)).clientId, `${server.base}/c.json`);
    assert.equal(server.hits(), 3);
  } finally {
    await server.close();
  }
});

Deno.test("negative cache: a failure is remembered briefly, then the URL is fetched again", async () => {
  let good = false;
  const server = serve((_req, base) =>
    good ? Response.json(doc(`${base}/c.json`)) : new Response("no", { status: 404 })
  );
  try {
    let clock = 5_000_000;
    const f = fetcher({ now: () => clock });
    const url = `${server.base}/c.json`;
    const expected = `client metadata document ${url}: the server answered 404; 200 is required`;
    await refused(f.get(url), expected);
    good = true; // fixed, but the failure is remembered for 30 s
    clock += 29_999;
    await refused(f.get(url), expected);
    assert.equal(server.hits(), 1);
    clock += 2;
    assert.equal((await f.get(url)).clientId, url);
    assert.equal(server.hits(), 2);
    // URL problems are not fetched at all, so nothing needs remembering.
    await refused(f.get(`${server.base}/c.json#x`), "client_id must not contain a fragment");
    assert.equal(server.hits(), 2);
  } finally {
    await server.close();
  }
});

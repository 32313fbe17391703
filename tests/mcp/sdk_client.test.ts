// The official SDK client (Client + StreamableHTTPClientTransport) against a real listening server, both variants;
// its OAuth `auth()` started from the issuer and from the /mcp URL (RFC 9728 discovery, issue 23 point 6).
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { decodeJwt } from "jose";
import { testApp } from "../helpers/app.ts";
import { operatorClient, TEST_ISSUER } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, MCP_URL, mcpApp, type Variant } from "../helpers/mcp.ts";
import { authorizeThrough, Browser, REDIRECT } from "../oauth/helpers.ts";
import { MemoryProvider } from "../helpers/oauth_host.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());

interface Seen {
  method: string;
  status: number;
  protocolHeader: string | null;
}

/** Serves variant `variant` on 127.0.0.1:0 and connects an SDK client; `version` rewrites the client's offer. */
function connect(variant: Variant, key: string, version?: string) {
  const app = mcpApp(db.sql, variant);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => app.request(req),
  );
  const seen: Seen[] = [];
  const fetchSpy = async (input: string | URL | Request, init?: RequestInit) => {
    let body = init?.body;
    if (version && typeof body === "string" && body.includes('"initialize"')) {
      const msg = JSON.parse(body);
      msg.params.protocolVersion = version; // what an older client would offer
      body = JSON.stringify(msg);
    }
    const res = await fetch(input, { ...init, body });
    const headers = new Headers(init?.headers);
    seen.push({
      method: init?.method ?? "GET",
      status: res.status,
      protocolHeader: headers.get("mcp-protocol-version"),
    });
    return res;
  };
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.addr.port}/mcp`), {
    requestInit: { headers: { "x-api-key": key } },
    fetch: fetchSpy,
  });
  const client = new Client({ name: "portico-test", version: "1.0.0" });
  return {
    client,
    transport,
    seen,
    async close() {
      await client.close().catch(() => {});
      await server.shutdown();
    },
  };
}

for (const version of ["2025-03-26", "2025-06-18", "2025-11-25"]) {
  Deno.test(`SDK client: handshake, tools/list, tools/call and ping in protocol ${version}`, async () => {
    const c = connect("A", f.keys.owner, version);
    try {
      await c.client.connect(c.transport);
      assert.equal(c.transport.protocolVersion, version);
      assert.deepEqual(
        c.client.getServerVersion(),
        version === "2025-03-26" ? { name: "portico", version: "0.1.0" } : {
          name: "portico",
          title: "Portico",
          version: "0.1.0",
          websiteUrl: "http://localhost:8000",
        },
      );
      assert.deepEqual(c.client.getServerCapabilities(), { tools: { listChanged: false }, resources: {} });
      const { tools } = await c.client.listTools();
      for (
        const name of [
          "list_projects",
          "get_project",
          "create_project",
          "update_project",
          "update_project_status",
        ]
      ) {
        const t = tools.find((x: { name: string }) => x.name === name);
        assert.ok(t, name);
        assert.equal(typeof t.annotations?.readOnlyHint, "boolean");
      }
      const made = await c.client.callTool({
        name: "create_project",
        arguments: { name: `SDK ${version}`, budget: 10 },
      });
      assert.equal(made.isError, undefined);
      const project = made.structuredContent as { id: string; name: string };
      assert.equal(project.name, `SDK ${version}`);
      const got = await c.client.callTool({ name: "get_project", arguments: { projectId: project.id } });
      assert.deepEqual(JSON.parse((got.content as { text: string }[])[0].text), project);
      const list = await c.client.callTool({ name: "list_projects", arguments: {} });
      assert.ok(
        JSON.parse((list.content as { text: string }[])[0].text).some((p: { id: string }) =>
          p.id === project.id
        ),
      );
      const bad = await c.client.callTool({ name: "get_project", arguments: { projectId: "nope" } });
      assert.equal(bad.isError, true);
      assert.match((bad.content as { text: string }[])[0].text, /^invalid_input: projectId: must be a UUID/);
      assert.deepEqual(await c.client.ping(), {});
      await assert.rejects(
        c.client.callTool({ name: "no_such_tool", arguments: {} }),
        (e: Error & { code?: number }) => {
          assert.equal(e.code, -32602);
          return true;
        },
      );
      // initialize carries no header; every later POST names the negotiated version; the optional GET stream → 405
      const posts = c.seen.filter((s) => s.method === "POST");
      assert.equal(posts[0].protocolHeader, null);
      for (const p of posts.slice(1)) assert.equal(p.protocolHeader, version);
      assert.equal(posts[1].status, 202, "notifications/initialized");
      for (const g of c.seen.filter((s) => s.method === "GET")) assert.equal(g.status, 405);
    } finally {
      await c.close();
    }
  });
}

Deno.test("SDK client, variant B: a workspace key connects and sees the Projects tools", async () => {
  const c = connect("B", f.keys.workspace);
  try {
    await c.client.connect(c.transport);
    const names = (await c.client.listTools()).tools.map((t: { name: string }) => t.name);
    assert.ok(names.includes("list_projects") && names.includes("create_project"));
    const r = await c.client.callTool({ name: "create_project", arguments: { name: "B via SDK" } });
    assert.equal((r.structuredContent as { createdBy: string | null }).createdBy, null);
  } finally {
    await c.close();
  }
});

Deno.test("SDK client: refused keys fail the connection with 403 (unknown, revoked, legacy workspace key in A)", async () => {
  for (
    const [variant, key, status] of [
      ["A", `pak_${"x".repeat(43)}`, 403],
      ["B", f.keys.revoked, 403],
      ["A", f.keys.workspace, 403],
    ] as const
  ) {
    const c = connect(variant, key);
    try {
      await assert.rejects(c.client.connect(c.transport));
      assert.equal(c.seen[0].status, status);
    } finally {
      await c.close();
    }
  }
});

Deno.test("SDK client: a tool the role may not use is absent and answers access_denied", async () => {
  const c = connect("A", f.keys.guest);
  try {
    await c.client.connect(c.transport);
    const names = (await c.client.listTools()).tools.map((t: { name: string }) => t.name);
    assert.ok(!names.includes("list_projects"));
    const r = await c.client.callTool({ name: "list_projects", arguments: {} });
    assert.equal(r.isError, true);
    assert.match(
      (r.content as { text: string }[])[0].text,
      /^access_denied: the guest role may not use projects/,
    );
  } finally {
    await c.close();
  }
});

type Client_ = ReturnType<typeof connect>["client"];

async function withClient<T>(variant: Variant, key: string, fn: (client: Client_) => Promise<T>): Promise<T> {
  const c = connect(variant, key);
  try {
    await c.client.connect(c.transport);
    return await fn(c.client);
  } finally {
    await c.close();
  }
}

async function callText(client: Client_, name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, text: (r.content as { text: string }[])[0].text };
}

const names = async (client: Client_) =>
  (await client.listTools()).tools.map((t: { name: string }) => t.name);

Deno.test("SDK client: a missing key fails with 401 (challenge), a malformed one with 403", async () => {
  for (const [key, status] of [["", 401], ["pak_nope", 403]] as const) {
    const c = connect("A", key);
    try {
      await assert.rejects(c.client.connect(c.transport));
      assert.equal(c.seen[0].status, status);
    } finally {
      await c.close();
    }
  }
});

Deno.test("SDK client: the six permission rules, both variants", async () => {
  // records in company a and b, made by the owner
  const inA = await withClient(
    "A",
    f.keys.owner,
    async (cl) =>
      (await cl.callTool({ name: "create_project", arguments: { name: "sdk a", companyId: f.companies.a } }))
        .structuredContent as { id: string },
  );
  const inB = await withClient(
    "A",
    f.keys.owner,
    async (cl) =>
      (await cl.callTool({ name: "create_project", arguments: { name: "sdk b", companyId: f.companies.b } }))
        .structuredContent as { id: string },
  );

  // 1. key binding: A acts as the creator; B workspace keys act for the workspace, internal keys as their user
  await withClient("A", f.keys.member, async (cl) => {
    const r = await callText(cl, "create_project", { name: "sdk by member" });
    assert.equal(JSON.parse(r.text).createdBy, f.users.member);
  });
  await withClient("B", f.keys.internal, async (cl) => {
    const r = await callText(cl, "create_project", { name: "sdk by assistant" });
    assert.equal(JSON.parse(r.text).createdBy, f.users.owner);
  });

  // 2. user-context tools: A with a user-bound key; B only internal keys
  await withClient("A", f.keys.member, async (cl) => assert.ok((await names(cl)).includes("create_task")));
  await withClient("B", f.keys.internal, async (cl) => assert.ok((await names(cl)).includes("create_task")));
  for (const key of [f.keys.workspace, f.keys.owner]) {
    await withClient("B", key, async (cl) => {
      assert.ok(!(await names(cl)).includes("create_task"));
      const r = await callText(cl, "create_task", { title: "x" });
      assert.equal(r.isError, true);
      assert.match(r.text, /^access_denied: create_task acts as a person/);
    });
  }

  // 3. role gating in A only
  await withClient("B", f.keys.guest, async (cl) => {
    assert.ok((await names(cl)).includes("list_projects"));
    assert.equal((await callText(cl, "list_projects", {})).isError, false);
  });
  await withClient("A", f.keys.member, async (cl) => assert.ok((await names(cl)).includes("list_projects")));

  // 4. module gating in A only
  await db.sql`update workspaces set modules = array_remove(modules, 'projects') where id = ${f.workspaceId}`;
  try {
    await withClient("A", f.keys.owner, async (cl) => {
      assert.ok(!(await names(cl)).includes("list_projects"));
      const r = await callText(cl, "list_projects", {});
      assert.match(r.text, /^unavailable: the projects module is disabled/);
    });
    await withClient("B", f.keys.owner, async (cl) => {
      assert.equal((await callText(cl, "list_projects", {})).isError, false);
    });
  } finally {
    await db.sql`update workspaces set modules = modules || '{projects}' where id = ${f.workspaceId}`;
  }

  // 5. company scope and 6. workspace isolation, both variants
  const scoped: Array<[Variant, string]> = [
    ["A", f.keys.limited],
    ["A", f.keys.ownerCompanyA],
    ["B", f.keys.limited],
    ["B", f.keys.workspaceCompanyA],
  ];
  for (const [variant, key] of scoped) {
    await withClient(variant, key, async (cl) => {
      assert.equal((await callText(cl, "get_project", { projectId: inA.id })).isError, false);
      const r = await callText(cl, "get_project", { projectId: inB.id });
      assert.match(r.text, /^not_found: /);
      const list = JSON.parse((await callText(cl, "list_projects", { limit: 500 })).text) as { id: string }[];
      assert.ok(!list.some((p) => p.id === inB.id));
    });
  }
  for (const variant of ["A", "B"] as const) {
    await withClient(variant, f.other.key, async (cl) => {
      assert.match((await callText(cl, "get_project", { projectId: inA.id })).text, /^not_found: /);
      assert.match(
        (await callText(cl, "update_project_status", { projectId: inA.id, status: "invoiced" })).text,
        /^not_found: /,
      );
    });
  }
});

/** The host's in-memory provider (tests/helpers/oauth_host.ts) for this file's redirect and client name. */
class SdkAuthProvider extends MemoryProvider {
  constructor(preset?: ConstructorParameters<typeof MemoryProvider>[2]) {
    super(REDIRECT, "SDK auth() test", preset);
  }
}

/** The whole app as the SDK's fetch: every URL under the issuer is answered by app.request(); each one recorded. */
function appFetch(app: ReturnType<typeof testApp>, seen: string[]) {
  return async (input: string | URL | Request, init?: RequestInit) => {
    const req = new Request(input, init);
    if (!req.url.startsWith(`${TEST_ISSUER}/`)) throw new Error(`unexpected fetch of ${req.url}`);
    const res = await app.request(req, undefined, { remoteAddr: { hostname: "198.51.100.9", port: 40001 } });
    seen.push(`${req.method} ${new URL(req.url).pathname} ${res.status}`);
    return res;
  };
}

/** Runs the SDK's auth() from `serverUrl`: discovery, the person's browser trip (sign-in, consent), the code. */
async function authorizeFrom(serverUrl: string, provider: MemoryProvider, seen: string[]) {
  const app = testApp(db.sql);
  const fetchFn = appFetch(app, seen);
  assert.equal(await auth(provider, { serverUrl, fetchFn }), "REDIRECT");
  assert.equal(provider.authorizationUrls.length, 1);
  const url = provider.authorizationUrls[0];
  const [{ email }] = await db.sql<{ email: string }[]>`select email from users where id = ${f.users.owner}`;
  const back = await authorizeThrough(new Browser(app), url.pathname + url.search, email, "allow", {
    password: "test password 123",
  });
  const code = back.searchParams.get("code");
  assert.ok(code, back.href);
  assert.equal(await auth(provider, { serverUrl, authorizationCode: code, fetchFn }), "AUTHORIZED");
  return { app, fetchFn, url, tokens: provider.tokens()! };
}

Deno.test("SDK auth() started from the issuer: no document at the root, so the authorization server at the origin; a token for the issuer", async () => {
  // Before issue 23 the root document named {ISSUER}/mcp and auth() refused it: "Protected resource
  // http://localhost:8000/mcp does not match expected http://localhost:8000/ (or origin)" (RFC 9728 §3.3).
  const seen: string[] = [];
  const provider = new SdkAuthProvider();
  const { app, url, tokens } = await authorizeFrom(TEST_ISSUER, provider, seen);
  assert.equal(seen[0], "GET /.well-known/oauth-protected-resource 404");
  assert.equal(seen[1], "GET /.well-known/oauth-authorization-server 200");
  assert.equal(url.searchParams.get("resource"), null, "nothing names a resource at the origin");
  const claims = decodeJwt(tokens.access_token);
  assert.equal(claims.aud, TEST_ISSUER);
  // The issuer's own resource, UserInfo, takes it.
  const ui = await app.request("/oauth/userinfo", {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  assert.equal(ui.status, 200);
  assert.equal((await ui.json()).sub, f.users.owner);
});

Deno.test("SDK auth() started from the /mcp URL: the path-suffixed document names /mcp; the token lists tools", async () => {
  const seen: string[] = [];
  const provider = new SdkAuthProvider({ client_id: await operatorClient(db.sql) });
  const { fetchFn, url, tokens } = await authorizeFrom(MCP_URL, provider, seen);
  assert.equal(seen[0], "GET /.well-known/oauth-protected-resource/mcp 200");
  assert.equal(url.searchParams.get("resource"), MCP_URL);
  assert.equal(url.searchParams.get("scope"), "workspace");
  assert.equal(decodeJwt(tokens.access_token).aud, MCP_URL);
  const client = new Client({ name: "portico-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider: provider, fetch: fetchFn }),
  );
  try {
    assert.ok((await client.listTools()).tools.some((t: { name: string }) => t.name === "list_projects"));
  } finally {
    await client.close();
  }
});

// export_contacts beyond INLINE_MAX_BYTES: a resource_link to a signed, short-lived, re-checked download.
import assert from "node:assert/strict";
import { Hono } from "hono";
import type { AuditEntry } from "../../lib/audit.ts";
import { parseConfig } from "../../lib/config.ts";
import { requestContext } from "../../lib/http/middleware.ts";
import type { AppEnv } from "../../lib/http/types.ts";
import { createExportRoutes } from "../../routes/exports.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CSV_BOM, csvRow } from "../../lib/csv.ts";
import { utf8Bytes } from "../../lib/json_bytes.ts";
import { silentLogger } from "../../lib/log.ts";
import { type Caller, loadCaller } from "../../lib/mcp/caller.ts";
import {
  createExportLinks,
  EXPORT_LINK_TTL_SECONDS,
  type LinkClaims,
  signLink,
  verifyLink,
} from "../../lib/mcp/exports.ts";
import { CONTACT_CSV_COLUMNS, getContact } from "../../lib/workspace/contacts.ts";
import { INLINE_MAX_BYTES } from "../../tools/export_contacts.ts";
import { TEST_RATE_LIMITS, TEST_SECRET, testApp } from "../helpers/app.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, type Fixture, mcpApp, type RequestTarget, rpc } from "../helpers/mcp.ts";

const db = await freshDatabase();
Deno.test.afterAll(() => db.close());
const app = mcpApp(db.sql, "A");

const NOT_FOUND = "Not Found: no such export. The link is incomplete or was altered.\n";
const EXPIRED = "Forbidden: this export link has expired. Call export_contacts again for a new one.\n";
const NO_ACCESS =
  "Forbidden: the credential that made this link can no longer export these contacts. Call export_contacts " +
  "again with a working credential.\n";

/** `n` contacts "Bulk 1" … "Bulk n" (Bulk 1 newest), in one statement. */
async function bulk(f: Fixture, n: number, companyId: string | null = null): Promise<void> {
  await db.sql`
    insert into contacts (workspace_id, company_id, contact_name, email, created_at)
    select ${f.workspaceId}, ${companyId}, 'Bulk ' || g, 'bulk' || g || '@x.test', now() - make_interval(secs => g)
      from generate_series(1, ${n}) g`;
}

// deno-lint-ignore no-explicit-any
async function exportCall(target: RequestTarget, key: string, args = {}, headers = {}): Promise<any> {
  const r = await rpc(target, key, "tools/call", { name: "export_contacts", arguments: args }, headers);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result.isError, undefined, JSON.stringify(r.body.result));
  return r.body.result;
}

async function download(target: RequestTarget, url: string, headers: Record<string, string> = {}) {
  const res = await target.request(url, { headers });
  const bytes = new Uint8Array(await res.arrayBuffer());
  // ignoreBOM: keep the BOM in the text, as the file has it
  return {
    status: res.status,
    headers: res.headers,
    bytes,
    text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes),
  };
}

async function callerOf(key: string): Promise<Caller> {
  const r = await loadCaller(db.sql, key, "A", silentLogger);
  assert.ok(r.ok);
  return r.caller;
}

function tokenOf(url: string): string {
  return new URL(url).searchParams.get("token")!;
}

Deno.test("below INLINE_MAX_BYTES the CSV is inline (embedded resource, exact bytes, BOM); one byte over, a link", async () => {
  const f = await buildFixture(db.sql);
  const [{ id }] = await db.sql<{ id: string }[]>`
    insert into contacts (workspace_id, company_name, contact_name, email, notes)
    values (${f.workspaceId}, 'Acme, Inc.', 'Ann Example', 'ann@acme.test', 'x') returning id`;
  const contact = await getContact(db.sql, await callerOf(f.keys.owner), id);
  const expected = CSV_BOM + csvRow(CONTACT_CSV_COLUMNS) + csvRow(CONTACT_CSV_COLUMNS.map((k) => contact[k]));
  assert.ok(expected.includes(`,"Acme, Inc.",Ann Example,`), "the row as a spreadsheet reads it");

  const small = await exportCall(app, f.keys.owner);
  assert.equal(small.content.length, 2);
  assert.equal(small.content[1].type, "resource");
  assert.equal(small.content[1].resource.mimeType, "text/csv");
  assert.equal(small.content[1].resource.text, expected);
  const bytes = utf8Bytes(expected);
  assert.deepEqual(small.structuredContent, {
    rows: 1,
    matched: 1,
    truncated: false,
    cutBy: null,
    bytes,
    uri: small.content[1].resource.uri,
    message: "1 contacts exported.",
  });
  assert.deepEqual(JSON.parse(small.content[0].text), small.structuredContent);

  // Older contacts with long notes, then Ann's notes grown so the file is exactly INLINE_MAX_BYTES: still inline.
  await db.sql`
    insert into contacts (workspace_id, contact_name, notes, created_at)
    select ${f.workspaceId}, 'Padding ' || g, repeat('p', 7000), now() - make_interval(days => g)
      from generate_series(1, 2) g`;
  const padded = await exportCall(app, f.keys.owner);
  assert.equal(padded.content[1].type, "resource");
  const gap = INLINE_MAX_BYTES - padded.structuredContent.bytes;
  assert.ok(gap > 0 && gap < 9000, `${gap}`);
  const notes = "x".repeat(1 + gap);
  await db.sql`update contacts set notes = ${notes} where id = ${id}`;
  const exact = await exportCall(app, f.keys.owner);
  assert.equal(exact.content[1].type, "resource");
  assert.equal(exact.structuredContent.bytes, INLINE_MAX_BYTES);
  assert.equal(utf8Bytes(exact.content[1].resource.text), INLINE_MAX_BYTES);

  // One byte more: a link, and the answer is small.
  await db.sql`update contacts set notes = ${notes + "x"} where id = ${id}`;
  const over = await exportCall(app, f.keys.owner);
  assert.equal(over.content[1].type, "resource_link");
  assert.equal(over.content[1].size, INLINE_MAX_BYTES + 1);
  assert.equal(over.structuredContent.bytes, INLINE_MAX_BYTES + 1);
  assert.ok(utf8Bytes(JSON.stringify(over)) < 4096, `${utf8Bytes(JSON.stringify(over))} bytes`);
  const file = await download(app, over.content[1].uri);
  assert.equal(file.status, 200);
  assert.equal(
    file.text,
    exact.content[1].resource.text.replace(`,${notes},`, `,${notes}x,`),
    "the same CSV, byte for byte",
  );
});

Deno.test("10,000 rows: a resource_link with rows, size and expiry; the download has the exact headers and rows", async () => {
  const f = await buildFixture(db.sql);
  await bulk(f, 10_003);
  const before = Math.floor(Date.now() / 1000);
  const result = await exportCall(app, f.keys.owner);
  const after = Math.floor(Date.now() / 1000);
  assert.equal(result.content.length, 2);
  const link = result.content[1];
  const summary = result.structuredContent;
  assert.deepEqual(JSON.parse(result.content[0].text), summary);
  assert.match(
    link.uri,
    /^http:\/\/localhost:8000\/exports\/contacts\.csv\?token=e1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/,
  );
  const verified = verifyLink(TEST_SECRET, tokenOf(link.uri));
  assert.ok(verified.ok);
  const exp = verified.claims.exp;
  assert.ok(exp >= before + EXPORT_LINK_TTL_SECONDS && exp <= after + EXPORT_LINK_TTL_SECONDS);
  const expiresAt = new Date(exp * 1000).toISOString();
  const caller = await callerOf(f.keys.owner);
  assert.deepEqual(verified.claims, {
    k: "contacts",
    ws: f.workspaceId,
    key: caller.keyId,
    sub: f.users.owner,
    f: { sortDirection: "desc" },
    exp,
  });
  assert.deepEqual(link, {
    type: "resource_link",
    uri: summary.uri,
    name: link.name,
    mimeType: "text/csv",
    size: summary.bytes,
    description: `Contacts export, 10000 rows, CSV (UTF-8 with BOM); the link expires at ${expiresAt}.`,
  });
  assert.match(link.name, /^contacts-\d{8}T\d{6}Z\.csv$/);
  const mb = (summary.bytes / 1_000_000).toFixed(1);
  assert.deepEqual(summary, {
    rows: 10000,
    matched: 10003,
    truncated: true,
    cutBy: "rows",
    bytes: summary.bytes,
    uri: link.uri,
    expiresAt,
    message:
      `10003 contacts matched; only the first 10000 were exported (limit 10000). Narrow the filter to ` +
      `export the rest. The CSV (10000 rows, ${mb} MB) is too large to show here: download it from uri within ` +
      `10 minutes (until ${expiresAt}). The download runs the export again with the same filter and your ` +
      "current access.",
  });
  assert.ok(summary.bytes > 1_000_000, `${summary.bytes} bytes`);
  assert.ok(utf8Bytes(JSON.stringify(result)) < 4096, "the answer stays small");

  const file = await download(app, link.uri);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get("content-type"), "text/csv; charset=utf-8");
  assert.match(
    file.headers.get("content-disposition")!,
    /^attachment; filename="contacts-\d{8}T\d{6}Z\.csv"$/,
  );
  assert.equal(file.headers.get("cache-control"), "no-store");
  assert.equal(file.headers.get("x-content-type-options"), "nosniff");
  assert.equal(file.headers.get("x-export-rows"), "10000");
  assert.equal(file.headers.get("x-export-matched"), "10003");
  assert.equal(file.headers.get("x-export-cut-by"), "rows");
  assert.deepEqual([...file.bytes.slice(0, 3)], [0xef, 0xbb, 0xbf], "UTF-8 BOM");
  assert.equal(file.bytes.length, summary.bytes, "the size the link announced");
  const lines = file.text.slice(1).split("\r\n");
  assert.equal(lines.length, 10002, "header + 10000 rows + the empty string after the last CRLF");
  assert.equal(lines[0], CONTACT_CSV_COLUMNS.join(","));
  assert.ok(lines[1].includes(",Bulk 1,"), "newest first");
  assert.ok(lines[10000].includes(",Bulk 10000,"));
});

Deno.test("the download runs the export again: current rows, the signed filter, the caller's company scope", async () => {
  const f = await buildFixture(db.sql);
  await bulk(f, 3000, f.companies.a);
  await bulk(f, 3000, f.companies.b);
  const result = await exportCall(app, f.keys.ownerCompanyA, { contactName: "bulk 1" });
  assert.equal(result.content[1].type, "resource_link");
  // Bulk 1, 10-19, 100-199, 1000-1999 in company a
  assert.equal(result.structuredContent.rows, 1111);
  await db.sql`
    insert into contacts (workspace_id, company_id, contact_name) values
      (${f.workspaceId}, ${f.companies.a}, 'Bulk 1 new'), (${f.workspaceId}, ${f.companies.b}, 'Bulk 1 other'),
      (${f.workspaceId}, ${f.companies.a}, 'Not matching')`;
  const file = await download(app, result.content[1].uri);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get("x-export-rows"), "1112");
  assert.equal(file.headers.get("x-export-cut-by"), "none");
  const rows = file.text.slice(1).split("\r\n").slice(1, -1);
  assert.equal(rows.length, 1112);
  assert.ok(rows[0].includes(",Bulk 1 new,"), "the contact added after the link, newest first");
  assert.ok(rows.every((r) => r.split(",")[1] === f.companies.a), "only the key's company");
});

Deno.test("tampered, truncated, foreign, misnamed and expired links are refused with a plain message", async () => {
  const f = await buildFixture(db.sql);
  await bulk(f, 400);
  const { content } = await exportCall(app, f.keys.owner);
  const url: string = content[1].uri;
  const token = tokenOf(url);
  const [v, payload, mac] = token.split(".");
  const at = (t: string) => `http://localhost:8000/exports/contacts.csv?token=${t}`;
  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
  const claims: LinkClaims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
  const reSigned = (c: LinkClaims, secret = TEST_SECRET) => signLink(secret, c);
  const refusals: [string, string, number, string][] = [
    ["payload altered", at(`${v}.${flip(payload, 10)}.${mac}`), 404, NOT_FOUND],
    ["signature altered", at(`${v}.${payload}.${flip(mac, 5)}`), 404, NOT_FOUND],
    ["signature cut", at(`${v}.${payload}.${mac.slice(0, -2)}`), 404, NOT_FOUND],
    ["no signature", at(`${v}.${payload}`), 404, NOT_FOUND],
    ["other version", at(`e2.${payload}.${mac}`), 404, NOT_FOUND],
    ["no token", "http://localhost:8000/exports/contacts.csv", 404, NOT_FOUND],
    [
      "signed with another SECRET_KEY",
      at(reSigned(claims, "another-secret-key-0123456789abcdef")),
      404,
      NOT_FOUND,
    ],
    [
      "another workspace written in",
      at(`${v}.${
        btoa(JSON.stringify({ ...claims, ws: f.other.workspaceId }))
          .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
      }.${mac}`),
      404,
      NOT_FOUND,
    ],
    ["other file name", url.replace("/contacts.csv", "/invoices.csv"), 404, NOT_FOUND],
    ["expired", at(reSigned({ ...claims, exp: Math.floor(Date.now() / 1000) - 1 })), 403, EXPIRED],
  ];
  for (const [what, u, status, message] of refusals) {
    const r = await download(app, u);
    assert.equal(r.status, status, what);
    assert.equal(r.text, message, what);
    assert.equal(r.headers.get("content-type"), "text/plain; charset=utf-8", what);
    assert.equal(r.headers.get("cache-control"), "no-store", what);
  }
  // A link made 10 minutes and 1 second ago by the signer itself.
  const old = createExportLinks({
    secretKey: TEST_SECRET,
    issuer: "http://localhost:8000",
    now: () => Date.now() - 601_000,
  })
    .sign("contacts", await callerOf(f.keys.owner), {});
  assert.equal((await download(app, old.url)).status, 403);
  // The genuine link still works.
  assert.equal((await download(app, url)).status, 200);
});

Deno.test("a validly signed link whose credential does not match its workspace or scope is refused", async () => {
  const f = await buildFixture(db.sql);
  await bulk(f, 400);
  const otherCaller = await callerOf(f.other.key);
  const own = await callerOf(f.keys.owner);
  const base = { k: "contacts" as const, f: {}, exp: Math.floor(Date.now() / 1000) + 60 };
  const cases: [string, LinkClaims][] = [
    ["the other workspace's key claiming this workspace", {
      ...base,
      ws: f.workspaceId,
      key: otherCaller.keyId!,
      sub: f.other.ownerId,
    }],
    ["this key claiming another user", { ...base, ws: f.workspaceId, key: own.keyId!, sub: f.users.admin }],
    ["this key claiming no company scope it has", {
      ...base,
      ws: f.workspaceId,
      key: own.keyId!,
      sub: f.users.owner,
      cs: f.companies.a,
    }],
    ["an unknown key", { ...base, ws: f.workspaceId, key: crypto.randomUUID(), sub: f.users.owner }],
  ];
  for (const [what, claims] of cases) {
    const r = await download(
      app,
      `http://localhost:8000/exports/contacts.csv?token=${signLink(TEST_SECRET, claims)}`,
    );
    assert.equal(r.status, 403, what);
    assert.equal(r.text, NO_ACCESS, what);
  }
  // The other workspace's own link exports its own contacts only (it has none).
  const theirs = createExportLinks({ secretKey: TEST_SECRET, issuer: "http://localhost:8000" })
    .sign("contacts", otherCaller, {});
  const r = await download(app, theirs.url);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("x-export-rows"), "0");
});

Deno.test("access lost between the link and the download: revoked key, removed member, role, toolsets, module, grant", async () => {
  const f = await buildFixture(db.sql);
  await bulk(f, 400);
  const linkOf = async (key: string) => (await exportCall(app, key)).content[1].uri as string;
  const refusedAfter = async (key: string, change: () => Promise<unknown>, what: string) => {
    const url = await linkOf(key);
    assert.equal((await download(app, url)).status, 200, `${what}: before`);
    await change();
    const r = await download(app, url);
    assert.equal(r.status, 403, what);
    assert.equal(r.text, NO_ACCESS, what);
  };
  const manager = await f.key({ user: f.users.manager });
  const managerKeyId = (await callerOf(manager)).keyId;
  await refusedAfter(
    manager,
    () => db.sql`update api_keys set revoked_at = now() where id = ${managerKeyId}`,
    "revoked key",
  );
  await refusedAfter(
    f.keys.member,
    () =>
      db.sql`delete from workspace_members where workspace_id = ${f.workspaceId} and user_id = ${f.users.member}`,
    "removed member",
  );
  await refusedAfter(
    f.keys.manager,
    () =>
      db.sql`update workspace_members set role = 'guest' where workspace_id = ${f.workspaceId} and user_id = ${f.users.manager}`,
    "role without the contacts area",
  );
  await refusedAfter(
    f.keys.admin,
    () =>
      db.sql`insert into role_permissions (workspace_id, area, roles) values (${f.workspaceId}, 'contacts', ${[
        "owner",
      ]})`,
    "area taken from the role",
  );
  const grant = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
  await refusedAfter(
    grant.auth,
    () => db.sql`update oauth_grants set revoked_at = now() where id = ${grant.grantId}`,
    "revoked grant",
  );
  const narrowed = await f.key({ user: f.users.owner });
  const narrowedId = (await callerOf(narrowed)).keyId;
  await refusedAfter(
    narrowed,
    () => db.sql`update api_keys set toolsets = ${["tasks"]} where id = ${narrowedId}`,
    "key limited to another toolset",
  );
  await refusedAfter(
    f.keys.owner,
    () => db.sql`update workspaces set modules = array_remove(modules, 'crm') where id = ${f.workspaceId}`,
    "crm module disabled",
  );
});

Deno.test("a Bearer caller's link names its grant; downloading needs no credential", async () => {
  const f = await buildFixture(db.sql);
  await bulk(f, 400);
  const grant = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
  const result = await exportCall(app, grant.auth);
  const v = verifyLink(TEST_SECRET, tokenOf(result.content[1].uri));
  assert.ok(v.ok);
  assert.deepEqual({ grant: v.claims.grant, client: v.claims.client, key: v.claims.key, sub: v.claims.sub }, {
    grant: grant.grantId,
    client: grant.clientId,
    key: undefined,
    sub: f.users.owner,
  });
  const r = await download(app, result.content[1].uri);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("x-export-rows"), "400");
});

Deno.test("protocol 2025-03-26 (no resource_link): the link comes as text naming the URL", async () => {
  const f = await buildFixture(db.sql);
  await bulk(f, 400);
  const result = await exportCall(app, f.keys.owner, {}, { "mcp-protocol-version": "2025-03-26" });
  const s = result.structuredContent;
  const name = (s.uri as string).length > 0 ? result.content[1].text.split(" ")[0] : "";
  assert.match(name, /^contacts-\d{8}T\d{6}Z\.csv$/);
  assert.deepEqual(result.content[1], {
    type: "text",
    text:
      `${name} (text/csv, ${s.bytes} bytes): ${s.uri}\nContacts export, 400 rows, CSV (UTF-8 with BOM); ` +
      `the link expires at ${s.expiresAt}.`,
  });
});

Deno.test("downloads count against the key's /mcp rate limit", async () => {
  const f = await buildFixture(db.sql);
  await bulk(f, 400);
  const limited = testApp(db.sql, { MCP_VARIANT: "A", MCP_RATE_LIMIT: "2/60" });
  const result = await exportCall(limited, f.keys.owner); // 1
  assert.equal((await download(limited, result.content[1].uri)).status, 200); // 2
  const r = await download(limited, result.content[1].uri);
  assert.equal(r.status, 429);
  assert.match(r.headers.get("retry-after")!, /^[1-9]\d*$/);
  assert.equal(r.text, `Too Many Requests: retry in ${r.headers.get("retry-after")} seconds.\n`);
  assert.equal((await rpc(limited, f.keys.owner, "ping")).status, 429, "and /mcp shares the bucket");
});

Deno.test("SDK client: accepts the resource_link result, and the link downloads", async () => {
  const f = await buildFixture(db.sql);
  await bulk(f, 400);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => app.request(req),
  );
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.addr.port}/mcp`), {
    requestInit: { headers: { "x-api-key": f.keys.owner } },
  });
  const client = new Client({ name: "portico-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: "export_contacts", arguments: {} });
    const content = result.content as { type: string; uri?: string; mimeType?: string; size?: number }[];
    assert.deepEqual(content.map((b) => b.type), ["text", "resource_link"]);
    assert.equal(content[1].mimeType, "text/csv");
    const file = await download(app, content[1].uri!);
    assert.equal(file.status, 200);
    assert.equal(file.bytes.length, content[1].size);
  } finally {
    await client.close().catch(() => {});
    await server.shutdown();
  }
});

Deno.test("downloads and downloads refused for lost access are audited under the link's key and user", async () => {
  const f = await buildFixture(db.sql);
  await bulk(f, 400);
  const entries: AuditEntry[] = [];
  const routes = new Hono<AppEnv>();
  routes.use("*", requestContext(silentLogger));
  routes.route(
    "/",
    createExportRoutes({
      config: parseConfig({ ISSUER: "http://localhost:8000", SECRET_KEY: TEST_SECRET, ...TEST_RATE_LIMITS }),
      sql: db.sql,
      log: silentLogger,
      secretKey: TEST_SECRET,
      audit: { record: (e) => entries.push(e) },
    }),
  );
  const caller = await callerOf(f.keys.manager);
  const link = createExportLinks({ secretKey: TEST_SECRET, issuer: "http://localhost:8000" })
    .sign("contacts", caller, {});
  assert.equal((await download(routes, link.url)).status, 200);
  assert.equal((await download(routes, link.url.replace("token=e1.", "token=e1.x"))).status, 404);
  await db.sql`update api_keys set revoked_at = now() where id = ${caller.keyId}`;
  assert.equal((await download(routes, link.url)).status, 403);
  assert.deepEqual(
    entries.map(({ workspaceId, keyId, clientId, userId, tool, outcome }) => ({
      workspaceId,
      keyId,
      clientId,
      userId,
      tool,
      outcome,
    })),
    ["ok", "denied"].map((outcome) => ({
      workspaceId: f.workspaceId,
      keyId: caller.keyId,
      clientId: null,
      userId: f.users.manager,
      tool: "export_contacts:download",
      outcome,
    })),
    "the altered link is not audited: it names nobody",
  );
});

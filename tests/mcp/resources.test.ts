// MCP resources through /mcp (2025 revisions): documents, recording summaries and transcripts, contact exports —
// read, list and templates under the rules of the tools that read the same data; not found for anything else.
import assert from "node:assert/strict";
import { createApiKey } from "../../lib/api_keys.ts";
import { silentLogger } from "../../lib/log.ts";
import { loadCaller } from "../../lib/mcp/caller.ts";
import { createExportLinks } from "../../lib/mcp/exports.ts";
import { registryFor } from "../../lib/mcp/registry.ts";
import {
  readResource,
  readResourceJson,
  recordingSummaryMarkdown,
  ResourceNotFound,
  RESOURCES_PAGE_SIZE,
  ResourceTooLarge,
} from "../../lib/mcp/resources.ts";
import { EXPORT_QUERY_FIELDS } from "../../lib/mcp/resources_uri.ts";
import { createDocument } from "../../lib/workspace/documents.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { getRecording, insertRecording } from "../../lib/workspace/recordings.ts";
import { TOOLS } from "../../tools/mod.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import {
  buildFixture,
  type Fixture,
  MCP_URL,
  mcpApp,
  mcpHeaders,
  type RequestTarget,
  rpc,
} from "../helpers/mcp.ts";

const db = await freshDatabase();
Deno.test.afterAll(() => db.close());
const f = await buildFixture(db.sql);
const appA = mcpApp(db.sql, "A");
const appB = mcpApp(db.sql, "B");
const ws = f.workspaceId;
const MISSING = "00000000-0000-4000-8000-000000000000";

const doc = async (fx: Fixture, title: string, companyId: string | null, content: string | null) =>
  (await createDocument(db.sql, { workspaceId: fx.workspaceId }, {
    title,
    kind: "notes",
    ...(companyId ? { companyId } : {}),
    ...(content !== null ? { contentMarkdown: content } : {}),
  })).id;

const DOC_TEXT = '# Plan\n\nÜbersicht — "quoted" and a\ttab.\n';
const docNone = await doc(f, "No company", null, DOC_TEXT);
const docA = await doc(f, "Company A notes", f.companies.a, "A only");
const docB = await doc(f, "Company B notes", f.companies.b, "B only");
const docEmpty = await doc(f, "File only", null, null);
const otherDoc = (await createDocument(db.sql, { workspaceId: f.other.workspaceId }, {
  title: "Foreign",
  kind: "notes",
  contentMarkdown: "secret",
})).id;

const rec = async (fx: Fixture, userId: string, title: string, companyId: string | null, day: number) =>
  (await insertRecording(db.sql, {
    workspaceId: fx.workspaceId,
    userId,
    companyId,
    title,
    recordedAt: `2026-03-${String(day).padStart(2, "0")}T09:30:00Z`,
    durationSeconds: 3723,
    summary: `Summary of ${title}`,
    actionItems: [{ text: "Send offer", done: false }, { text: "Book room", done: true }],
    notes: "Bring slides",
    transcription: `Transcript of ${title}: hello.`,
  })).id;
const recOwn = await rec(f, f.users.owner, "Kick-off", null, 2);
const recOwnB = await rec(f, f.users.owner, "B call", f.companies.b, 3);
const recAdmin = await rec(f, f.users.admin, "Admin call", null, 4);
const recOther = await rec(
  { ...f, workspaceId: f.other.workspaceId },
  f.other.ownerId,
  "Foreign call",
  null,
  5,
);

await db.sql`
  insert into contacts (workspace_id, company_id, contact_name, email, status, created_at)
  values (${ws}, ${f.companies.a}, 'Anna A', 'anna@a.test', 'new', now() - interval '3 minutes'),
         (${ws}, ${f.companies.b}, 'Bert B', 'bert@b.test', 'new', now() - interval '2 minutes'),
         (${ws}, null, 'Carl None', 'carl@x.test', 'won', now() - interval '1 minute')`;

const docUri = (id: string, w = ws) => `portico://workspaces/${w}/documents/${id}`;
const recUri = (id: string, part: "summary" | "transcript", w = ws) =>
  `portico://workspaces/${w}/recordings/${id}/${part}`;
const exportUri = (query = "", w = ws) => `portico://workspaces/${w}/exports/contacts.csv${query}`;

// deno-lint-ignore no-explicit-any
async function read(app: RequestTarget, key: string, uri: string): Promise<any> {
  const r = await rpc(app, key, "resources/read", { uri });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(r.body.result, `expected a result for ${uri}, got ${JSON.stringify(r.body)}`);
  return r.body.result;
}

async function notFound(app: RequestTarget, key: string, uri: string): Promise<void> {
  const r = await rpc(app, key, "resources/read", { uri });
  assert.equal(r.status, 200);
  // Exactly the spec's answer, whatever the reason: nothing says whether the resource exists.
  assert.deepEqual(r.body.error, { code: -32002, message: "Resource not found", data: { uri } }, uri);
}

async function malformed(app: RequestTarget, key: string, params: unknown): Promise<string> {
  const r = await rpc(app, key, "resources/read", params);
  assert.equal(r.status, 200);
  assert.equal(r.body.error?.code, -32602, JSON.stringify({ params, body: r.body }));
  return r.body.error.message;
}

/** export_contacts' inline CSV for `args`: what the export resource must equal. */
async function toolCsv(key: string, args: Record<string, unknown> = {}): Promise<string> {
  const r = await rpc(appA, key, "tools/call", { name: "export_contacts", arguments: args });
  assert.equal(r.body.result.isError, undefined, JSON.stringify(r.body.result));
  return r.body.result.content[1].resource.text;
}

// deno-lint-ignore no-explicit-any
async function listAll(app: RequestTarget, key: string): Promise<any[]> {
  const out = [];
  let cursor: string | undefined;
  for (let i = 0; i < 20; i++) {
    const r = await rpc(app, key, "resources/list", cursor === undefined ? {} : { cursor });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    out.push(...r.body.result.resources);
    cursor = r.body.result.nextCursor;
    assert.notEqual(cursor, "", "never an empty nextCursor");
    if (cursor === undefined) return out;
  }
  throw new Error("more than 20 pages");
}

const uris = (list: { uri: string }[]) => list.map((r) => r.uri);

Deno.test("initialize declares resources: {} beside tools", async () => {
  const r = await rpc(appA, f.keys.owner, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  });
  assert.deepEqual(r.body.result.capabilities, { tools: { listChanged: false }, resources: {} });
});

Deno.test("document: read own (exact markdown), with a key and with a Bearer token; empty when it has none", async () => {
  const expected = { contents: [{ uri: docUri(docNone), mimeType: "text/markdown", text: DOC_TEXT }] };
  assert.deepEqual(await read(appA, f.keys.owner, docUri(docNone)), expected);
  const bearer = await bearerFor(db.sql, { userId: f.users.member, workspaceId: ws });
  assert.deepEqual(await read(appA, bearer.auth, docUri(docNone)), expected);
  // upper-case ids name the same document; the answer names the URI as asked
  const upper = docUri(docNone.toUpperCase());
  assert.equal((await read(appA, f.keys.owner, upper)).contents[0].text, DOC_TEXT);
  assert.deepEqual(await read(appA, f.keys.owner, docUri(docEmpty)), {
    contents: [{ uri: docUri(docEmpty), mimeType: "text/markdown", text: "" }],
  });
});

Deno.test("document: another workspace, a company out of scope, a role or module without documents → not found", async () => {
  // another workspace's document, under its own workspace id and under ours
  await notFound(appA, f.keys.owner, docUri(otherDoc, f.other.workspaceId));
  await notFound(appA, f.keys.owner, docUri(otherDoc));
  await notFound(appA, f.keys.owner, docUri(MISSING));
  // the other workspace's owner reads its own, not ours
  assert.equal(
    (await read(appA, f.other.key, docUri(otherDoc, f.other.workspaceId))).contents[0].text,
    "secret",
  );
  await notFound(appA, f.other.key, docUri(docNone));
  // company limits: the key's scope and the member's
  for (const key of [f.keys.ownerCompanyA, f.keys.limited]) {
    assert.equal((await read(appA, key, docUri(docA))).contents[0].text, "A only");
    await notFound(appA, key, docUri(docB));
    await notFound(appA, key, docUri(docNone));
  }
  const bearerA = await bearerFor(db.sql, {
    userId: f.users.owner,
    workspaceId: ws,
    companyId: f.companies.a,
  });
  await notFound(appA, bearerA.auth, docUri(docB));
  // roles without the documents area (accounting, guest)
  await notFound(appA, f.keys.accounting, docUri(docNone));
  await notFound(appA, f.keys.guest, docUri(docNone));
  // documents exist only in variant A
  await notFound(appB, f.keys.internal, docUri(docNone));
  // the module switched off
  await db.sql`update workspaces set modules = ${MODULES.filter((m) => m !== "documents")} where id = ${ws}`;
  try {
    await notFound(appA, f.keys.owner, docUri(docNone));
  } finally {
    await db.sql`update workspaces set modules = ${[...MODULES]} where id = ${ws}`;
  }
  // a key limited to other toolsets, and a connection narrowed to others
  const tasksOnly = (await createApiKey(db.sql, {
    workspaceId: ws,
    userId: f.users.owner,
    name: "tasks only",
    toolsets: ["tasks"],
  })).key;
  await notFound(appA, tasksOnly, docUri(docNone));
  const r = await rpc(appA, f.keys.owner, "resources/read", { uri: docUri(docNone) });
  assert.ok(r.body.result);
  const narrowed = await appA.request(`${MCP_URL}?toolsets=crm`, {
    method: "POST",
    headers: mcpHeaders(f.keys.owner),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "resources/read",
      params: { uri: docUri(docNone) },
    }),
  });
  assert.equal((await narrowed.json()).error.code, -32002);
});

Deno.test("recording: summary (exact markdown) and transcript (exact text) of one's own, both variants", async () => {
  const r = await getRecording(db.sql, { workspaceId: ws, userId: f.users.owner }, recOwn);
  assert.match(r.recordedAt, /^2026-03-02T09:30:00(\.000)?Z$/);
  assert.equal(
    recordingSummaryMarkdown(r),
    `# Kick-off\n\nRecorded ${r.recordedAt}, duration 1:02:03.\n\n## Summary\n\nSummary of Kick-off\n\n` +
      "## Action items\n\n- [ ] Send offer\n- [x] Book room\n\n## Notes\n\nBring slides\n",
  );
  const expectSummary = {
    contents: [{
      uri: recUri(recOwn, "summary"),
      mimeType: "text/markdown",
      text: recordingSummaryMarkdown(r),
    }],
  };
  const expectTranscript = {
    contents: [{
      uri: recUri(recOwn, "transcript"),
      mimeType: "text/plain",
      text: "Transcript of Kick-off: hello.",
    }],
  };
  assert.deepEqual(await read(appA, f.keys.owner, recUri(recOwn, "summary")), expectSummary);
  assert.deepEqual(await read(appA, f.keys.owner, recUri(recOwn, "transcript")), expectTranscript);
  // variant B: the assistant's internal key acts as its person (the owner)
  assert.deepEqual(await read(appB, f.keys.internal, recUri(recOwn, "summary")), expectSummary);
  assert.deepEqual(await read(appB, f.keys.internal, recUri(recOwn, "transcript")), expectTranscript);
  const bearer = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: ws });
  assert.deepEqual(await read(appA, bearer.auth, recUri(recOwn, "transcript")), expectTranscript);
});

Deno.test("recording: another person's, workspace's or company's; a role, key or module without it → not found", async () => {
  for (const part of ["summary", "transcript"] as const) {
    await notFound(appA, f.keys.owner, recUri(recAdmin, part)); // the admin's own recording
    await notFound(appA, f.keys.owner, recUri(recOther, part, f.other.workspaceId));
    await notFound(appA, f.keys.owner, recUri(recOther, part));
    await notFound(appA, f.keys.owner, recUri(MISSING, part));
    await notFound(appA, f.keys.ownerCompanyA, recUri(recOwnB, part)); // company b, key scoped to a
    await notFound(appA, f.keys.ownerCompanyA, recUri(recOwn, part)); // no company: outside a company scope
    assert.ok((await read(appA, f.keys.owner, recUri(recOwnB, part))).contents[0].text);
    await notFound(appA, f.keys.guest, recUri(recOwn, part)); // the guest role has no recordings area
    await notFound(appB, f.keys.workspace, recUri(recOwn, part)); // B: a workspace key acts for no person
    await notFound(appB, f.keys.owner, recUri(recOwn, part)); // B: only the internal key is a person
  }
  assert.ok(
    (await read(appA, f.keys.admin, recUri(recAdmin, "summary"))).contents[0].text.startsWith("# Admin call"),
  );
  await db.sql`update workspaces set modules = ${MODULES.filter((m) => m !== "recordings")} where id = ${ws}`;
  try {
    await notFound(appA, f.keys.owner, recUri(recOwn, "summary"));
  } finally {
    await db.sql`update workspaces set modules = ${[...MODULES]} where id = ${ws}`;
  }
});

Deno.test("export: the CSV export_contacts makes, unfiltered and filtered, under the caller's company scope", async () => {
  const all = await read(appA, f.keys.owner, exportUri());
  assert.equal(all.contents.length, 1);
  const c = all.contents[0];
  assert.equal(c.uri, exportUri());
  assert.equal(c.mimeType, "text/csv");
  assert.equal(c.text, await toolCsv(f.keys.owner));
  assert.deepEqual(c._meta, { "portico/export": { rows: 3, matched: 3, truncated: false, cutBy: null } });
  assert.ok(c.text.startsWith("\uFEFFid,companyId,"));
  for (const name of ["Anna A", "Bert B", "Carl None"]) assert.ok(c.text.includes(name), name);

  const q = "?status=new&sortField=contactName&sortDirection=asc";
  const leads = await read(appA, f.keys.owner, exportUri(q));
  assert.equal(leads.contents[0].uri, exportUri(q));
  assert.equal(
    leads.contents[0].text,
    await toolCsv(f.keys.owner, { status: "new", sortField: "contactName", sortDirection: "asc" }),
  );
  assert.ok(!leads.contents[0].text.includes("Carl None"));

  // the URI export_contacts hands out with an inline CSV reads the same way
  const handed =
    (await rpc(appA, f.keys.owner, "tools/call", { name: "export_contacts", arguments: {} })).body
      .result.structuredContent.uri;
  assert.match(handed, /\/exports\/contacts-\d{8}T\d{6}Z\.csv$/);
  assert.equal((await read(appA, f.keys.owner, handed)).contents[0].text, c.text);

  // a company-limited key exports its company only
  const scoped = (await read(appA, f.keys.ownerCompanyA, exportUri())).contents[0];
  assert.equal(scoped.text, await toolCsv(f.keys.ownerCompanyA));
  assert.ok(
    scoped.text.includes("Anna A") && !scoped.text.includes("Bert B") && !scoped.text.includes("Carl"),
  );
  assert.deepEqual(scoped._meta["portico/export"].rows, 1);
});

Deno.test("export: another workspace, a role or module without contacts, variant B → not found; bad filters → -32602", async () => {
  await notFound(appA, f.keys.owner, exportUri("", f.other.workspaceId));
  await notFound(appA, f.other.key, exportUri());
  await notFound(appA, f.keys.accounting, exportUri());
  await notFound(appA, f.keys.guest, exportUri());
  await notFound(appB, f.keys.internal, exportUri()); // export_contacts is variant A only
  await db.sql`update workspaces set modules = ${MODULES.filter((m) => m !== "crm")} where id = ${ws}`;
  try {
    await notFound(appA, f.keys.owner, exportUri());
  } finally {
    await db.sql`update workspaces set modules = ${[...MODULES]} where id = ${ws}`;
  }
  assert.match(await malformed(appA, f.keys.owner, { uri: exportUri("?status=nope") }), /status/);
  assert.match(
    await malformed(appA, f.keys.owner, { uri: exportUri("?colour=red") }),
    /unknown export filter "colour"/,
  );
  assert.match(await malformed(appA, f.keys.owner, { uri: exportUri("?city=a&city=b") }), /given twice/);
  assert.match(await malformed(appA, f.keys.owner, { uri: exportUri("?city=%00") }), /NUL/);
  await malformed(appA, f.keys.owner, { uri: `portico://workspaces/${ws}/exports/invoices.csv` });
});

Deno.test("malformed URIs → -32602; a well-formed URI of something else → not found", async () => {
  for (
    const params of [
      {},
      { uri: 42 },
      { uri: "" },
      { uri: "no scheme at all" },
      { uri: "x".repeat(20_001) },
      { uri: `portico://workspaces/${ws}/documents/not-a-uuid` },
      { uri: `portico://workspaces/not-a-uuid/documents/${docNone}` },
      { uri: `portico://workspaces/${ws}/documents/${docNone}?x=1` },
      { uri: `portico://workspaces/${ws}/documents/${docNone}/more` },
      { uri: `portico://workspaces/${ws}/recordings/${recOwn}` },
      { uri: `portico://workspaces/${ws}/recordings/${recOwn}/audio` },
      { uri: `portico://workspaces/${ws}/projects/${docNone}` },
      { uri: `portico://elsewhere/${docNone}` },
    ]
  ) await malformed(appA, f.keys.owner, params);
  for (
    const uri of [
      "file:///etc/passwd",
      "https://example.com/doc",
      "http://localhost:8000/exports/contacts.csv",
    ]
  ) {
    await notFound(appA, f.keys.owner, uri);
  }
});

Deno.test("resources/list shows exactly what the caller may read, per role, company, variant", async () => {
  const owner = uris(await listAll(appA, f.keys.owner));
  assert.deepEqual(owner, [
    exportUri(),
    // documents newest first
    docUri(docEmpty),
    docUri(docB),
    docUri(docA),
    docUri(docNone),
    // recordings newest first, summary then transcript
    recUri(recOwnB, "summary"),
    recUri(recOwnB, "transcript"),
    recUri(recOwn, "summary"),
    recUri(recOwn, "transcript"),
  ]);
  const entries = await listAll(appA, f.keys.owner);
  assert.deepEqual(entries.find((e) => e.uri === docUri(docNone)), {
    uri: docUri(docNone),
    name: "No company",
    description: entries.find((e) => e.uri === docUri(docNone)).description,
    mimeType: "text/markdown",
    size: new TextEncoder().encode(DOC_TEXT).length,
  });
  assert.equal(entries.find((e) => e.uri === recUri(recOwn, "transcript")).name, "Kick-off (transcript)");
  // every listed URI reads
  for (const uri of owner) assert.ok((await read(appA, f.keys.owner, uri)).contents.length === 1, uri);

  assert.deepEqual(uris(await listAll(appA, f.keys.ownerCompanyA)), [exportUri(), docUri(docA)]);
  assert.deepEqual(uris(await listAll(appA, f.keys.limited)), [exportUri(), docUri(docA)]); // member: no own recordings
  assert.deepEqual(uris(await listAll(appA, f.keys.admin)), [
    exportUri(),
    docUri(docEmpty),
    docUri(docB),
    docUri(docA),
    docUri(docNone),
    recUri(recAdmin, "summary"),
    recUri(recAdmin, "transcript"),
  ]);
  assert.deepEqual(await listAll(appA, f.keys.accounting), []); // no contacts, documents or recordings area
  assert.deepEqual(uris(await listAll(appA, f.keys.guest)), []);
  assert.deepEqual(uris(await listAll(appB, f.keys.internal)), [
    recUri(recOwnB, "summary"),
    recUri(recOwnB, "transcript"),
    recUri(recOwn, "summary"),
    recUri(recOwn, "transcript"),
  ]);
  assert.deepEqual(await listAll(appB, f.keys.workspace), []);
  assert.deepEqual(uris(await listAll(appA, f.other.key)), [
    exportUri("", f.other.workspaceId),
    docUri(otherDoc, f.other.workspaceId),
    recUri(recOther, "summary", f.other.workspaceId),
    recUri(recOther, "transcript", f.other.workspaceId),
  ]);
});

Deno.test("resources/list pages: at most RESOURCES_PAGE_SIZE, opaque cursors, every resource once; bad cursor → -32602", async () => {
  const g = await buildFixture(db.sql);
  const docs: string[] = [];
  for (let i = 0; i < 70; i++) docs.push(await doc(g, `Doc ${i}`, null, `text ${i}`));
  const recs: string[] = [];
  for (let i = 1; i <= 12; i++) recs.push(await rec(g, g.users.owner, `Rec ${i}`, null, i));
  const pages: number[] = [];
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const r = await rpc(appA, g.keys.owner, "resources/list", cursor === undefined ? undefined : { cursor });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    pages.push(r.body.result.resources.length);
    seen.push(...uris(r.body.result.resources));
    cursor = r.body.result.nextCursor;
    if (cursor !== undefined) assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  } while (cursor !== undefined && pages.length < 10);
  // 1 export + 70 documents + 12 recordings × 2
  assert.equal(seen.length, 1 + 70 + 24);
  assert.equal(new Set(seen).size, seen.length);
  assert.ok(pages.every((n) => n <= RESOURCES_PAGE_SIZE), JSON.stringify(pages));
  // 1 export + 49 documents | 21 documents + 10 recordings (at most 10 a query) | 2 recordings
  assert.deepEqual(pages, [50, 41, 4]);
  assert.deepEqual(seen.slice(1, 71), docs.toReversed().map((id) => docUri(id, g.workspaceId)));
  assert.deepEqual(
    seen.slice(71).filter((u) => u.endsWith("/summary")),
    recs.toReversed().map((id) => recUri(id, "summary", g.workspaceId)),
  );

  for (const bad of ["", "nope!", "eyJ2IjoxfQ", btoa(JSON.stringify({ v: 1, s: "documents", o: -1 })), 42]) {
    const r = await rpc(appA, g.keys.owner, "resources/list", { cursor: bad });
    assert.equal(r.body.error?.code, -32602, JSON.stringify(bad));
  }
  const r = await rpc(appA, g.keys.owner, "resources/list", { cursor: null });
  assert.equal(r.body.result.resources.length, 50);
});

Deno.test("resources/templates/list: the kinds the caller may read, as RFC 6570 templates", async () => {
  const owner = (await rpc(appA, f.keys.owner, "resources/templates/list")).body.result;
  assert.deepEqual(owner.resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate), [
    "portico://workspaces/{workspaceId}/documents/{documentId}",
    "portico://workspaces/{workspaceId}/recordings/{recordingId}/summary",
    "portico://workspaces/{workspaceId}/recordings/{recordingId}/transcript",
    `portico://workspaces/{workspaceId}/exports/contacts.csv{?${EXPORT_QUERY_FIELDS.join(",")}}`,
  ]);
  assert.equal(owner.nextCursor, undefined);
  assert.ok(EXPORT_QUERY_FIELDS.includes("status") && EXPORT_QUERY_FIELDS.includes("sortDirection"));
  const b = (await rpc(appB, f.keys.internal, "resources/templates/list")).body.result;
  assert.deepEqual(b.resourceTemplates.map((t: { name: string }) => t.name), [
    "recording-summary",
    "recording-transcript",
  ]);
  assert.deepEqual((await rpc(appA, f.keys.accounting, "resources/templates/list")).body.result, {
    resourceTemplates: [],
  });
});

Deno.test("bounded: a resource larger than the answer's room is an error naming the sizes, never a cut file", async () => {
  const big = await rec(f, f.users.manager, "Long", null, 9);
  await db.sql`update recordings set transcription = ${"é".repeat(1_000_000)} where id = ${big}`;
  // the largest transcript the table allows is read whole (2 MB of UTF-8)
  const whole = await read(appA, f.keys.manager, recUri(big, "transcript"));
  assert.equal(whole.contents[0].text.length, 1_000_000);

  const loaded = await loadCaller(db.sql, f.keys.manager, "A", silentLogger);
  assert.ok(loaded.ok);
  const ctx = {
    registry: registryFor(TOOLS, "A"),
    caller: loaded.caller,
    db: db.sql,
    log: silentLogger,
    requestId: "r1",
  };
  const uri = recUri(big, "transcript");
  await assert.rejects(
    () => readResourceJson(ctx, { uri }, 1_000_000),
    (err: unknown) =>
      err instanceof ResourceTooLarge && err.uri === uri && err.limitBytes === 1_000_000 &&
      err.bytes ===
        2_000_000 + JSON.stringify({ contents: [{ uri, mimeType: "text/plain", text: "" }] }).length,
  );
  const json = await readResourceJson(ctx, { uri }, 2_100_000);
  assert.equal(JSON.parse(json).contents[0].text, "é".repeat(1_000_000));
});

/** The link with the first character of its MAC changed (a bit that counts, unlike the last character's). */
function forged(url: string): string {
  const at = url.lastIndexOf(".") + 1;
  return url.slice(0, at) + (url[at] === "A" ? "B" : "A") + url.slice(at + 1);
}

Deno.test("export_contacts' download link reads as a resource for the credential that made it only", async () => {
  const links = createExportLinks({ secretKey: TEST_SECRET, issuer: "http://localhost:8000" });
  const ctxOf = async (key: string, secretKey?: string) => {
    const loaded = await loadCaller(db.sql, key, "A", silentLogger);
    assert.ok(loaded.ok);
    return {
      registry: registryFor(TOOLS, "A"),
      caller: loaded.caller,
      db: db.sql,
      log: silentLogger,
      requestId: "r1",
      secretKey,
    };
  };
  const owner = await ctxOf(f.keys.owner, TEST_SECRET);
  const link = links.sign("contacts", owner.caller, { status: "new", sortDirection: "desc" });
  const got = await readResource(owner, link.url);
  assert.equal(got.contents[0].uri, link.url);
  assert.equal(got.contents[0].text, await toolCsv(f.keys.owner, { status: "new" }));
  // another credential of the same person, a forged or expired link, or no SECRET_KEY: not found
  const expired = createExportLinks({
    secretKey: TEST_SECRET,
    issuer: "http://localhost:8000",
    now: () => Date.now() - 3_600_000,
  }).sign("contacts", owner.caller, {});
  for (
    const [ctx, uri] of [
      [await ctxOf(f.keys.ownerCompanyA, TEST_SECRET), link.url],
      [await ctxOf(f.keys.admin, TEST_SECRET), link.url],
      [owner, forged(link.url)],
      [owner, expired.url],
      [await ctxOf(f.keys.owner), link.url],
    ] as const
  ) {
    await assert.rejects(
      () => readResource(ctx, uri),
      (e: unknown) => e instanceof ResourceNotFound && e.uri === uri,
    );
  }
});

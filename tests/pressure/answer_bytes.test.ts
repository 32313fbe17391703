// Answers bounded by bytes: the CSV export cut at EXPORT_MAX_BYTES, any tool result over the answer limit
// replaced by a notice, a batch's answers capped together, and long texts spliced into the JSON exactly.
import assert from "node:assert/strict";
import { z } from "zod";
import type { AuditEntry } from "../../lib/audit.ts";
import { CSV_BOM, CSV_EOL } from "../../lib/csv.ts";
import { jsonStringBytes, utf8Bytes } from "../../lib/json_bytes.ts";
import { toolContent } from "../../lib/mcp/errors.ts";
import { ANSWER_MAX_BYTES } from "../../lib/mcp/result_json.ts";
import { defineTool } from "../../lib/mcp/tool.ts";
import { EXPORT_MAX_BYTES } from "../../lib/workspace/contacts.ts";
import { TOOLS } from "../../tools/mod.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callOk, type Fixture, mcpApp, postMcp, rpc } from "../helpers/mcp.ts";

const db = await freshDatabase();
Deno.test.afterAll(() => db.close());

const NOTES = '"'.repeat(10_000); // the longest note, each character doubled by CSV and escaped by JSON
const MATCHED = 400;

/** A workspace whose MATCHED contacts each carry the worst-case note. */
async function worstCaseContacts(): Promise<Fixture> {
  const f = await buildFixture(db.sql);
  await db.sql`
    insert into contacts (workspace_id, contact_name, notes, created_at)
    select ${f.workspaceId}, 'Worst ' || lpad(i::text, 3, '0'), ${NOTES}, now() - make_interval(secs => i)
      from generate_series(1, ${MATCHED}) i`;
  return f;
}

/** A test tool returning `value` (through run) to exercise the result serialiser. */
function returning(name: string, value: () => unknown) {
  return defineTool({
    name,
    area: "projects",
    module: null,
    needsUser: false,
    variants: { A: z.strictObject({}) },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description: "Test tool. Returns a fixed value.",
    run: () => value(),
  });
}

Deno.test("export_contacts: worst-case notes are cut at EXPORT_MAX_BYTES, whole rows only, and the answer says so", async () => {
  const f = await worstCaseContacts();
  const app = mcpApp(db.sql, "A");
  const res = await postMcp(app, f.keys.owner, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "export_contacts", arguments: { sortField: "createdAt", sortDirection: "desc" } },
  });
  assert.equal(res.status, 200);
  const raw = await res.text();
  const result = JSON.parse(raw).result;
  assert.equal(result.isError, undefined);
  // The answer is a link (tests/mcp/export_link.test.ts); the download is cut exactly as the inline CSV was.
  assert.equal(result.content[1].type, "resource_link");
  const download = await app.request(result.content[1].uri);
  assert.equal(download.status, 200);
  assert.equal(download.headers.get("x-export-cut-by"), "bytes");
  const csv = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await download.arrayBuffer());
  assert.ok(csv.startsWith(CSV_BOM), "the UTF-8 BOM is kept");
  const [header, ...rest] = csv.split(CSV_EOL);
  assert.equal(rest.pop(), "", "the CSV ends with a whole record");
  const headerBytes = jsonStringBytes(header + CSV_EOL);
  const rowBytes = jsonStringBytes(rest[0] + CSV_EOL);
  assert.ok(rest.every((line) => jsonStringBytes(line + CSV_EOL) === rowBytes), "rows of equal size");
  // exactly as many rows as fit: one more would pass the limit
  const fit = Math.floor((EXPORT_MAX_BYTES - headerBytes) / rowBytes);
  assert.ok(fit > 0 && fit < MATCHED, `${fit} rows fit`);
  assert.equal(rest.length, fit);
  assert.equal(rest[0].split(",")[3], "Worst 001", "newest first");
  assert.equal(rest.at(-1)!.split(",")[3], `Worst ${String(fit).padStart(3, "0")}`);
  assert.ok(rest.every((line) => line.split(",")[21] === `"${NOTES.replaceAll('"', '""')}"`), "notes whole");
  // the limit is on the CSV as it would be sent in a JSON answer: its JSON-escaped UTF-8 bytes
  const sent = utf8Bytes(JSON.stringify(csv)) - 2;
  assert.equal(sent, jsonStringBytes(csv));
  assert.ok(sent <= EXPORT_MAX_BYTES && sent + rowBytes > EXPORT_MAX_BYTES, `${sent} bytes`);
  assert.ok(utf8Bytes(raw) < 4096, "the whole answer is a small summary and the link");

  const { uri, expiresAt, message, ...summary } = result.structuredContent;
  assert.equal(uri, result.content[1].uri);
  assert.match(expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
  assert.deepEqual(summary, {
    rows: fit,
    matched: MATCHED,
    truncated: true,
    cutBy: "bytes",
    bytes: utf8Bytes(csv),
  });
  assert.ok(
    message.startsWith(
      `${MATCHED} contacts matched; the CSV reached the 10 MiB export limit after the first ${fit}. ` +
        "Narrow the filter (for example status, assignedTo, city or search) to export the rest in parts. ",
    ),
    message,
  );
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);

  // The cut ended the cursor and its transaction: the connection serves the next call (one on PGlite).
  const page = await callOk(app, f.keys.owner, "list_contacts", { limit: 1 });
  assert.equal(page.total, MATCHED);
  // A narrower filter exports the rest whole.
  const narrow = await rpc(app, f.keys.owner, "tools/call", {
    name: "export_contacts",
    arguments: { contactName: "worst 39" }, // Worst 390-399
  });
  assert.deepEqual(
    (({ rows, matched, truncated, cutBy }) => ({ rows, matched, truncated, cutBy }))(
      narrow.body.result.structuredContent,
    ),
    { rows: 10, matched: 10, truncated: false, cutBy: null },
  );
});

Deno.test("a tool result over ANSWER_MAX_BYTES is replaced by a truncation notice (not an error); the call ran", async () => {
  const f = await buildFixture(db.sql);
  const big = "a".repeat(ANSWER_MAX_BYTES);
  const fits = "b".repeat(ANSWER_MAX_BYTES - 2048);
  const entries: AuditEntry[] = [];
  const app = mcpApp(db.sql, "A", {
    tools: [...TOOLS, returning("too_big", () => big), returning("just_fits", () => fits)],
    audit: { record: (e) => entries.push(e) },
  });
  const r = await rpc(app, f.keys.owner, "tools/call", { name: "too_big", arguments: {} });
  assert.equal(r.status, 200);
  const answerBytes = JSON.stringify({ content: [{ type: "text", text: big }] }).length;
  const limitBytes = ANSWER_MAX_BYTES - 1024;
  const notice = {
    truncated: true,
    answerBytes,
    limitBytes,
    message:
      `The answer of too_big was ${answerBytes} bytes, more than the ${limitBytes} bytes this answer ` +
      `could still carry (${ANSWER_MAX_BYTES} per HTTP answer, a batch's answers together), so it was not ` +
      "sent. The call itself completed. Ask for less: a smaller limit, a narrower filter, a later offset, or " +
      "one call per request.",
  };
  assert.deepEqual(r.body.result, {
    content: [{ type: "text", text: JSON.stringify(notice) }],
    structuredContent: notice,
  });

  const ok = await rpc(app, f.keys.owner, "tools/call", { name: "just_fits", arguments: {} });
  assert.equal(ok.body.result.content[0].text, fits);
  assert.deepEqual(entries.map((e) => [e.tool, e.outcome]), [["too_big", "ok"], ["just_fits", "ok"]]);
});

Deno.test("long texts are spliced into the answer exactly: slice edges, surrogate pairs, escapes", async () => {
  const f = await buildFixture(db.sql);
  const slice = 512 * 1024;
  // a pair across the first slice edge, a lone surrogate, every escape kind, non-ASCII, over three slices
  const text = "x".repeat(slice - 1) + "😀" + '"\\\b\f\n\r\t\u0001\u001f\ud800é€' + "y".repeat(slice) +
    "\udc00z".repeat(slice / 2);
  const app = mcpApp(db.sql, "A", {
    tools: [
      ...TOOLS,
      returning("long_text", () => text),
      returning(
        "long_file",
        () =>
          toolContent([
            { type: "text", text: "short" },
            { type: "resource", resource: { uri: "portico://x", mimeType: "text/plain", text } },
            { type: "text", text },
          ], { n: 1 }),
      ),
    ],
  });
  for (const name of ["long_text", "long_file"]) {
    const res = await postMcp(app, f.keys.owner, {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name, arguments: {} },
    });
    const raw = await res.text();
    const expected = name === "long_text" ? { content: [{ type: "text", text }] } : {
      content: [
        { type: "text", text: "short" },
        { type: "resource", resource: { uri: "portico://x", mimeType: "text/plain", text } },
        { type: "text", text },
      ],
      structuredContent: { n: 1 },
    };
    assert.equal(raw, JSON.stringify({ jsonrpc: "2.0", id: 7, result: expected }), `${name}: byte for byte`);
  }
});

Deno.test("a batch's answers are capped together: past the cap, members are not run and say so", async () => {
  const f = await buildFixture(db.sql);
  const entries: AuditEntry[] = [];
  // 9 MiB answers (export_contacts, which this test used, now answers large files with a link)
  const nine = "n".repeat(9 * 1024 * 1024);
  const app = mcpApp(db.sql, "A", {
    tools: [...TOOLS, returning("nine_mib", () => nine)],
    audit: { record: (e) => entries.push(e) },
  });
  const batch = Array.from({ length: 6 }, (_, i) => ({
    jsonrpc: "2.0",
    id: i + 1,
    method: "tools/call",
    params: { name: "nine_mib", arguments: {} },
  }));
  // no MCP-Protocol-Version header: 2025-03-26, the version with batches (once: 500 "Invalid string length")
  const res = await postMcp(app, f.keys.owner, batch, { "mcp-protocol-version": null });
  assert.equal(res.status, 200);
  const raw = await res.text();
  assert.ok(utf8Bytes(raw) <= ANSWER_MAX_BYTES, `${utf8Bytes(raw)} bytes`);
  const answers = JSON.parse(raw);
  assert.deepEqual(answers.map((a: { id: number }) => a.id), [1, 2, 3, 4, 5, 6]);
  assert.equal(answers[0].result.content[0].text, nine);
  // the second answer did not fit in what was left: a notice, not an error
  const second = answers[1].result;
  assert.equal(second.isError, undefined);
  assert.equal(second.structuredContent.truncated, true);
  assert.equal(
    second.structuredContent.limitBytes,
    ANSWER_MAX_BYTES - 2 - utf8Bytes(JSON.stringify(answers[0])) - 1 - 1024,
  );
  assert.ok(second.structuredContent.answerBytes > second.structuredContent.limitBytes);
  for (const a of answers.slice(2)) {
    assert.deepEqual(a.error, {
      code: -32600,
      message:
        `Invalid Request: not run; this batch's answer is full (at most ${ANSWER_MAX_BYTES} bytes for ` +
        "all its answers together). Send it again in another request.",
    });
  }
  assert.deepEqual(entries.map((e) => e.tool), ["nine_mib", "nine_mib"], "only two ran");
});

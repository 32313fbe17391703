// MCP resources in protocol 2026-07-28 through the official v2 client pinned to it: list, templates, read, and
// not found as -32602 with data.uri (the 2025 revisions' -32002 is forbidden there).
import assert from "node:assert/strict";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createDocument } from "../../lib/workspace/documents.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, mcpApp } from "../helpers/mcp.ts";

const db = await freshDatabase();
Deno.test.afterAll(() => db.close());
const f = await buildFixture(db.sql);
const ws = f.workspaceId;
const docId = (await createDocument(db.sql, { workspaceId: ws }, {
  title: "Handbook",
  kind: "notes",
  contentMarkdown: "# Handbook\n",
})).id;

Deno.test("v2 client pinned to 2026-07-28: listResources, listResourceTemplates, readResource; not found → -32602", async () => {
  const app = mcpApp(db.sql, "A");
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => app.request(req),
  );
  const client = new Client({ name: "portico-test", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.addr.port}/mcp`), {
        requestInit: { headers: { "x-api-key": f.keys.owner } },
      }),
    );
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r: { uri: string }) => r.uri), [
      `portico://workspaces/${ws}/exports/contacts.csv`,
      `portico://workspaces/${ws}/documents/${docId}`,
    ]);
    assert.equal((await client.listResourceTemplates()).resourceTemplates.length, 4);
    const uri = `portico://workspaces/${ws}/documents/${docId}`;
    const read = await client.readResource({ uri });
    assert.deepEqual(read.contents, [{ uri, mimeType: "text/markdown", text: "# Handbook\n" }]);
    const foreign = `portico://workspaces/${f.other.workspaceId}/documents/${docId}`;
    await assert.rejects(
      client.readResource({ uri: foreign }),
      (e: Error & { code?: number; data?: unknown }) => {
        assert.ok(e instanceof ProtocolError, String(e));
        assert.equal(e.code, -32602);
        assert.deepEqual(e.data, { uri: foreign });
        return true;
      },
    );
  } finally {
    await client.close().catch(() => {});
    await server.shutdown();
  }
});

// MCP resources through the official SDK clients against a real listening server: listResources,
// listResourceTemplates and readResource, and the not-found error each era's client sees.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { createDocument } from "../../lib/workspace/documents.ts";
import { insertRecording } from "../../lib/workspace/recordings.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, mcpApp, type Variant } from "../helpers/mcp.ts";

const db = await freshDatabase();
Deno.test.afterAll(() => db.close());
const f = await buildFixture(db.sql);
const ws = f.workspaceId;

const docId = (await createDocument(db.sql, { workspaceId: ws }, {
  title: "Handbook",
  kind: "notes",
  contentMarkdown: "# Handbook\n\nBe kind.\n",
})).id;
const recId = (await insertRecording(db.sql, {
  workspaceId: ws,
  userId: f.users.owner,
  title: "Stand-up",
  recordedAt: "2026-03-01T08:00:00Z",
  durationSeconds: 60,
  transcription: "Good morning.",
})).id;
const otherDoc = (await createDocument(db.sql, { workspaceId: f.other.workspaceId }, {
  title: "Foreign",
  kind: "notes",
  contentMarkdown: "secret",
})).id;

/** Serves `variant` on 127.0.0.1:0; `run` gets a transport with `key` for the SDK client. */
async function served(variant: Variant, run: (url: URL) => Promise<void>): Promise<void> {
  const app = mcpApp(db.sql, variant);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => app.request(req),
  );
  try {
    await run(new URL(`http://127.0.0.1:${server.addr.port}/mcp`));
  } finally {
    await server.shutdown();
  }
}

Deno.test("SDK 1.x client: listResources, listResourceTemplates, readResource; not found → McpError -32002", async () => {
  await served("A", async (url) => {
    const client = new Client({ name: "portico-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { "x-api-key": f.keys.owner } } }),
    );
    try {
      assert.deepEqual(client.getServerCapabilities()?.resources, {});
      const { resources, nextCursor } = await client.listResources();
      assert.equal(nextCursor, undefined);
      assert.deepEqual(resources.map((r: { uri: string }) => r.uri), [
        `portico://workspaces/${ws}/exports/contacts.csv`,
        `portico://workspaces/${ws}/documents/${docId}`,
        `portico://workspaces/${ws}/recordings/${recId}/summary`,
        `portico://workspaces/${ws}/recordings/${recId}/transcript`,
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.equal(resourceTemplates.length, 4);
      assert.equal(
        resourceTemplates[0].uriTemplate,
        "portico://workspaces/{workspaceId}/documents/{documentId}",
      );

      const docUri = `portico://workspaces/${ws}/documents/${docId}`;
      assert.deepEqual(await client.readResource({ uri: docUri }), {
        contents: [{ uri: docUri, mimeType: "text/markdown", text: "# Handbook\n\nBe kind.\n" }],
      });
      const tUri = `portico://workspaces/${ws}/recordings/${recId}/transcript`;
      assert.deepEqual(await client.readResource({ uri: tUri }), {
        contents: [{ uri: tUri, mimeType: "text/plain", text: "Good morning." }],
      });
      const csv = await client.readResource({ uri: `portico://workspaces/${ws}/exports/contacts.csv` });
      assert.ok((csv.contents[0] as { text: string }).text.startsWith("\uFEFFid,companyId,"));

      const foreign = `portico://workspaces/${f.other.workspaceId}/documents/${otherDoc}`;
      await assert.rejects(
        client.readResource({ uri: foreign }),
        (e: Error & { code?: number; data?: unknown }) => {
          assert.ok(e instanceof McpError, String(e));
          assert.equal(e.code, -32002);
          assert.deepEqual(e.data, { uri: foreign });
          return true;
        },
      );
      await assert.rejects(
        client.readResource({ uri: `portico://workspaces/${ws}/documents/nope` }),
        (e: Error & { code?: number }) => e instanceof McpError && e.code === -32602,
      );
    } finally {
      await client.close();
    }
  });
});

Deno.test("SDK 1.x client, variant B: the internal key lists and reads its recordings only", async () => {
  await served("B", async (url) => {
    const client = new Client({ name: "portico-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { "x-api-key": f.keys.internal } } }),
    );
    try {
      const { resources } = await client.listResources();
      assert.deepEqual(resources.map((r: { name: string }) => r.name), [
        "Stand-up (summary)",
        "Stand-up (transcript)",
      ]);
      const summary = await client.readResource({ uri: resources[0].uri });
      assert.match((summary.contents[0] as { text: string }).text, /^# Stand-up\n/);
    } finally {
      await client.close();
    }
  });
});

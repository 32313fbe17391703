// What `deno task dev` prints once it listens: every line is built from the issuer, the demo key is exported.
import assert from "node:assert/strict";
import { welcomeLines } from "../lib/welcome.ts";

Deno.test("welcome: with demo data, the key is exported and every URL uses the issuer's port", () => {
  const lines = welcomeLines({
    issuer: "http://localhost:8123",
    demo: { email: "demo@portico.local", password: "pw-123", apiKey: "pak_abc-DEF_1" },
  });
  assert.deepEqual(lines, [
    "",
    "  Demo data created (shown once):",
    "    sign in as   demo@portico.local",
    "    password     pw-123",
    "    MCP API key  pak_abc-DEF_1",
    "",
    "  Lost the password, or signed in wrongly too often? deno task admin demo reset-password",
    "",
    "  Call the MCP tool server (paste into a shell):",
    "    export PORTICO_KEY=pak_abc-DEF_1",
    `    curl -s http://localhost:8123/mcp -H 'content-type: application/json' -H "x-api-key: $PORTICO_KEY" \\`,
    `      -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'`,
    "",
    "  Connect an MCP client with the URL alone (it signs you in through the browser; OAuth):",
    "    Claude Code          claude mcp add --transport http portico http://localhost:8123/mcp",
    `    Cursor               ~/.cursor/mcp.json: { "mcpServers": { "portico": { "url": "http://localhost:8123/mcp" } } }`,
    `    VS Code              .vscode/mcp.json: { "servers": { "portico": { "type": "http", "url": "http://localhost:8123/mcp" } } }`,
    "    Claude Desktop       npx -y mcp-remote http://localhost:8123/mcp",
    "  or with the key instead of a sign-in:",
    `    Claude Code          claude mcp add --transport http portico http://localhost:8123/mcp --header "x-api-key: $PORTICO_KEY"`,
    `    Cursor               { "mcpServers": { "portico": { "url": "http://localhost:8123/mcp", "headers": { "x-api-key": "<key>" } } } }`,
    `    Claude Desktop       npx -y mcp-remote http://localhost:8123/mcp --header "x-api-key:$PORTICO_KEY"`,
    "",
  ]);
});

Deno.test("welcome: a later start names the demo person, the reset, and where to make a key", () => {
  const lines = welcomeLines({
    issuer: "http://localhost:8123",
    demoAccount: {
      email: "demo@portico.local",
      userId: "7f0e3a51-0c7e-4c1b-9a55-2a8e1d2f4b01",
      workspaceId: "0b5c6d7e-8f90-4a1b-8c2d-3e4f5a6b7c8d",
    },
  });
  assert.deepEqual(lines.slice(0, 10), [
    "",
    "  Demo data (from the first start):",
    "    sign in as   demo@portico.local",
    "",
    "  Lost the password, or signed in wrongly too often? deno task admin demo reset-password",
    "",
    "  Call the MCP tool server: make a key on http://localhost:8123/account/keys (it is shown once), or in a shell:",
    "    deno task admin apikey create --workspace 0b5c6d7e-8f90-4a1b-8c2d-3e4f5a6b7c8d --user 7f0e3a51-0c7e-4c1b-9a55-2a8e1d2f4b01",
    "  then paste:",
    "    export PORTICO_KEY=pak_…                # the key you made",
  ]);
  // The rest is the first start's: the same curl and client lines.
  const first = welcomeLines({
    issuer: "http://localhost:8123",
    demo: { email: "demo@portico.local", password: "pw", apiKey: "pak_x" },
  });
  assert.deepEqual(lines.slice(10), first.slice(first.indexOf("    export PORTICO_KEY=pak_x") + 1));
  assert.ok(!lines.some((l) => l.includes("password     ")), "no password: it is not known");
  assert.equal(lines.filter((l) => l.includes("deno task admin")).length, 2, "the reset and one CLI line");
});

Deno.test("welcome: a later start without the demo workspace keeps the person and leaves the ids to fill in", () => {
  const lines = welcomeLines({
    issuer: "http://localhost:8123",
    demoAccount: {
      email: "demo@portico.local",
      userId: "7f0e3a51-0c7e-4c1b-9a55-2a8e1d2f4b01",
      workspaceId: null,
    },
  });
  assert.deepEqual(lines.slice(1, 10), [
    "  Demo data (from the first start):",
    "    sign in as   demo@portico.local",
    "",
    "  Lost the password, or signed in wrongly too often? deno task admin demo reset-password",
    "",
    "  Call the MCP tool server: make a key on http://localhost:8123/account/keys (it is shown once), or in a shell:",
    "    deno task admin apikey create --workspace <workspace id> --user <user id>",
    "  then paste:",
    "    export PORTICO_KEY=pak_…                # the key you made",
  ]);
});

Deno.test("welcome: without demo data it says where to make a key; a public issuer is used as given", () => {
  const lines = welcomeLines({ issuer: "https://portico.example.com/" });
  assert.ok(!lines.some((l) => l.includes("Demo data")));
  assert.ok(!lines.some((l) => l.includes("reset-password")), "no demo person, no demo reset");
  assert.deepEqual(lines.slice(0, 7), [
    "",
    "  Call the MCP tool server: make a key on https://portico.example.com/account/keys (it is shown once), or in a shell:",
    "    deno task admin apikey create --workspace <workspace id> --user <user id>",
    "  then paste:",
    "    export PORTICO_KEY=pak_…                # the key you made",
    `    curl -s https://portico.example.com/mcp -H 'content-type: application/json' -H "x-api-key: $PORTICO_KEY" \\`,
    `      -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'`,
  ]);
  assert.ok(
    lines.includes(
      "    Claude Code          claude mcp add --transport http portico https://portico.example.com/mcp",
    ),
  );
  assert.ok(lines.every((l) => !l.includes("localhost")));
});

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

Deno.test("welcome: without demo data it says how to make a key; a public issuer is used as given", () => {
  const lines = welcomeLines({ issuer: "https://portico.example.com/" });
  assert.ok(!lines.some((l) => l.includes("Demo data")));
  assert.deepEqual(lines.slice(1, 6), [
    "  Call the MCP tool server: make a key first (it is shown once), then paste the lines below:",
    "    deno task admin workspace list          # the workspace id",
    "    deno task admin member list --workspace <workspace id>   # a member's user id",
    "    deno task admin apikey create --workspace <workspace id> --user <user id>",
    "    export PORTICO_KEY=pak_…                # the key it printed",
  ]);
  assert.ok(
    lines.includes(
      "    Claude Code          claude mcp add --transport http portico https://portico.example.com/mcp",
    ),
  );
  assert.ok(lines.every((l) => !l.includes("localhost")));
});

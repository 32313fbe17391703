// What `deno task dev` prints once it listens: ready-to-paste lines for the real issuer (key, curl, clients).
import type { DemoResult } from "./demo.ts";
import type { DemoAccount } from "./demo_account.ts";

/** The one line `deno task start` prints when DATABASE_URL is unset (main.ts exits 1 with it). */
export const START_NEEDS_DATABASE_URL =
  "deno task start needs DATABASE_URL (PostgreSQL); for the embedded database use deno task dev";

/**
 * True when the embedded database cannot be opened under these permissions: PGlite reads its WebAssembly and
 * data files from Deno's npm cache, which `deno task start` (read access to `.` only) may not read. Asked once,
 * before opening anything, so the operator gets one line instead of a permission error from inside PGlite.
 */
export function embeddedNeedsMoreReadAccess(databaseUrl: string | undefined): boolean {
  return databaseUrl === undefined && Deno.permissions.querySync({ name: "read" }).state !== "granted";
}

export interface WelcomeInput {
  /** `config.issuer`: every URL printed is built from it, so the port is the one actually configured */
  issuer: string;
  /** the demo data created by this start, if any (its key is known only now) */
  demo?: Pick<DemoResult, "email" | "password" | "apiKey">;
  /** a later start: the demo person, when the demo data is still there (its password is not known) */
  demoAccount?: DemoAccount;
}

const RESET_HINT = "  Lost the password, or signed in wrongly too often? deno task admin demo reset-password";

function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The lines for `PORTICO_KEY`, the tools/list curl and each client; README "Connect …" shows the same. */
export function welcomeLines(input: WelcomeInput): string[] {
  const issuer = input.issuer.replace(/\/+$/, "");
  const mcp = `${issuer}/mcp`;
  const lines: string[] = [""];
  if (input.demo) {
    lines.push(
      "  Demo data created (shown once):",
      `    sign in as   ${input.demo.email}`,
      `    password     ${input.demo.password}`,
      `    MCP API key  ${input.demo.apiKey}`,
      "",
      RESET_HINT,
      "",
      "  Call the MCP tool server (paste into a shell):",
      `    export PORTICO_KEY=${shellQuote(input.demo.apiKey)}`,
    );
  } else {
    // A later start: the key of the first start was shown once, so say where a new one is made — the keys
    // page does it in one form; the one CLI line is for a shell without a browser (ids filled in for the demo).
    const account = input.demoAccount;
    if (account) {
      lines.push(
        "  Demo data (from the first start):",
        `    sign in as   ${account.email}`,
        "",
        RESET_HINT,
        "",
      );
    }
    const workspace = account?.workspaceId ?? "<workspace id>";
    const user = account?.workspaceId ? account.userId : "<user id>";
    lines.push(
      `  Call the MCP tool server: make a key on ${issuer}/account/keys (it is shown once), or in a shell:`,
      `    deno task admin apikey create --workspace ${workspace} --user ${user}`,
      "  then paste:",
      "    export PORTICO_KEY=pak_…                # the key you made",
    );
  }
  lines.push(
    `    curl -s ${mcp} -H 'content-type: application/json' -H "x-api-key: $PORTICO_KEY" \\`,
    `      -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'`,
    "",
    "  Connect an MCP client with the URL alone (it signs you in through the browser; OAuth):",
    `    Claude Code          claude mcp add --transport http portico ${mcp}`,
    `    Cursor               ~/.cursor/mcp.json: { "mcpServers": { "portico": { "url": "${mcp}" } } }`,
    `    VS Code              .vscode/mcp.json: { "servers": { "portico": { "type": "http", "url": "${mcp}" } } }`,
    `    Claude Desktop       npx -y mcp-remote ${mcp}`,
    "  or with the key instead of a sign-in:",
    `    Claude Code          claude mcp add --transport http portico ${mcp} --header "x-api-key: $PORTICO_KEY"`,
    `    Cursor               { "mcpServers": { "portico": { "url": "${mcp}", "headers": { "x-api-key": "<key>" } } } }`,
    `    Claude Desktop       npx -y mcp-remote ${mcp} --header "x-api-key:$PORTICO_KEY"`,
    "",
  );
  return lines;
}

export function welcomeText(input: WelcomeInput): string {
  return welcomeLines(input).join("\n");
}

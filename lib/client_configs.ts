// Ready-to-paste configurations for MCP clients (Cursor, VS Code, Claude Code, mcp-remote, curl) pointing at
// this server's /mcp with an API key, shown on /account/keys.
//
// The key's value appears on the page once. Cursor, Claude Code and curl read it from the PORTICO_KEY
// environment variable and VS Code asks for it, so their files can be shared; the mcp-remote configuration must
// hold it in its `env` block (Claude Desktop starts the bridge without the shell's environment), and the page
// says so. Where each one goes, in words, is the page's (the catalogue's `t.account.keys.where`, by id).
export const KEY_VARIABLE = "PORTICO_KEY";

export interface ClientConfig {
  /** stable id for tests and anchors */
  id: "cursor" | "vscode" | "claude-code" | "mcp-remote" | "curl";
  client: string;
  text: string;
}

const json = (v: unknown) => JSON.stringify(v, null, 2);

/** The configurations for `mcpUrl` (`{ISSUER}/mcp`); `name` is the server's name inside each client. */
export function clientConfigs(mcpUrl: string, name = "portico"): ClientConfig[] {
  const header = `x-api-key: $${KEY_VARIABLE}`;
  return [
    {
      id: "cursor",
      client: "Cursor",
      text: json({
        mcpServers: { [name]: { url: mcpUrl, headers: { "x-api-key": `\${env:${KEY_VARIABLE}}` } } },
      }),
    },
    {
      id: "vscode",
      client: "VS Code",
      text: json({
        inputs: [{ type: "promptString", id: "portico-key", description: "Portico API key", password: true }],
        servers: { [name]: { type: "http", url: mcpUrl, headers: { "x-api-key": "${input:portico-key}" } } },
      }),
    },
    {
      id: "claude-code",
      client: "Claude Code",
      text: `claude mcp add --transport http ${name} ${mcpUrl} --header "${header}"`,
    },
    {
      id: "mcp-remote",
      client: "mcp-remote", // the page adds what it is for (t.account.keys.mcpRemoteClient)
      text: json({
        mcpServers: {
          [name]: {
            command: "npx",
            args: ["-y", "mcp-remote", mcpUrl, "--header", `x-api-key:\${${KEY_VARIABLE}}`],
            env: { [KEY_VARIABLE]: "paste your key here" },
          },
        },
      }),
    },
    {
      id: "curl",
      client: "curl",
      text: [
        `curl -sS ${mcpUrl} \\`,
        `  -H "content-type: application/json" -H "accept: application/json, text/event-stream" \\`,
        `  -H "${header}" \\`,
        `  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'`,
      ].join("\n"),
    },
  ];
}

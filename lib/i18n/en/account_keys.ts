// English: /account/keys (views/keys.tsx) and the toolset words of every page that shows them (views/toolset_choice.tsx,
// the limits of a key or a connected app). Spread into `account` (account.ts): `t.account.keys`, `t.account.toolsets`.
// A sentence with {name} slots is filled with elements by the view, so each language keeps its own word order.
import type { Toolset } from "../../mcp/toolset_names.ts";

/** Each toolset (lib/mcp/toolset_names.ts) as the pages name it to a person; lib/mcp/toolsets.ts TOOLSET_LABELS. */
const labels = {
  projects: "Projects and ideas",
  tasks: "Tasks",
  finance: "Offers and invoices",
  crm: "Clients, contacts and CRM",
  ai: "AI activities",
  documents: "Documents and recordings",
  time: "Time tracking",
  calendar: "Calendars and appointments",
  booking: "Booking settings",
} satisfies Record<Toolset, string>;

export const accountKeys = {
  keys: {
    revoked: "The key was revoked. It stops working on the next request.",
    /** the page's problems, chosen by a code in the query (routes/account_keys.ts) */
    errors: {
      invalid_input: "The key name must be 1-200 characters.",
      not_found: "That workspace or company is not available to you.",
      access_denied: "Only owners and admins create workspace keys.",
      no_key: "There is no such key, or you may not revoke it.",
      unknown_toolset: (list: string) => `Choose toolsets from the list: ${list}.`,
      no_toolset: "Choose at least one toolset (all of them: the key is not limited). No key was created.",
      invalid_read_only: "Read-only is either checked or not. No key was created.",
    },
    noWorkspace: "You are not a member of any workspace, so you cannot create keys.",
    yourRole: (role: string) => `Your role: ${role}. A key acts as you and never reaches more than you can.`,
    keyName: "Key name",
    keyNamePlaceholder: "e.g. Claude",
    limitCompany: "Limit to a company (optional)",
    everyCompanyICanSee: "Every company I can see",
    actsFor: "The key acts for",
    actsForMe: "Me (my role and companies)",
    actsForWorkspace: "The workspace (no person; for integrations)",
    limitTools: "Limit its tools (optional)",
    create: "Create key",
    everyKeyOf: (workspace: string) => `Every key of ${workspace}`,
    yourKeys: "Your keys",
    noKeys: "No keys yet.",
    /** one key's line */
    yours: "yours",
    actsAs: (email: string) => `acts as ${email}`,
    workspaceKey: "workspace key",
    noName: "(no name)",
    onlyCompany: (company: string) => `only ${company}`,
    everyCompany: "every company",
    created: (when: string) => `created ${when}`,
    revokedState: "revoked",
    lastUsed: (when: string) => `last used ${when}`,
    neverUsed: "never used",
    revoke: (label: string) => `Revoke ${label}`,
    /** the key just created */
    newKeyTitle: "Your new key",
    newKeyFor: (workspace: string) => ` for ${workspace}. Copy it now: it is shown only this once.`,
    copyKey: "Copy key",
    copied: "Copied to the clipboard.",
    selected: "Selected: press Ctrl+C (or Cmd+C) to copy.",
    sendAs: "Send it as the {header} header to {url}, or set it as {variable} for the configurations below.",
    /** the ready configurations */
    configsTitle: "Connect a client",
    configsNote:
      "Cursor, Claude Code and curl read the key from {variable} ({export}) and VS Code asks for it, so " +
      "their files hold no secret. The mcp-remote configuration holds the key itself, in its {env}: Claude " +
      "Desktop does not pass your shell's variables on, so keep that file to yourself.",
    mcpRemoteClient: "mcp-remote (Claude Desktop and other stdio-only clients)",
    where: {
      cursor: "~/.cursor/mcp.json (Cursor reads PORTICO_KEY from its environment)",
      vscode: ".vscode/mcp.json (VS Code asks for the key once and stores it)",
      "claude-code": "a terminal, with PORTICO_KEY set",
      "mcp-remote":
        "the client's MCP servers file; put the key in env (the file then holds it: keep it private)",
      curl: "a terminal, with PORTICO_KEY set",
    },
    copyConfig: (client: string) => `Copy ${client} configuration`,
    /** the confirmation page of Revoke */
    confirmTitle: (label: string) => `Revoke ${label}?`,
    confirmText:
      "The key {key} {prefix} of {workspace}{owner} stops working on its next request. This cannot be " +
      "undone: a client using it needs a new key.",
    confirmActsAs: (email: string) => ` (acts as ${email})`,
    confirmWorkspaceKey: " (a workspace key)",
  },
  toolsets: {
    labels,
    legend: "Toolsets it may use",
    readOnly: "Read-only: it may look things up, but not create, change or delete anything",
    every: "every toolset",
    only: (list: string) => `only ${list}`,
    readOnlySuffix: (sets: string) => `${sets}; read-only`,
  },
};

// The operator's commands (`deno task admin …`): parse, call lib/, print one JSON object with --json.
import { parseArgs } from "node:util";
import { AppError } from "../errors.ts";
import { createAgent, createUser, subscribeAgent, unlockAgent } from "../accounts.ts";
import { addMember, createCompany, createWorkspace } from "../workspace/workspaces.ts";
import { MODULES } from "../workspace/modules.ts";
import { type ApiKeyKind, createApiKey, revokeApiKey } from "../api_keys.ts";
import { type AuthMethod, createClient } from "../oauth/clients.ts";
import { GRANT_TYPES } from "../oauth/grants/names.ts";
import { setUserDisabled } from "../accounts.ts";
import { listSigningKeys, rotateSigningKey } from "../oauth/keys.ts";
import { isKnownScope } from "../oauth/scope_names.ts";
import { recentAudit } from "../audit.ts";
import { requireUuid } from "../errors.ts";
import { type AdminIo, B, type Command, integer, opt, S, str, UsageError, type Values } from "./command.ts";
import { sweep, sweepOptions } from "../oauth/sweeper.ts";
import { parseConfig } from "../config.ts";
import { LOOKUP_COMMANDS } from "./lookup.ts";
import { RECOVERY_COMMANDS, requirePolicy } from "./recovery.ts";
import { APPROVAL_COMMANDS } from "./approvals_cli.ts";

export type { AdminIo } from "./command.ts";

function list(value: string | undefined): string[] {
  return (value ?? "").split(",").map((s) => s.trim()).filter(Boolean);
}

// Commands of other modules join the table by name; `--help` lists them grouped by their first word.
const COMMANDS: Record<string, Command> = {
  ...LOOKUP_COMMANDS,
  ...RECOVERY_COMMANDS,
  "user create": {
    usage: "user create --email E --password P [--name N] [--plan P] [--credits N]",
    help: "Creates a person; the password must meet the password policy (12+ characters, not common).",
    options: { email: S, password: S, name: S, plan: S, credits: S },
    required: ["email", "password"],
    run: async (v, io) => {
      const input = {
        email: str(v, "email"),
        password: str(v, "password"),
        name: opt(v, "name"),
        plan: opt(v, "plan"),
        credits: integer(v, "credits"),
      };
      await requirePolicy(input.password, input);
      const user = await createUser(io.sql, input);
      // Checked against the policy just now: the first sign-in need not check it again.
      await io.sql`update users set password_changed_at = now() where id = ${user.id}`;
      return user;
    },
  },
  "agent create": {
    usage: "agent create --name N",
    options: { name: S },
    required: ["name"],
    run: (v, io) => createAgent(io.sql, str(v, "name")),
  },
  "agent unlock": {
    usage: "agent unlock --user U --agent A",
    options: { user: S, agent: S },
    required: ["user", "agent"],
    run: async (v, io) => {
      await unlockAgent(io.sql, str(v, "user"), str(v, "agent"));
      return { ok: true };
    },
  },
  "agent subscribe": {
    usage: "agent subscribe --user U --agent A --plan P",
    options: { user: S, agent: S, plan: S },
    required: ["user", "agent", "plan"],
    run: async (v, io) => {
      await subscribeAgent(io.sql, str(v, "user"), str(v, "agent"), str(v, "plan"));
      return { ok: true };
    },
  },
  "workspace create": {
    usage: `workspace create --name N [--modules m1,m2|all]  (modules: ${MODULES.join(", ")})`,
    options: { name: S, modules: S },
    required: ["name"],
    run: (v, io) => {
      const raw = opt(v, "modules");
      const modules = raw === "all" ? [...MODULES] : list(raw);
      return createWorkspace(io.sql, str(v, "name"), modules);
    },
  },
  "company create": {
    usage: "company create --workspace W --name N",
    options: { workspace: S, name: S },
    required: ["workspace", "name"],
    run: (v, io) => createCompany(io.sql, str(v, "workspace"), str(v, "name")),
  },
  "member add": {
    usage: "member add --workspace W --user U --role R [--companies C1,C2]",
    options: { workspace: S, user: S, role: S, companies: S },
    required: ["workspace", "user", "role"],
    run: async (v, io) => {
      const companies = opt(v, "companies");
      await addMember(
        io.sql,
        str(v, "workspace"),
        str(v, "user"),
        str(v, "role"),
        companies === undefined ? null : list(companies),
      );
      return { ok: true };
    },
  },
  "apikey create": {
    usage:
      "apikey create --workspace W [--user U] [--company C] [--kind user|workspace|internal] [--name N] " +
      "[--toolsets projects,tasks,…] [--read-only]",
    options: { workspace: S, user: S, company: S, kind: S, name: S, toolsets: S, "read-only": B },
    required: ["workspace"],
    run: (v, io) =>
      createApiKey(io.sql, {
        workspaceId: str(v, "workspace"),
        userId: opt(v, "user"),
        companyId: opt(v, "company"),
        kind: opt(v, "kind") as ApiKeyKind | undefined,
        name: opt(v, "name"),
        toolsets: opt(v, "toolsets") === undefined ? undefined : list(opt(v, "toolsets")),
        readOnly: v["read-only"] === true,
      }),
  },
  "apikey revoke": {
    usage: "apikey revoke --id K",
    options: { id: S },
    required: ["id"],
    run: async (v, io) => {
      await revokeApiKey(io.sql, str(v, "id"));
      return { ok: true };
    },
  },
  "client create": {
    usage: "client create --name N --redirect-uri U [--redirect-uri U2 …] [--post-logout-redirect-uri P …] " +
      "[--confidential] " +
      '[--auth-method client_secret_basic|client_secret_post] [--scope "S …"] ' +
      `[--grant-types ${GRANT_TYPES.join(",")}]`,
    options: {
      name: S,
      "redirect-uri": { type: "string", multiple: true },
      "post-logout-redirect-uri": { type: "string", multiple: true },
      confidential: B,
      "auth-method": S,
      scope: S,
      "grant-types": S,
    },
    required: ["name", "redirect-uri"],
    run: async (v, io) => {
      const scopes = (opt(v, "scope") ?? "openid profile").split(/\s+/).filter(Boolean);
      for (const s of scopes) if (!isKnownScope(s)) throw new UsageError(`unknown scope ${s}`);
      const method = opt(v, "auth-method");
      if (method !== undefined && method !== "client_secret_basic" && method !== "client_secret_post") {
        throw new UsageError("--auth-method must be client_secret_basic or client_secret_post");
      }
      if (method !== undefined && v.confidential !== true) {
        throw new UsageError("--auth-method needs --confidential");
      }
      const grants = opt(v, "grant-types");
      const created = await createClient(io.sql, {
        name: str(v, "name"),
        redirectUris: v["redirect-uri"] as string[],
        postLogoutRedirectUris: (v["post-logout-redirect-uri"] as string[] | undefined) ?? [],
        confidential: v.confidential === true,
        authMethod: method as AuthMethod | undefined,
        scopes,
        grantTypes: grants === undefined ? [...GRANT_TYPES] : list(grants),
        selfRegistered: false,
      });
      return created.clientSecret === undefined
        ? { client_id: created.clientId }
        : { client_id: created.clientId, client_secret: created.clientSecret };
    },
  },
  "user disable": {
    usage: "user disable --id U  (no sign-in, no refresh; keys and tokens stop at the next /mcp request)",
    options: { id: S },
    required: ["id"],
    run: async (v, io) => {
      await setUserDisabled(io.sql, requireUuid(str(v, "id"), "id"), true);
      return { ok: true };
    },
  },
  "user enable": {
    usage: "user enable --id U",
    options: { id: S },
    required: ["id"],
    run: async (v, io) => {
      await setUserDisabled(io.sql, requireUuid(str(v, "id"), "id"), false);
      return { ok: true };
    },
  },
  "audit list": {
    usage: "audit list [--workspace W] [--limit N]  (newest first; default 50, at most 1000)",
    options: { workspace: S, limit: S },
    required: [],
    run: async (v, io) => {
      const limit = integer(v, "limit") ?? 50;
      if (limit < 1 || limit > 1000) throw new UsageError("--limit must be between 1 and 1000");
      const workspace = opt(v, "workspace");
      const entries = await recentAudit(io.sql, {
        workspaceId: workspace === undefined ? undefined : requireUuid(workspace, "workspace"),
        limit,
      });
      return { entries };
    },
  },
  sweep: {
    usage: "sweep  (deletes expired codes, sessions, tokens, grants, rate-limit rows and unused clients now)",
    options: {},
    required: [],
    // Rows deleted per table, one `table: n` line each (or one JSON object).
    run: async (_v, io) => ({ ...await sweep(io.sql, sweepOptions(io.config ?? parseConfig({}))) }),
  },
  "keys rotate": {
    usage: "keys rotate  (published at once; signs from activates_at, when cached key sets have expired)",
    options: {},
    required: [],
    run: (_v, io) => rotateSigningKey(io.sql, io.secretKey),
  },
  "keys list": {
    usage: "keys list  (the published keys: next, signing, retiring)",
    options: {},
    required: [],
    run: async (_v, io) => ({ keys: await listSigningKeys(io.sql) }),
  },
  ...APPROVAL_COMMANDS,
};

const PROGRAM = "deno task admin";

/** Every command's usage line, grouped by its first word in order of appearance. */
export function usage(): string {
  return [
    `usage: ${PROGRAM} <command> [--json]   (${PROGRAM} <command> --help for one command)`,
    ...groupLines(),
  ]
    .join("\n");
}

function groups(): Map<string, [string, Command][]> {
  const out = new Map<string, [string, Command][]>();
  for (const [name, command] of Object.entries(COMMANDS)) {
    const group = name.split(" ")[0];
    out.set(group, [...(out.get(group) ?? []), [name, command]]);
  }
  return out;
}

function groupLines(only?: string): string[] {
  const lines: string[] = [];
  for (const [group, commands] of groups()) {
    if (only !== undefined && group !== only) continue;
    lines.push("", `${group}:`, ...commands.map(([, c]) => `  ${c.usage}`));
  }
  return lines;
}

function describe(name: string, c: Command) {
  return { command: name, usage: `${PROGRAM} ${c.usage}`, ...(c.help ? { help: c.help } : {}) };
}

/**
 * Answers `--help`/`-h`/`help` at any depth without a database: `admin --help`, `admin <group> --help`,
 * `admin <group> <command> --help`. Returns the exit code, or undefined when argv asks for no help.
 * admin.ts calls it before opening the database, so help works with none configured.
 */
export function adminHelp(argv: string[], io: Pick<AdminIo, "out" | "err">): number | undefined {
  const json = argv.includes("--json");
  const words = argv.filter((a) => a !== "--json");
  const asked = words.length === 0
    ? false
    : words[0] === "help" || words.some((a) => a === "--help" || a === "-h");
  if (!asked) return undefined;
  const path = words.filter((a) => a !== "help" && a !== "--help" && a !== "-h" && !a.startsWith("-"));
  const name = path.slice(0, 2).join(" ");
  const command = COMMANDS[name];
  if (command) {
    if (json) io.out(JSON.stringify(describe(name, command)));
    else {
      io.out(`usage: ${PROGRAM} ${command.usage} [--json]`);
      if (command.help) io.out(`\n${command.help}`);
    }
    return 0;
  }
  const group = path[0];
  if (group !== undefined && !groups().has(group)) {
    io.err(`admin: unknown command "${path.join(" ")}"`);
    io.err(`admin: ${PROGRAM} --help lists the commands`);
    return 2;
  }
  const chosen = [...groups()].filter(([g]) => group === undefined || g === group).flatMap(([, cs]) => cs);
  if (json) io.out(JSON.stringify({ commands: chosen.map(([n, c]) => describe(n, c)) }));
  else {
    io.out(
      group === undefined
        ? usage()
        : [`usage: ${PROGRAM} ${group} <command> [--json]`, ...groupLines(group)].join("\n"),
    );
  }
  return 0;
}

/**
 * Text as it may reach the operator's terminal: control characters (C0, DEL, C1) shown as U+FFFD. A name an app
 * gave itself at registration could otherwise carry escape sequences (retitle the window, rewrite what was printed).
 */
export function printable(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "\ufffd");
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return printable(value.join(","));
  return printable(String(value));
}

/** A plain-text table: a header, one line per row, columns padded to their widest cell. */
export function textTable(rows: Record<string, unknown>[], columns: string[]): string {
  const cells = [columns, ...rows.map((r) => columns.map((c) => cell(r[c])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  return cells.map((line) => line.map((v, i) => v.padEnd(widths[i])).join("  ").trimEnd()).join("\n");
}

function human(result: Record<string, unknown>, command: Command): string {
  if (command.table) {
    const rows = (result[command.table.key] ?? []) as Record<string, unknown>[];
    const { key, columns, empty, cut } = command.table;
    const text = rows.length === 0 ? (empty ?? `no ${key}`) : textTable(rows, columns);
    if (result.truncated !== true) return text;
    return `${text}\n${
      cut ? cut(result, rows.length) : `(more than ${rows.length}; raise --limit, or --json for every field)`
    }`;
  }
  return Object.entries(result).map(([k, val]) =>
    Array.isArray(val)
      ? `${k}:${val.map((item) => `\n  ${JSON.stringify(item)}`).join("")}`
      : `${k}: ${printable(String(val))}`
  ).join("\n");
}

/** Runs one admin command; returns the process exit code (0 ok, 1 refused, 2 bad command line). */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  const help = adminHelp(argv, io);
  if (help !== undefined) return help;
  // Commands are two words (`client trust`) or one (`sweep`).
  const words = COMMANDS[argv.slice(0, 2).join(" ")] ? 2 : 1;
  const name = COMMANDS[argv[0] ?? ""] && words === 1 ? argv[0] : argv.slice(0, 2).join(" ");
  const command = COMMANDS[name];
  if (!command) {
    io.err(argv.length ? `admin: unknown command "${name}"` : "admin: no command given");
    io.err(`admin: ${PROGRAM} --help lists the commands`);
    return 2;
  }
  let values: Values;
  try {
    const parsed = parseArgs({
      args: argv.slice(words),
      options: { ...command.options, json: B },
      strict: true,
      allowPositionals: command.positional !== undefined,
    });
    values = parsed.values as Values;
    if (parsed.positionals.length > 1) throw new UsageError("too many arguments");
    if (command.positional && parsed.positionals.length === 1) {
      if (values[command.positional] !== undefined) {
        throw new UsageError(`give ${command.positional} once, as --${command.positional} or positionally`);
      }
      values[command.positional] = parsed.positionals[0];
    }
    const missing = command.required.filter((r) => values[r] === undefined);
    if (missing.length) throw new UsageError(`missing --${missing.join(", --")}`);
    if (command.oneOf && command.oneOf.filter((o) => values[o] !== undefined).length !== 1) {
      throw new UsageError(`give exactly one of --${command.oneOf.join(", --")}`);
    }
  } catch (err) {
    // node:util's messages run over several lines; the operator gets the first, then the usage.
    io.err(`admin: ${(err instanceof Error ? err.message : String(err)).split("\n")[0]}`);
    io.err(`usage: ${PROGRAM} ${command.usage}`);
    return 2;
  }
  try {
    const result = await command.run(values, io);
    io.out(values.json ? JSON.stringify(result) : human(result, command));
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`admin: ${err.message}`);
      return 2;
    }
    if (err instanceof AppError) {
      io.err(`admin: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

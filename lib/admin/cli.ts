// The operator's commands (`deno task admin …`): parse, call lib/, print one JSON object with --json.
import { parseArgs } from "node:util";
import type { Sql } from "../db/client.ts";
import { AppError } from "../errors.ts";
import { createAgent, createUser, subscribeAgent, unlockAgent } from "../accounts.ts";
import { addMember, createCompany, createWorkspace } from "../workspace/workspaces.ts";
import { MODULES } from "../workspace/modules.ts";
import { type ApiKeyKind, createApiKey, revokeApiKey } from "../api_keys.ts";
import { type AuthMethod, createClient, setClientTrusted } from "../oauth/clients.ts";
import { setUserDisabled } from "../accounts.ts";
import { listSigningKeys, rotateSigningKey } from "../oauth/keys.ts";
import { isKnownScope } from "../oauth/scope_names.ts";
import { recentAudit } from "../audit.ts";
import { requireUuid } from "../errors.ts";
import { type Config, parseConfig } from "../config.ts";
import { sweep, sweepOptions } from "../oauth/sweeper.ts";

export interface AdminIo {
  sql: Sql;
  secretKey: string;
  /** the loaded configuration (admin.ts); absent in tests = the defaults */
  config?: Config;
  out(line: string): void;
  err(line: string): void;
}

type Values = Record<string, string | boolean | string[] | undefined>;
type Option = { type: "string" | "boolean"; multiple?: boolean };

interface Command {
  usage: string;
  options: Record<string, Option>;
  required: string[];
  /** an option that may also be given as the one positional argument (`client trust pcl_…`) */
  positional?: string;
  run(v: Values, io: AdminIo): Promise<Record<string, unknown>>;
}

/** Thrown for a malformed command line; printed with the command's usage. */
class UsageError extends Error {}

function str(v: Values, name: string): string {
  const value = v[name];
  return typeof value === "string" ? value : "";
}

function opt(v: Values, name: string): string | undefined {
  const value = v[name];
  return typeof value === "string" ? value : undefined;
}

function list(value: string | undefined): string[] {
  return (value ?? "").split(",").map((s) => s.trim()).filter(Boolean);
}

function integer(v: Values, name: string): number | undefined {
  const value = opt(v, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a non-negative integer`);
  return Number(value);
}

const S = { type: "string" } as const;
const B = { type: "boolean" } as const;

const COMMANDS: Record<string, Command> = {
  "user create": {
    usage: "user create --email E --password P [--name N] [--plan P] [--credits N]",
    options: { email: S, password: S, name: S, plan: S, credits: S },
    required: ["email", "password"],
    run: (v, io) =>
      createUser(io.sql, {
        email: str(v, "email"),
        password: str(v, "password"),
        name: opt(v, "name"),
        plan: opt(v, "plan"),
        credits: integer(v, "credits"),
      }),
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
    usage: "apikey create --workspace W [--user U] [--company C] [--kind user|workspace|internal] [--name N]",
    options: { workspace: S, user: S, company: S, kind: S, name: S },
    required: ["workspace"],
    run: (v, io) =>
      createApiKey(io.sql, {
        workspaceId: str(v, "workspace"),
        userId: opt(v, "user"),
        companyId: opt(v, "company"),
        kind: opt(v, "kind") as ApiKeyKind | undefined,
        name: opt(v, "name"),
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
    usage: "client create --name N --redirect-uri U [--redirect-uri U2 …] [--confidential] " +
      '[--auth-method client_secret_basic|client_secret_post] [--scope "S …"] ' +
      "[--grant-types authorization_code,refresh_token]",
    options: {
      name: S,
      "redirect-uri": { type: "string", multiple: true },
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
        confidential: v.confidential === true,
        authMethod: method as AuthMethod | undefined,
        scopes,
        grantTypes: grants === undefined ? ["authorization_code", "refresh_token"] : list(grants),
        selfRegistered: false,
      });
      return created.clientSecret === undefined
        ? { client_id: created.clientId }
        : { client_id: created.clientId, client_secret: created.clientSecret };
    },
  },
  "client trust": {
    usage:
      "client trust <client_id>  (a self-registered or metadata-document client may then obtain workspace)",
    options: { id: S },
    required: ["id"],
    positional: "id",
    run: (v, io) => setTrust(io, str(v, "id"), true),
  },
  "client untrust": {
    usage: "client untrust <client_id>  (ends its grants that carry workspace)",
    options: { id: S },
    required: ["id"],
    positional: "id",
    run: (v, io) => setTrust(io, str(v, "id"), false),
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
};

async function setTrust(io: AdminIo, clientId: string, trusted: boolean): Promise<Record<string, unknown>> {
  if (!(await setClientTrusted(io.sql, clientId, trusted))) {
    throw new AppError("not_found", `no client ${clientId}`);
  }
  return { client_id: clientId, trusted };
}

export function usage(): string {
  return ["usage: deno task admin <command> [--json]", ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)]
    .join("\n");
}

function human(result: Record<string, unknown>): string {
  return Object.entries(result).map(([k, val]) =>
    Array.isArray(val) ? `${k}:${val.map((item) => `\n  ${JSON.stringify(item)}`).join("")}` : `${k}: ${val}`
  ).join("\n");
}

/** Runs one admin command; returns the process exit code (0 ok, 1 refused, 2 bad command line). */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  // Commands are two words (`client trust`) or one (`sweep`).
  const words = COMMANDS[argv.slice(0, 2).join(" ")] ? 2 : 1;
  const name = COMMANDS[argv[0] ?? ""] && words === 1 ? argv[0] : argv.slice(0, 2).join(" ");
  const command = COMMANDS[name];
  if (!command) {
    io.err(argv.length ? `admin: unknown command "${name}"` : "admin: no command given");
    io.err(usage());
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
  } catch (err) {
    // node:util's messages run over several lines; the operator gets the first, then the usage.
    io.err(`admin: ${(err instanceof Error ? err.message : String(err)).split("\n")[0]}`);
    io.err(`usage: deno task admin ${command.usage}`);
    return 2;
  }
  try {
    const result = await command.run(values, io);
    io.out(values.json ? JSON.stringify(result) : human(result));
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

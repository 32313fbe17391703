// The one place that reads the environment: a zod schema that fails fast with a clear message.
import { z } from "zod";
import { isLoopbackHostname, isLoopbackHttpPrefix } from "./net/loopback.ts";

/**
 * Whether `text` can be a trusted metadata-document URL prefix (TRUSTED_CLIENT_ID_PREFIXES, and the prefixes
 * operators trust on /operator/clients): https with at least the host and a slash, or a loopback http origin and
 * a slash (development); no query or fragment, at most 500 characters.
 */
export function isClientIdPrefix(text: string): boolean {
  return text.length <= 500 && !/[?#\s]/.test(text) &&
    (/^https:\/\/[^/?#@]+\//.test(text) || isLoopbackHttpPrefix(text));
}

export type McpVariant = "A" | "B";
export type LogLevel = "debug" | "info" | "warn" | "error";

export interface RateLimit {
  max: number;
  windowSeconds: number;
}

export interface Config {
  port: number;
  host: string;
  issuer: string;
  databaseUrl: string | undefined;
  /** DATABASE_POOLER: `transaction` when DATABASE_URL reaches a transaction-mode pooler (lib/db/client.ts) */
  databasePooler: "none" | "transaction";
  dataDir: string;
  mcpVariant: McpVariant;
  /** undefined only in embedded mode before `resolveSecretKey` fills it from DATA_DIR */
  secretKey: string | undefined;
  registrationRateLimit: RateLimit;
  /** introspection requests per client address per window, per instance */
  introspectionRateLimit: RateLimit;
  /** refused requests at /oauth/token and /oauth/revoke per client address (successful ones are not counted) */
  tokenFailureRateLimit: RateLimit;
  /** /mcp requests per API key and per OAuth grant, per instance; null = no limit (MCP_RATE_LIMIT=0) */
  mcpRateLimit: RateLimit | null;
  /** /mcp requests without an accepted credential per client address, per instance; null = no limit */
  mcpUnauthRateLimit: RateLimit | null;
  trustedProxies: string[];
  /** metadata-document client ids (URLs) starting with one of these may obtain the `workspace` scope */
  trustedClientIdPrefixes: string[];
  logLevel: LogLevel;
  /** rotate the signing key automatically when the newest is older than this many days; 0: only by hand */
  keyRotationDays: number;
  /** resource servers for introspection: client_id → the resources (token audiences) it may introspect */
  resourceServers: Record<string, string[]>;
  /** Postgres statement_timeout on every connection, and the client's silence limit (+2 s); 0 turns both off */
  statementTimeoutMs: number;
  /** how long a request's body may take to arrive in full (408 after); 0: no limit */
  httpRequestTimeoutMs: number;
  /** `deno` (Deno.serve's machinery, fastest) or `node` (node:http; also enforces the idle timeout) */
  httpFrontEnd: "deno" | "node";
  /** request headers must arrive within this many ms of the connection opening or the previous answer; 0: no limit */
  httpHeadersTimeoutMs: number;
  /** node front end: a silent connection is closed after this many ms; 0: no limit */
  httpIdleTimeoutMs: number;
  /** DENO_SERVE_ADDRESS, set by the platform (Deno Deploy): Deno.serve listens there, not at HOST/PORT */
  denoServeAddress?: string;
  /** REFRESH_REUSE_GRACE_SECONDS: how long a just-rotated refresh token may be presented again (0: never) */
  refreshReuseGraceSeconds: number;
  /** REFRESH_FAMILY_MAX_DAYS: the absolute life of a refresh token family, from the code exchange */
  refreshFamilyMaxDays: number;
  /** SWEEP_INTERVAL_SECONDS: how often the server deletes expired rows (0: never; `deno task admin sweep`) */
  sweepIntervalSeconds: number;
  /** UNUSED_CLIENT_DAYS: a self-registered client unused this long (and holding no grant) is deleted */
  unusedClientDays: number;
  /** how RS256 signatures are made: `auto` (OpenSSL through FFI when permitted and present), `openssl`, `webcrypto` */
  signer: "auto" | "openssl" | "webcrypto";
  /** the libcrypto to load instead of the platform's default name (`libcrypto.so.3` on Linux) */
  libcryptoPath: string | undefined;
  /** the product name every page shows (BRAND_NAME) */
  brandName: string;
  /** the pages' accent colour as #rrggbb (BRAND_ACCENT); undefined keeps Portico's own */
  brandAccent: string | undefined;
  /** a local PNG or SVG file shown on every page (BRAND_LOGO), read once at start by lib/branding.ts */
  brandLogo: string | undefined;
  /** APPROVAL_WEBHOOK_URL: where a new approval request is POSTed (lib/oauth/approval_notice.ts); unset: log only */
  approvalWebhookUrl: string | undefined;
  /**
   * CONFIRM_WRITES: a call that deletes data or moves money, from a client that cannot ask the person (every 2025
   * client): `off` runs it as before, `require` refuses it (docs/mcp.md "Confirmations")
   */
  confirmWrites: "off" | "require";
  /**
   * WORKSPACE_TWO_FACTOR: `require` asks every person for a second factor before they let an app act in a
   * workspace (the `workspace` scope), whatever their workspaces' own policy; `off` leaves it to the workspaces
   */
  workspaceTwoFactor: "off" | "require";
  /** SMTP_URL: where mail goes (smtp:// or smtps://, credentials in the URL); unset: the log / dev mailbox */
  smtpUrl: string | undefined;
  /** MAIL_FROM: the sender of every mail; default `no-reply@` the issuer's host */
  mailFrom: string;
  /**
   * SESSION_IDLE_MINUTES: a browser session unused this long is over (beside the 30-day absolute limit); 0: no
   * idle limit
   */
  sessionIdleMinutes: number;
}

/** Thrown for a bad setting; main.ts prints `message` as one line and exits non-zero. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const port = z.coerce.number({ error: "must be a number" }).int("must be an integer").min(
  0,
  "must be between 0 and 65535",
).max(65535, "must be between 0 and 65535");

const rateLimit = z.string().regex(/^\d+\/\d+$/, "must look like MAX/SECONDS, e.g. 20/3600").transform(
  (s): RateLimit => {
    const [max, windowSeconds] = s.split("/").map(Number);
    return { max, windowSeconds };
  },
).refine((r) => r.max >= 1 && r.windowSeconds >= 1, "MAX and SECONDS must both be at least 1");

const millis = z.coerce.number({ error: "must be a number of milliseconds" }).int("must be an integer").min(
  0,
  "must be 0 (off) or more",
).max(3_600_000, "must be at most 3600000 (one hour)");
/** A rate limit, or `0` for none. */
const rateLimitOrOff = z.string().refine(
  (s) => s === "0" || /^\d+\/\d+$/.test(s),
  { message: "must look like MAX/SECONDS, e.g. 600/60, or 0 for no limit", abort: true },
).transform((s): RateLimit | null => {
  if (s === "0") return null;
  const [max, windowSeconds] = s.split("/").map(Number);
  return { max, windowSeconds };
}).refine(
  (r) => r === null || (r.max >= 1 && r.windowSeconds >= 1),
  "MAX and SECONDS must both be at least 1 (0 alone turns the limit off)",
);
function whole(min: number, max: number) {
  return z.coerce.number({ error: "must be a number" }).int("must be a whole number").min(
    min,
    `must be between ${min} and ${max}`,
  ).max(max, `must be between ${min} and ${max}`);
}

const url = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}, { message: "must be an absolute http(s) URL", abort: true });

/**
 * Whether `text` can be APPROVAL_WEBHOOK_URL: an absolute https URL, or http to a loopback host (a relay on this
 * machine, tests); no fragment. User name and password are allowed (sent as Basic authentication).
 */
export function isWebhookUrl(text: string): boolean {
  try {
    const u = new URL(text);
    if (u.hash || text.includes("#")) return false;
    return u.protocol === "https:" || (u.protocol === "http:" && isLoopbackHostname(u.hostname));
  } catch {
    return false;
  }
}

/**
 * Whether postgres.js can parse the URL (it reads it with WHATWG URL after keeping only the first of several
 * comma-separated hosts), so that a URL it would refuse stops start-up here, with a message that does not echo
 * the value: its own error, "Invalid URL: '<the whole URL>'", carries the password to stderr and the log store.
 */
function parsesAsDatabaseUrl(s: string): boolean {
  try {
    // the same steps as postgres.js 3.4.9's parseUrl
    let host = s.slice(s.indexOf("://") + 3).split(/[?/]/)[0];
    host = decodeURIComponent(host.slice(host.indexOf("@") + 1));
    const u = new URL(s.replace(host, host.split(",")[0]));
    decodeURIComponent(u.username);
    decodeURIComponent(u.password);
    return true;
  } catch {
    return false;
  }
}

const schema = z.object({
  PORT: port.default(8000),
  HOST: z.string().min(1, "must not be empty").default("127.0.0.1"),
  ISSUER: url.refine((s) => {
    const u = new URL(s);
    return !u.search && !u.hash;
  }, "must not carry a query or fragment").optional(),
  DATABASE_URL: z.string().refine((s) => /^postgres(ql)?:\/\//.test(s), {
    message: "must start with postgres://",
    abort: true,
  }).refine(
    parsesAsDatabaseUrl,
    "is not a valid URL (a space, or a character of the password that must be percent-encoded: @ : / ? # %)",
  ).optional(),
  DATABASE_POOLER: z.enum(["none", "transaction"], { error: "must be none or transaction" }).default("none"),
  DATA_DIR: z.string().min(1, "must not be empty").default("./.data"),
  MCP_VARIANT: z.enum(["A", "B"], { error: "must be A or B" }).default("A"),
  SECRET_KEY: z.string().min(32, "must be at least 32 characters").optional(),
  REGISTRATION_RATE_LIMIT: rateLimit.prefault("20/3600"),
  INTROSPECTION_RATE_LIMIT: rateLimit.prefault("600/60"),
  TOKEN_FAILURE_RATE_LIMIT: rateLimit.prefault("120/60"),
  MCP_RATE_LIMIT: rateLimitOrOff.prefault("600/60"),
  MCP_UNAUTH_RATE_LIMIT: rateLimitOrOff.prefault("60/60"),
  TRUSTED_PROXIES: z.string().default("").transform((s) =>
    s.split(",").map((p) => p.trim()).filter((p) => p.length > 0)
  ),
  TRUSTED_CLIENT_ID_PREFIXES: z.string().default("").transform((s) =>
    s.split(",").map((p) => p.trim()).filter((p) => p.length > 0)
  ).refine(
    (list) => list.every(isClientIdPrefix),
    "must be comma-separated https URL prefixes that include at least the host and a slash, e.g. https://claude.ai/",
  ),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"], { error: "must be debug, info, warn or error" })
    .default("info"),
  KEY_ROTATION_DAYS: z.coerce.number({ error: "must be a number" }).int("must be an integer").min(
    0,
    "must be between 0 and 3650",
  ).max(3650, "must be between 0 and 3650").default(0),
  RESOURCE_SERVERS: z.string().default("").transform((s) =>
    s.split(",").map((p) => p.trim()).filter((p) => p.length > 0)
  ).refine(
    (list) => list.every((p) => /^[^=\s]+=https?:\/\/[^\s#]+$/.test(p)),
    "must be comma-separated client_id=resource pairs, e.g. pcl_abc=https://api.example.com",
  ).transform((list) => {
    const out: Record<string, string[]> = {};
    for (const pair of list) {
      const i = pair.indexOf("=");
      (out[pair.slice(0, i)] ??= []).push(pair.slice(i + 1));
    }
    return out;
  }),
  STATEMENT_TIMEOUT_MS: millis.default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: millis.default(30_000),
  HTTP_FRONT_END: z.enum(["deno", "node"], { error: "must be deno or node" }).default("deno"),
  HTTP_HEADERS_TIMEOUT_MS: millis.default(10_000),
  HTTP_IDLE_TIMEOUT_MS: millis.default(60_000),
  DENO_SERVE_ADDRESS: z.string().optional(),
  REFRESH_REUSE_GRACE_SECONDS: whole(0, 600).default(60),
  REFRESH_FAMILY_MAX_DAYS: whole(1, 3650).default(90),
  SWEEP_INTERVAL_SECONDS: whole(0, 86400).refine((n) => n === 0 || n >= 60, "must be 0 (off) or at least 60")
    .default(3600),
  UNUSED_CLIENT_DAYS: whole(1, 3650).default(30),
  SIGNER: z.enum(["auto", "openssl", "webcrypto"], { error: "must be auto, openssl or webcrypto" }).default(
    "auto",
  ),
  LIBCRYPTO_PATH: z.string().min(1, "must not be empty").optional(),
  BRAND_NAME: z.string().trim().min(1, "must not be empty").max(60, "must be at most 60 characters")
    .refine((s) => ![...s].some((ch) => ch < " " || ch === "\u007f"), "must not contain control characters")
    .default("Portico"),
  // #rgb is widened to #rrggbb so the contrast arithmetic in lib/branding.ts sees one form.
  BRAND_ACCENT: z.string().regex(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, "must be a hex colour like #2557d6")
    .transform((s) => (s.length === 4 ? `#${s[1]}${s[1]}${s[2]}${s[2]}${s[3]}${s[3]}` : s).toLowerCase())
    .optional(),
  BRAND_LOGO: z.string().regex(/\.(png|svg)$/i, "must be the path of a .png or .svg file").optional(),
  APPROVAL_WEBHOOK_URL: z.string().refine(
    isWebhookUrl,
    "must be an absolute https URL without a fragment (plain http only to a loopback host)",
  ).optional(),
  CONFIRM_WRITES: z.enum(["off", "require"], { error: "must be off or require" }).default("off"),
  WORKSPACE_TWO_FACTOR: z.enum(["off", "require"], { error: "must be off or require" }).default("off"),
  SMTP_URL: z.string().refine(
    isSmtpUrl,
    "must be an smtp:// or smtps:// URL with a host, e.g. smtps://user:pass@mail.example.com",
  )
    .optional(),
  MAIL_FROM: z.string().trim().max(320, "must be at most 320 characters").refine(
    (s) => /^[^\s@<>]+@[^\s@<>]+$/.test(s) || /^[^<>\r\n]{1,100} <[^\s@<>]+@[^\s@<>]+>$/.test(s),
    "must be an address (a@example.com) or a name and an address (Portico <a@example.com>)",
  ).optional(),
  SESSION_IDLE_MINUTES: whole(0, 43200).refine((n) => n === 0 || n >= 5, "must be 0 (off) or at least 5")
    .default(240),
});

/** Whether `text` can be SMTP_URL: smtp:// (STARTTLS when offered) or smtps:// (TLS from the start), with a host. */
export function isSmtpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === "smtp:" || u.protocol === "smtps:") && u.hostname !== "" && !u.hash;
  } catch {
    return false;
  }
}

/** Every variable the schema reads; README's Configuration table lists exactly these (a test checks). */
export const CONFIG_VARIABLES: readonly string[] = Object.freeze(Object.keys(schema.shape));

/** Parses a plain record of environment variables (empty strings count as unset). */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && v !== "") cleaned[k] = v;
  }
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const issue = result.error.issues[0];
    const name = String(issue.path[0] ?? "configuration");
    throw new ConfigError(`config error: ${name} ${issue.message}`);
  }
  const e = result.data;
  if (e.DATABASE_URL && !e.SECRET_KEY) {
    throw new ConfigError(
      "config error: SECRET_KEY is required when DATABASE_URL is set (at least 32 random characters)",
    );
  }
  if (e.DATABASE_POOLER !== "none" && !e.DATABASE_URL) {
    throw new ConfigError(
      "config error: DATABASE_POOLER needs DATABASE_URL (the embedded database has no pooler)",
    );
  }
  const issuer = (e.ISSUER ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  return {
    port: e.PORT,
    host: e.HOST,
    issuer,
    databaseUrl: e.DATABASE_URL,
    databasePooler: e.DATABASE_POOLER,
    dataDir: e.DATA_DIR,
    mcpVariant: e.MCP_VARIANT,
    secretKey: e.SECRET_KEY,
    registrationRateLimit: e.REGISTRATION_RATE_LIMIT,
    introspectionRateLimit: e.INTROSPECTION_RATE_LIMIT,
    tokenFailureRateLimit: e.TOKEN_FAILURE_RATE_LIMIT,
    mcpRateLimit: e.MCP_RATE_LIMIT,
    mcpUnauthRateLimit: e.MCP_UNAUTH_RATE_LIMIT,
    trustedProxies: e.TRUSTED_PROXIES,
    trustedClientIdPrefixes: e.TRUSTED_CLIENT_ID_PREFIXES,
    logLevel: e.LOG_LEVEL,
    keyRotationDays: e.KEY_ROTATION_DAYS,
    resourceServers: e.RESOURCE_SERVERS,
    statementTimeoutMs: e.STATEMENT_TIMEOUT_MS,
    httpRequestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
    httpFrontEnd: e.HTTP_FRONT_END,
    httpHeadersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
    httpIdleTimeoutMs: e.HTTP_IDLE_TIMEOUT_MS,
    denoServeAddress: e.DENO_SERVE_ADDRESS,
    refreshReuseGraceSeconds: e.REFRESH_REUSE_GRACE_SECONDS,
    refreshFamilyMaxDays: e.REFRESH_FAMILY_MAX_DAYS,
    sweepIntervalSeconds: e.SWEEP_INTERVAL_SECONDS,
    unusedClientDays: e.UNUSED_CLIENT_DAYS,
    signer: e.SIGNER,
    libcryptoPath: e.LIBCRYPTO_PATH,
    brandName: e.BRAND_NAME,
    brandAccent: e.BRAND_ACCENT,
    brandLogo: e.BRAND_LOGO,
    approvalWebhookUrl: e.APPROVAL_WEBHOOK_URL,
    confirmWrites: e.CONFIRM_WRITES,
    workspaceTwoFactor: e.WORKSPACE_TWO_FACTOR,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? `no-reply@${new URL(issuer).hostname}`,
    sessionIdleMinutes: e.SESSION_IDLE_MINUTES,
  };
}

/** The variables read: exactly the schema's keys, so a new setting is named once. */
const NAMES = Object.keys(schema.shape);

/** Reads the process environment. The only caller of Deno.env in the project. */
export function loadConfig(): Config {
  const env: Record<string, string | undefined> = {};
  for (const name of NAMES) env[name] = Deno.env.get(name);
  return parseConfig(env);
}

// The requestState of an MCP 2026-07-28 confirmation: minted and signed by this server, bound to one call, spent once.
//
// `c1.<claims as base64url JSON>.<HMAC-SHA256 of "c1.<claims>" as base64url>`, under a key derived from SECRET_KEY
// for this purpose only. The claims carry digests, not the call itself: the tool, the canonical JSON of its
// arguments, the caller's credential and scope, the text the person was shown, an expiry and a random nonce.
// Nothing is stored until the state is used; then its nonce goes into mcp_spent_request_states, once.
import { Buffer } from "node:buffer";
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { purposeKey } from "../crypto.ts";
import type { Db } from "../db/client.ts";
import type { Caller } from "./caller.ts";
import { callerClaims } from "./exports.ts";

/** How long a confirmation may take: the state expires this many seconds after it was minted. */
export const CONFIRMATION_TTL_SECONDS = 300;
/** Expired spent-nonce rows deleted per state spent: the table stays small without a sweeper of its own. */
export const SPENT_SWEEP_ROWS = 100;

const VERSION = "c1";
const MAX_STATE_CHARS = 2048;
const B64URL = /^[A-Za-z0-9_-]+$/;
const DIGEST = /^[A-Za-z0-9_-]{43}$/;

/** The signed part of a state. Short names: the state travels in every retry. */
export interface StateClaims {
  /** the tool */
  t: string;
  /** SHA-256 of the canonical JSON of the call's arguments (base64url) */
  a: string;
  /** SHA-256 of the caller's credential and scope (base64url; `callerDigest`) */
  c: string;
  /** SHA-256 of the confirmation text the person was shown (base64url) */
  m: string;
  /** expiry, Unix seconds */
  exp: number;
  /** 16 random bytes (base64url): what makes the state single-use */
  n: string;
}

/** What the call is: compared with the claims when a retry brings the state back. */
export interface CallBinding {
  tool: string;
  args: Record<string, unknown>;
  caller: Caller;
}

export type StateCheck =
  | { ok: true; claims: StateClaims }
  | { ok: false; reason: "malformed" | "expired" | "mismatch" };

/** HKDF-SHA256(SECRET_KEY, info "portico:mcp-confirmation"): never the raw secret, never another purpose's key. */
function stateKey(secret: string): Buffer {
  return purposeKey(secret, "mcp-confirmation");
}

function mac(secret: string, signed: string): Buffer {
  return createHmac("sha256", stateKey(secret)).update(signed).digest();
}

/** JSON with every object's keys sorted (recursively): equal values give equal text, whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const parts = Object.keys(obj).sort().filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`);
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** SHA-256 as base64url (43 characters). */
export function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

/**
 * The credential and scope a state is bound to: the workspace, the API key id or the OAuth grant (and client) id,
 * the user, the key's company scope — the same facts a signed download link binds (lib/mcp/exports.ts).
 */
export function callerDigest(caller: Caller): string {
  return digest(canonicalJson(callerClaims(caller)));
}

/** A new state for `call`, showing `message`, valid CONFIRMATION_TTL_SECONDS from `nowMs`. */
export function mintState(secret: string, call: CallBinding, message: string, nowMs = Date.now()): string {
  const claims: StateClaims = {
    t: call.tool,
    a: digest(canonicalJson(call.args)),
    c: callerDigest(call.caller),
    m: digest(message),
    exp: Math.floor(nowMs / 1000) + CONFIRMATION_TTL_SECONDS,
    n: randomBytes(16).toString("base64url"),
  };
  const signed = `${VERSION}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  return `${signed}.${mac(secret, signed).toString("base64url")}`;
}

/**
 * Checks a state brought back by a retry: the signature in constant time (anything altered, truncated, signed
 * under another SECRET_KEY or of another shape is `malformed`), then that it was minted for this very call
 * (tool, arguments, credential: else `mismatch`), then its expiry. Whether it was used already is `spendState`'s.
 */
export function verifyState(
  secret: string,
  state: unknown,
  call: CallBinding,
  nowMs = Date.now(),
): StateCheck {
  const bad = { ok: false, reason: "malformed" } as const;
  if (typeof state !== "string" || state.length > MAX_STATE_CHARS) return bad;
  const parts = state.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION || !B64URL.test(parts[1]) || !B64URL.test(parts[2])) {
    return bad;
  }
  const given = Buffer.from(parts[2], "base64url");
  const expected = mac(secret, `${parts[0]}.${parts[1]}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return bad;
  let claims: StateClaims;
  try {
    claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
  } catch {
    return bad;
  }
  if (
    typeof claims !== "object" || claims === null || typeof claims.t !== "string" ||
    typeof claims.exp !== "number" || typeof claims.n !== "string" || !B64URL.test(claims.n) ||
    ![claims.a, claims.c, claims.m].every((d) => typeof d === "string" && DIGEST.test(d))
  ) return bad;
  if (
    claims.t !== call.tool || claims.a !== digest(canonicalJson(call.args)) ||
    claims.c !== callerDigest(call.caller)
  ) return { ok: false, reason: "mismatch" };
  if (claims.exp * 1000 <= nowMs) return { ok: false, reason: "expired" };
  return { ok: true, claims };
}

/**
 * Marks a verified state used, in one statement: true for the first use, false when it was used before (of two
 * parallel retries exactly one gets true). Then deletes a bounded batch of expired rows (skip locked: two
 * instances sweeping at once take different rows).
 */
export async function spendState(db: Db, claims: StateClaims): Promise<boolean> {
  const rows = await db`
    insert into mcp_spent_request_states (nonce, expires_at) values (${claims.n}, to_timestamp(${claims.exp}))
    on conflict (nonce) do nothing
    returning nonce`;
  await db`delete from mcp_spent_request_states where ctid = any(array(
    select ctid from mcp_spent_request_states where expires_at < now()
     limit ${SPENT_SWEEP_ROWS} for update skip locked))`;
  return rows.length === 1;
}

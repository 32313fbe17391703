// Short-lived signed download links for exports too large for a tool answer: the token, its key, its checks.
//
// Stateless: the token itself carries what the download needs (which export, its filter, who asked, until when),
// signed with HMAC-SHA256 under a key derived from SECRET_KEY for this purpose only. Nothing is stored; the
// download (routes/exports.ts) re-loads the caller from the key or grant id and re-runs the query.
import { Buffer } from "node:buffer";
import { createHmac, timingSafeEqual } from "node:crypto";
import { purposeKey } from "../crypto.ts";
import type { Caller } from "./caller.ts";

/** How long a download link works. Short: the URL sits in a model's context, where it may be copied anywhere. */
export const EXPORT_LINK_TTL_SECONDS = 600;
/** The path of the download route; the token travels in the query (`?token=`), which the access log leaves out. */
export const EXPORT_PATH = "/exports";
/** What can be exported through a link, and the file name each is served as. */
export const EXPORT_FILES = { contacts: "contacts.csv" } as const;
export type ExportKind = keyof typeof EXPORT_FILES;

/** The signed part of a link. Short field names: the token is part of a URL. */
export interface LinkClaims {
  /** which export */
  k: ExportKind;
  /** the workspace */
  ws: string;
  /** the API key id (x-api-key callers) */
  key?: string;
  /** the OAuth grant id and client id (Bearer callers) */
  grant?: string;
  client?: string;
  /** the user the credential acts as */
  sub?: string;
  /** the credential's company scope */
  cs?: string;
  /** the tool input (validated when the link was made, validated again at download) */
  f: Record<string, unknown>;
  /** expiry, Unix seconds */
  exp: number;
}

export interface ExportLink {
  url: string;
  /** ISO 8601 */
  expiresAt: string;
}

/** What a tool gets (ToolContext.exportLinks) to hand out a link instead of a large inline answer. */
export interface ExportLinks {
  sign(kind: ExportKind, caller: Caller, filter: Record<string, unknown>): ExportLink;
}

export type Verified =
  | { ok: true; claims: LinkClaims }
  | { ok: false; reason: "malformed" | "expired" };

const VERSION = "e1";
const MAX_TOKEN_CHARS = 16_384;
const B64URL = /^[A-Za-z0-9_-]+$/;

/** HKDF-SHA256(SECRET_KEY, info "portico:export-link"): never the raw secret, never a key of another purpose. */
function linkKey(secret: string): Buffer {
  return purposeKey(secret, "export-link");
}

function mac(secret: string, signed: string): Buffer {
  return createHmac("sha256", linkKey(secret)).update(signed).digest();
}

/** `e1.<claims as base64url JSON>.<HMAC of "e1.<claims>" as base64url>` */
export function signLink(secret: string, claims: LinkClaims): string {
  const signed = `${VERSION}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  return `${signed}.${mac(secret, signed).toString("base64url")}`;
}

/**
 * Checks a token's signature in constant time, then its expiry. Anything altered, truncated, signed with
 * another SECRET_KEY or of another shape is `malformed`, without saying which.
 */
export function verifyLink(secret: string, token: string, nowMs = Date.now()): Verified {
  const bad = { ok: false, reason: "malformed" } as const;
  if (token.length > MAX_TOKEN_CHARS) return bad;
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION || !B64URL.test(parts[1]) || !B64URL.test(parts[2])) {
    return bad;
  }
  const given = Buffer.from(parts[2], "base64url");
  const expected = mac(secret, `${parts[0]}.${parts[1]}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return bad;
  let claims: LinkClaims;
  try {
    claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
  } catch {
    return bad;
  }
  if (
    typeof claims !== "object" || claims === null || !Object.hasOwn(EXPORT_FILES, claims.k) ||
    typeof claims.ws !== "string" || typeof claims.exp !== "number" || typeof claims.f !== "object" ||
    claims.f === null || (claims.key === undefined) === (claims.grant === undefined)
  ) return bad;
  if (claims.exp * 1000 <= nowMs) return { ok: false, reason: "expired" };
  return { ok: true, claims };
}

/** The claims that bind a link to `caller`'s credential and scope. */
export function callerClaims(caller: Caller): Omit<LinkClaims, "k" | "f" | "exp"> {
  const out: Omit<LinkClaims, "k" | "f" | "exp"> = { ws: caller.workspaceId };
  if (caller.grantId) {
    out.grant = caller.grantId;
    if (caller.clientId) out.client = caller.clientId;
  } else if (caller.keyId) out.key = caller.keyId;
  if (caller.userId) out.sub = caller.userId;
  if (caller.companyScope) out.cs = caller.companyScope;
  return out;
}

/** True when `caller` (re-loaded at download) is still the one the link was made for, with the same scope. */
export function sameCaller(claims: LinkClaims, caller: Caller): boolean {
  const now = callerClaims(caller);
  return now.ws === claims.ws && now.key === claims.key && now.grant === claims.grant &&
    now.client === claims.client && now.sub === claims.sub && now.cs === claims.cs;
}

/** The signer tools use; `now` is injectable so tests can make links that have already expired. */
export function createExportLinks(opts: {
  secretKey: string;
  issuer: string;
  ttlSeconds?: number;
  now?: () => number;
}): ExportLinks {
  const ttl = opts.ttlSeconds ?? EXPORT_LINK_TTL_SECONDS;
  const now = opts.now ?? Date.now;
  return {
    sign(kind, caller, filter) {
      const exp = Math.floor(now() / 1000) + ttl;
      const token = signLink(opts.secretKey, { k: kind, ...callerClaims(caller), f: filter, exp });
      return {
        url: `${opts.issuer}${EXPORT_PATH}/${EXPORT_FILES[kind]}?token=${token}`,
        expiresAt: new Date(exp * 1000).toISOString(),
      };
    },
  };
}

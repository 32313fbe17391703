// Rate limits on /mcp, shared by every instance through PostgreSQL (lib/rate_limit/shared.ts): per API key, per
// OAuth grant, and per client address for requests without an accepted credential. A burst of MAX, then one every
// SECONDS / MAX. The key's or grant's unit is taken by the caller statement itself (./charge.ts, in
// lib/mcp/caller.ts and lib/mcp/bearer.ts), so a warm request still makes one SQL round trip; a bucket this
// instance knows to be empty is refused without any.
import type { RateLimit } from "../config.ts";
import { sha256Hex } from "../crypto.ts";
import type { Db } from "../db/client.ts";
import { addressKey } from "../http/client_ip.ts";
import type { Logger } from "../log.ts";
import {
  createSharedLimiter,
  type GcraAnswer,
  RATE_LIMIT_MAX_TRACKED,
  type Refused,
  type SharedLimiter,
} from "../rate_limit/mod.ts";
import { decodeUtf8 } from "../unsafe_input.ts";
import type { Caller } from "./caller.ts";
import type { McpCharge } from "./charge.ts";

/**
 * JSON-RPC code of a 429: outside -32768…-32000, where MCP 2026-07-28 asks new codes to go (it reserves
 * -32020…-32099 for its own; this was -32029 before). 31429: the HTTP status in the last three digits.
 */
export const RATE_LIMITED_CODE = -31429;
/** How long a credential that was accepted is remembered without being used (an access token lives 1 h). */
export const KNOWN_CREDENTIAL_TTL_MS = 60 * 60 * 1000;
const LOG_EVERY_MS = 60_000;

/** Which limit refused a request. */
export type LimitScope = "api_key" | "grant" | "address";

export interface Limited extends Refused {
  scope: LimitScope;
  limit: RateLimit;
}

/** A request let through before its credential was looked up (nothing known refuses it); settle it after. */
export interface Admitted {
  ok: true;
  /** SHA-256 of the credential presented, if one was */
  fingerprint?: string;
  /** the bucket of the credential, when it was accepted recently on this instance */
  known?: string;
  /** the client address's bucket */
  addressBucket: string;
}

export interface McpRateLimits {
  /**
   * Before the credential lookup, without a query: a credential accepted recently on this instance is refused
   * while its bucket is known to be empty; anything else (no credential, an unknown one) while its address's is.
   */
  admit(credential: string | undefined, address: string): Admitted | Limited;
  /** What the caller statement takes for this request; `cost` is its message count (a batch's length). */
  charge(admitted: Admitted, cost: number): McpCharge;
  /**
   * After the lookup: `answer` is what the caller statement took (null: nothing; undefined: no statement
   * ran, so the address's unit is taken now, one statement). The refusal, if the units were not there; the
   * credential is remembered when `caller` was accepted, forgotten when not.
   */
  settle(
    admitted: Admitted,
    charge: McpCharge,
    answer: GcraAnswer | null | undefined,
    caller: Caller | null,
  ): Promise<Limited | null>;
  /** Tracked buckets and credentials, for tests and the bound. */
  stats(): { credentialBuckets: number; addressBuckets: number; knownCredentials: number };
}

export interface McpRateLimitOptions {
  /** where the buckets are (rate_buckets) */
  db: Db;
  /** per API key and per OAuth grant; null = no limit */
  perCredential: RateLimit | null;
  /** per client address, for requests without an accepted credential; null = no limit */
  unauthenticated: RateLimit | null;
  log?: Logger;
  /** clock in ms (tests), passed to the database too */
  now?: () => number;
  maxTracked?: number;
}

/** The bucket a caller's requests are counted in: its OAuth grant, or its API key. */
export function callerBucket(caller: Caller): { bucket: string; scope: LimitScope } {
  if (caller.grantId) return { bucket: `grant:${caller.grantId}`, scope: "grant" };
  return { bucket: `key:${caller.keyId}`, scope: "api_key" };
}

function scopeOf(bucket: string): LimitScope {
  return bucket.startsWith("ip:") ? "address" : bucket.startsWith("grant:") ? "grant" : "api_key";
}

export function createMcpRateLimits(opts: McpRateLimitOptions): McpRateLimits {
  const now = opts.now ?? Date.now;
  const limiter = (l: RateLimit | null) =>
    l && createSharedLimiter(opts.db, l, { now: opts.now, maxBlocked: opts.maxTracked });
  const credentials = limiter(opts.perCredential);
  const addresses = limiter(opts.unauthenticated);
  // Remembered credentials and logged buckets are bounded like the limiters' buckets.
  const maxKnown = opts.maxTracked ?? RATE_LIMIT_MAX_TRACKED;
  /** credential fingerprint → its bucket and when it was last accepted, in last-use order */
  const known = new Map<string, { bucket: string; seen: number }>();
  /** bucket → when a refusal of it was last logged, oldest first: one line per bucket per minute, not per request */
  const logged = new Map<string, number>();

  function refused(bucket: string, taken: Refused, limit: RateLimit): Limited {
    const scope = scopeOf(bucket);
    const t = now();
    for (let i = 0; i < 4; i++) {
      const first = logged.entries().next();
      if (first.done || t - first.value[1] < LOG_EVERY_MS) break;
      logged.delete(first.value[0]);
    }
    if (!logged.has(bucket) && logged.size < maxKnown) {
      logged.set(bucket, t);
      // Key and grant ids and addresses only: never the credential.
      opts.log?.warn("mcp: rate limited", {
        scope,
        bucket,
        limit: `${limit.max}/${limit.windowSeconds}`,
        retry_after: taken.retryAfter,
      });
    }
    return { ok: false, scope, retryAfter: taken.retryAfter, limit };
  }

  function remember(fingerprint: string, bucket: string): void {
    const t = now();
    known.delete(fingerprint);
    // Sweep forgotten credentials from the front (least recently accepted), a few per call.
    for (let i = 0; i < 4; i++) {
      const first = known.entries().next();
      if (first.done || t - first.value[1].seen < KNOWN_CREDENTIAL_TTL_MS) break;
      known.delete(first.value[0]);
    }
    if (known.size >= maxKnown) known.delete(known.keys().next().value!);
    known.set(fingerprint, { bucket, seen: t });
  }

  function check(l: SharedLimiter | null, bucket: string): Limited | null {
    const b = l?.blocked(bucket);
    return l && b ? refused(bucket, b, l.limit) : null;
  }

  return {
    admit(credential, address) {
      const fingerprint = credential === undefined ? undefined : sha256Hex(credential);
      const addressBucket = `ip:${addressKey(address)}`;
      const hit = fingerprint === undefined ? undefined : known.get(fingerprint);
      if (hit && now() - hit.seen < KNOWN_CREDENTIAL_TTL_MS) {
        return check(credentials, hit.bucket) ?? { ok: true, fingerprint, known: hit.bucket, addressBucket };
      }
      return check(addresses, addressBucket) ?? { ok: true, fingerprint, addressBucket };
    },
    charge(admitted, cost) {
      return {
        cost,
        known: admitted.known !== undefined,
        credential: credentials && credentials.pick(cost),
        address: addresses && { bucket: admitted.addressBucket, ...addresses.pick(1) },
        nowMs: opts.now ? opts.now() : null,
      };
    },
    async settle(admitted, charge, answer, caller) {
      if (admitted.fingerprint) {
        if (caller) remember(admitted.fingerprint, callerBucket(caller).bucket);
        else known.delete(admitted.fingerprint);
      }
      if (answer === undefined) {
        if (!addresses) return null;
        const taken = await addresses.take(admitted.addressBucket);
        return taken.ok ? null : refused(admitted.addressBucket, taken, addresses.limit);
      }
      if (answer === null) return null;
      const address = scopeOf(answer.bucket) === "address";
      const l = address ? addresses : credentials;
      if (!l) return null;
      const taken = l.learn(answer, address ? 1 : charge.cost);
      return taken.ok ? null : refused(answer.bucket, taken, l.limit);
    },
    stats: () => ({
      credentialBuckets: credentials?.size() ?? 0,
      addressBuckets: addresses?.size() ?? 0,
      knownCredentials: known.size,
    }),
  };
}

/**
 * How many messages a body is, for the rate limit: the length of a JSON-RPC batch (protocol 2025-03-26), else 1.
 * Only a body that starts with `[` is parsed.
 */
export function messageCount(body: Uint8Array): number {
  let i = 0;
  while (i < body.length && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) {
    i++;
  }
  if (body[i] !== 0x5b) return 1;
  const text = decodeUtf8(body);
  if (text === null) return 1;
  try {
    const parsed = JSON.parse(text);
    return Array.isArray(parsed) ? Math.max(1, parsed.length) : 1;
  } catch {
    return 1;
  }
}

/** The JSON-RPC body of a 429: the rule, the wait, and which limit (id null: the body was not read as JSON). */
export function rateLimitedBody(limited: Limited): string {
  const whose = limited.scope === "api_key"
    ? "this API key"
    : limited.scope === "grant"
    ? "this OAuth grant"
    : "this address without an accepted credential";
  const { max, windowSeconds } = limited.limit;
  return JSON.stringify({
    jsonrpc: "2.0",
    id: null,
    error: {
      code: RATE_LIMITED_CODE,
      message:
        `rate_limited: more than ${max} requests per ${windowSeconds} s for ${whose}; retry after ${limited.retryAfter} s`,
      data: { retryAfter: limited.retryAfter, scope: limited.scope, limit: { max, windowSeconds } },
    },
  });
}

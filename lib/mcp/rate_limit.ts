// Rate limits on /mcp, in memory per instance: per API key, per OAuth grant, and per client address for requests
// without an accepted credential. The kit's in-memory GCRA (lib/rate_limit/memory.ts: a burst of MAX, then one
// every SECONDS / MAX), not its PostgreSQL one: /mcp does exactly one SQL query per request.
import type { RateLimit } from "../config.ts";
import { sha256Hex } from "../crypto.ts";
import { addressKey } from "../http/client_ip.ts";
import type { Logger } from "../log.ts";
import {
  createMemoryLimiter,
  type MemoryLimiter,
  RATE_LIMIT_MAX_TRACKED,
  type Refused,
} from "../rate_limit/mod.ts";
import { decodeUtf8 } from "../unsafe_input.ts";
import type { Caller } from "./caller.ts";

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

/** A request let through before its credential was looked up; settle it with `accept` or `refuse`. */
export interface Admitted {
  ok: true;
  /** SHA-256 of the credential presented, if one was */
  fingerprint?: string;
  /** the address bucket a unit was taken from (given back when the credential is accepted) */
  addressBucket?: string;
  /** the credential bucket already charged (the credential was known) */
  charged?: string;
}

export interface McpRateLimits {
  /**
   * Before the credential lookup, one unit. A credential accepted recently on this instance is charged to its own
   * bucket; anything else (no credential, an unknown one) to its address's bucket, so requests without an
   * accepted credential cannot make the server query the database faster than the address limit allows.
   */
  admit(credential: string | undefined, address: string): Admitted | Limited;
  /**
   * After the lookup accepted the credential: the address's unit goes back and the caller's bucket is charged
   * `cost` units (a batch's message count; the unit `admit` took counts towards it). Refused, it takes none.
   */
  accept(admitted: Admitted, caller: Caller, cost: () => number): Limited | null;
  /** After the lookup refused the credential: it is forgotten (a revoked key goes back under the address limit). */
  refuse(admitted: Admitted): void;
  /** Tracked buckets and credentials, for tests and the bound. */
  stats(): { credentialBuckets: number; addressBuckets: number; knownCredentials: number };
}

export interface McpRateLimitOptions {
  /** per API key and per OAuth grant; null = no limit */
  perCredential: RateLimit | null;
  /** per client address, for requests without an accepted credential; null = no limit */
  unauthenticated: RateLimit | null;
  log?: Logger;
  /** clock in ms (tests) */
  now?: () => number;
  maxTracked?: number;
}

/** The bucket a caller's requests are counted in: its OAuth grant, or its API key. */
export function callerBucket(caller: Caller): { bucket: string; scope: LimitScope } {
  if (caller.grantId) return { bucket: `grant:${caller.grantId}`, scope: "grant" };
  return { bucket: `key:${caller.keyId}`, scope: "api_key" };
}

export function createMcpRateLimits(opts: McpRateLimitOptions): McpRateLimits {
  const now = opts.now ?? Date.now;
  const limiter = (l: RateLimit | null) => l && createMemoryLimiter(l, { now, maxTracked: opts.maxTracked });
  const credentials = limiter(opts.perCredential);
  const addresses = limiter(opts.unauthenticated);
  // Remembered credentials and logged buckets are bounded like the limiters' buckets.
  const maxKnown = opts.maxTracked ?? RATE_LIMIT_MAX_TRACKED;
  /** credential fingerprint → its bucket and when it was last accepted, in last-use order */
  const known = new Map<string, { bucket: string; scope: LimitScope; seen: number }>();
  /** bucket → when a refusal of it was last logged, oldest first: one line per bucket per minute, not per request */
  const logged = new Map<string, number>();

  function refused(
    bucket: string,
    scope: LimitScope,
    taken: Refused,
    limit: RateLimit,
  ): Limited {
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

  function charge(m: MemoryLimiter, bucket: string, scope: LimitScope, cost: number): Limited | null {
    // A batch larger than the whole burst could never pass; it costs the burst instead.
    const taken = m.take(bucket, Math.min(Math.max(1, cost), m.limit.max));
    if (taken.ok) return null;
    return refused(bucket, scope, taken, m.limit);
  }

  function remember(fingerprint: string, bucket: string, scope: LimitScope): void {
    const t = now();
    known.delete(fingerprint);
    // Sweep forgotten credentials from the front (least recently accepted), a few per call.
    for (let i = 0; i < 4; i++) {
      const first = known.entries().next();
      if (first.done || t - first.value[1].seen < KNOWN_CREDENTIAL_TTL_MS) break;
      known.delete(first.value[0]);
    }
    if (known.size >= maxKnown) known.delete(known.keys().next().value!);
    known.set(fingerprint, { bucket, scope, seen: t });
  }

  if (!credentials && !addresses) {
    return {
      admit: () => ({ ok: true }),
      accept: () => null,
      refuse: () => {},
      stats: () => ({ credentialBuckets: 0, addressBuckets: 0, knownCredentials: 0 }),
    };
  }

  return {
    admit(credential, address) {
      const fingerprint = credential === undefined ? undefined : sha256Hex(credential);
      const hit = fingerprint === undefined ? undefined : known.get(fingerprint);
      if (hit && now() - hit.seen < KNOWN_CREDENTIAL_TTL_MS) {
        if (!credentials) return { ok: true, fingerprint, charged: hit.bucket };
        return charge(credentials, hit.bucket, hit.scope, 1) ??
          { ok: true, fingerprint, charged: hit.bucket };
      }
      if (!addresses) return { ok: true, fingerprint };
      const addressBucket = `ip:${addressKey(address)}`;
      return charge(addresses, addressBucket, "address", 1) ?? { ok: true, fingerprint, addressBucket };
    },
    accept(admitted, caller, cost) {
      if (admitted.addressBucket) addresses?.give(admitted.addressBucket);
      const { bucket, scope } = callerBucket(caller);
      if (admitted.fingerprint) remember(admitted.fingerprint, bucket, scope);
      if (!credentials) return null;
      if (admitted.charged !== bucket) return charge(credentials, bucket, scope, cost());
      const more = Math.min(cost(), credentials.limit.max) - 1;
      if (more <= 0) return null;
      const limited = charge(credentials, bucket, scope, more);
      // Refused as a whole: the unit taken before the lookup goes back too, so the wait told is the true one.
      if (limited) credentials.give(bucket);
      return limited;
    },
    refuse(admitted) {
      if (admitted.fingerprint) known.delete(admitted.fingerprint);
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

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25): an https URL used
// as client_id is fetched with SSRF guards (lib/net/pinned_fetch.ts), validated like a registration
// (./metadata_document.ts), and cached with bounds (./metadata_cache.ts); this module admits and joins the fetches.
import { fetchPinned, resolveHost } from "../net/pinned_fetch.ts";
import { FetchRefusal, printable } from "../net/refusal.ts";
import { issuerIsLoopback, metadataDocumentUrlProblem } from "./client_id_url.ts";
import { OAuthError } from "./errors.ts";
import {
  cacheLifetimeSeconds,
  createLruCache,
  METADATA_CACHE_ENTRIES,
  METADATA_NEGATIVE_TTL_SECONDS,
} from "./metadata_cache.ts";
import { DocumentRefusal, type MetadataDocument, parseMetadataDocument } from "./metadata_document.ts";

/** The draft's recommended read limit; also the default here. */
export const METADATA_MAX_BYTES = 5120;
/** One deadline for DNS, connect, TLS and reading the whole answer. */
export const METADATA_TIMEOUT_MS = 3000;
export const METADATA_MAX_CONCURRENT_FETCHES = 16;
/**
 * New (uncached) documents fetched per instance per minute. /oauth/authorize is a GET anyone can send with any
 * URL as client_id: without a budget, Portico could be made to fetch thousands of public URLs a minute for
 * someone else. Cached documents are not counted, so apps already seen keep working during such a flood.
 */
export const METADATA_MAX_FETCHES_PER_MINUTE = 120;

export interface MetadataFetchOptions {
  /** when its host is loopback, plain http client_id URLs on loopback are allowed (development) */
  issuer: string;
  /** default METADATA_TIMEOUT_MS, for DNS + connect + TLS + read together */
  timeoutMs?: number;
  /** default METADATA_MAX_BYTES */
  maxBytes?: number;
  /** clock for cache lifetimes (ms since epoch); default Date.now */
  now?: () => number;
  /** test seam: resolve a host name to IP addresses (default Deno.resolveDns A + AAAA) */
  resolve?: (host: string) => Promise<string[]>;
  /** default METADATA_CACHE_ENTRIES (documents and remembered failures together) */
  maxEntries?: number;
  /** default METADATA_NEGATIVE_TTL_SECONDS * 1000 */
  negativeTtlMs?: number;
  /** default METADATA_MAX_CONCURRENT_FETCHES (distinct URLs being fetched at once) */
  maxConcurrentFetches?: number;
  /** new fetches per minute per instance, default METADATA_MAX_FETCHES_PER_MINUTE */
  maxFetchesPerMinute?: number;
  /** test seam: extra PEM root certificates trusted for https fetches */
  caCerts?: string[];
}

export interface MetadataDocumentFetcher {
  get(clientId: string): Promise<MetadataDocument>;
}

function invalidClient(description: string): OAuthError {
  return new OAuthError("invalid_client", printable(description));
}

/**
 * Fetches, validates and caches; throws OAuthError("invalid_client", description) with the reason on any
 * problem. Documents are kept per Cache-Control (clamped), failures briefly; an LRU bounds both together;
 * concurrent gets of one URL share one fetch; at most `maxConcurrentFetches` URLs are fetched at once. The
 * returned documents are frozen and shared between callers.
 */
export function createMetadataDocumentFetcher(opts: MetadataFetchOptions): MetadataDocumentFetcher {
  const now = opts.now ?? Date.now;
  const timeoutMs = opts.timeoutMs ?? METADATA_TIMEOUT_MS;
  const settings = {
    timeoutMs,
    maxBytes: opts.maxBytes ?? METADATA_MAX_BYTES,
    allowLoopback: issuerIsLoopback(opts.issuer),
    resolve: opts.resolve ?? ((host: string) => resolveHost(host, timeoutMs)),
    caCerts: opts.caCerts,
  };
  const negativeTtlMs = opts.negativeTtlMs ?? METADATA_NEGATIVE_TTL_SECONDS * 1000;
  const maxConcurrent = Math.max(1, opts.maxConcurrentFetches ?? METADATA_MAX_CONCURRENT_FETCHES);
  const perMinute = Math.max(1, opts.maxFetchesPerMinute ?? METADATA_MAX_FETCHES_PER_MINUTE);
  let windowStart = -Infinity;
  let fetchesInWindow = 0;
  const cache = createLruCache<MetadataDocument, OAuthError>(opts.maxEntries ?? METADATA_CACHE_ENTRIES, now);
  const inflight = new Map<string, Promise<MetadataDocument>>();

  async function load(clientId: string): Promise<MetadataDocument> {
    const url = new URL(clientId);
    try {
      const fetched = await fetchPinned(url, settings);
      const doc = parseMetadataDocument(clientId, fetched.body);
      const ttl = cacheLifetimeSeconds(
        fetched.headers.get("cache-control")?.join(","),
        fetched.headers.get("age")?.[0],
      );
      cache.set(clientId, { value: doc, expiresAt: now() + ttl * 1000 });
      return doc;
    } catch (err) {
      const error = err instanceof FetchRefusal || err instanceof DocumentRefusal
        ? invalidClient(`client metadata document ${clientId}: ${err.message}`)
        : invalidClient(`client metadata document ${clientId}: it could not be fetched`);
      cache.set(clientId, { error, expiresAt: now() + negativeTtlMs });
      throw error;
    }
  }

  return {
    get(clientId: string): Promise<MetadataDocument> {
      const problem = metadataDocumentUrlProblem(clientId, opts.issuer);
      if (problem) return Promise.reject(invalidClient(problem));
      const hit = cache.get(clientId);
      if (hit) return "error" in hit ? Promise.reject(hit.error) : Promise.resolve(hit.value);
      const pending = inflight.get(clientId);
      if (pending) return pending;
      if (inflight.size >= maxConcurrent) {
        return Promise.reject(
          invalidClient(
            "too many client metadata documents are being fetched at once; try again in a moment",
          ),
        );
      }
      if (now() - windowStart >= 60_000) {
        windowStart = now();
        fetchesInWindow = 0;
      }
      if (fetchesInWindow >= perMinute) {
        return Promise.reject(
          invalidClient("too many new client metadata documents this minute; try again in a minute"),
        );
      }
      fetchesInWindow++;
      const p = load(clientId).finally(() => inflight.delete(clientId));
      inflight.set(clientId, p);
      return p;
    },
  };
}

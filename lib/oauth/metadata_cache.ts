// The metadata document cache: documents kept per their Cache-Control (clamped), failures briefly, one LRU bound
// over both, so a busy client costs no fetch and one bad URL cannot make Portico fetch on every request.

export const METADATA_CACHE_ENTRIES = 1000;
/** Cache lifetime when the answer has no usable Cache-Control, and the bounds any max-age is clamped to. */
export const METADATA_TTL_DEFAULT_SECONDS = 300;
export const METADATA_TTL_MIN_SECONDS = 60;
export const METADATA_TTL_MAX_SECONDS = 86_400;
/** How long a failure is remembered so one bad URL cannot make Portico fetch on every request. */
export const METADATA_NEGATIVE_TTL_SECONDS = 30;

/** Seconds to keep a document: s-maxage or max-age (minus Age), no-store/no-cache as the minimum, clamped. */
export function cacheLifetimeSeconds(cacheControl: string | undefined, age?: string): number {
  if (!cacheControl) return METADATA_TTL_DEFAULT_SECONDS;
  const directives = new Map<string, string>();
  for (const part of cacheControl.split(",")) {
    const [k, v] = part.split("=", 2);
    if (k.trim()) directives.set(k.trim().toLowerCase(), (v ?? "").trim().replace(/^"|"$/g, ""));
  }
  const clamp = (s: number) => Math.min(METADATA_TTL_MAX_SECONDS, Math.max(METADATA_TTL_MIN_SECONDS, s));
  if (directives.has("no-store") || directives.has("no-cache")) return METADATA_TTL_MIN_SECONDS;
  const raw = directives.get("s-maxage") ?? directives.get("max-age");
  if (raw === undefined || !/^\d+$/.test(raw)) return METADATA_TTL_DEFAULT_SECONDS;
  const used = age && /^\d+$/.test(age.trim()) ? Number(age.trim()) : 0;
  return clamp(Number(raw) - used);
}

/** A remembered answer: the value, or the error to throw again, until `expiresAt` (ms since epoch). */
export type CacheEntry<T, E> = { value: T; expiresAt: number } | { error: E; expiresAt: number };

export interface LruCache<T, E> {
  /** The live entry for `key` (now the most recently used), or undefined when absent or expired. */
  get(key: string): CacheEntry<T, E> | undefined;
  /** Keeps `entry` as the most recently used, evicting the least recently used past the bound. */
  set(key: string, entry: CacheEntry<T, E>): void;
}

/** An LRU of at most `maxEntries` (at least 1) entries that expire on `now()`. */
export function createLruCache<T, E>(maxEntries: number, now: () => number): LruCache<T, E> {
  const bound = Math.max(1, maxEntries);
  const entries = new Map<string, CacheEntry<T, E>>(); // insertion order = least recently used first
  function set(key: string, entry: CacheEntry<T, E>): void {
    entries.delete(key);
    entries.set(key, entry);
    while (entries.size > bound) entries.delete(entries.keys().next().value!);
  }
  return {
    set,
    get(key) {
      const hit = entries.get(key);
      if (!hit || hit.expiresAt <= now()) return undefined;
      set(key, hit);
      return hit;
    },
  };
}

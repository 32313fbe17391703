// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25): an https URL used
// as client_id is fetched with SSRF guards, validated like a registration, and cached with bounds.
import { redirectUriProblem } from "./clients.ts";
import { OAuthError } from "./errors.ts";

/** The draft's recommended read limit; also the default here. */
export const METADATA_MAX_BYTES = 5120;
/** One deadline for DNS, connect, TLS and reading the whole answer. */
export const METADATA_TIMEOUT_MS = 3000;
export const METADATA_CACHE_ENTRIES = 1000;
/** Cache lifetime when the answer has no usable Cache-Control, and the bounds any max-age is clamped to. */
export const METADATA_TTL_DEFAULT_SECONDS = 300;
export const METADATA_TTL_MIN_SECONDS = 60;
export const METADATA_TTL_MAX_SECONDS = 86_400;
/** How long a failure is remembered so one bad URL cannot make Portico fetch on every request. */
export const METADATA_NEGATIVE_TTL_SECONDS = 30;
export const METADATA_MAX_CONCURRENT_FETCHES = 16;
/**
 * New (uncached) documents fetched per instance per minute. /oauth/authorize is a GET anyone can send with any
 * URL as client_id: without a budget, Portico could be made to fetch thousands of public URLs a minute for
 * someone else. Cached documents are not counted, so apps already seen keep working during such a flood.
 */
export const METADATA_MAX_FETCHES_PER_MINUTE = 120;

const MAX_URL_LENGTH = 2000;
const MAX_HEADER_BYTES = 8192;
const MAX_REDIRECT_URIS = 20;
const READ_CHUNK = 4096;

export interface MetadataDocument {
  /** the URL, equal to the document's client_id */
  clientId: string;
  /** client_name, or the host when the document has none */
  name: string;
  /** each one accepted by redirectUriProblem() */
  redirectUris: string[];
  /** default ["authorization_code"]; only authorization_code and refresh_token */
  grantTypes: string[];
  /** from `scope` (space separated) when present, else null */
  scopes: string[] | null;
  clientUri: string | null;
  logoUri: string | null;
  /** the URL's host (with a non-default port), shown on the consent page */
  host: string;
  /** every redirect URI is loopback http: anyone on the person's machine could receive the code (MCP spec
   * "Localhost Redirect URI Risks"), so the consent page should say so */
  loopbackRedirectsOnly: boolean;
}

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

// ---------------------------------------------------------------------------------------------------------
// The client_id URL

function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  const v4 = parseIPv4(h);
  if (v4 !== null) return v4 >>> 24 === 127;
  const v6 = parseIPv6(h);
  return v6 !== null && v6.every((g, i) => g === (i === 7 ? 1 : 0));
}

function issuerIsLoopback(issuer: string): boolean {
  try {
    return isLoopbackHostname(new URL(issuer).hostname);
  } catch {
    return false;
  }
}

/**
 * True when client_id should be treated as a metadata document URL: an https URL, or an http URL on a loopback
 * host while the issuer itself is on loopback. Further rules (path, fragment, dot segments …) are checked by
 * the fetcher, whose invalid_client description then names the broken rule instead of "unknown client".
 */
export function isMetadataDocumentUrl(clientId: string, issuer: string): boolean {
  if (clientId.length > MAX_URL_LENGTH) return false;
  let u: URL;
  try {
    u = new URL(clientId);
  } catch {
    return false;
  }
  if (u.protocol === "https:") return true;
  return u.protocol === "http:" && issuerIsLoopback(issuer) && isLoopbackHostname(u.hostname);
}

/** Why client_id cannot be a metadata document URL (draft §3 plus Portico's rules), or null when it can. */
export function metadataDocumentUrlProblem(clientId: string, issuer: string): string | null {
  if (clientId.length > MAX_URL_LENGTH) return `client_id must be at most ${MAX_URL_LENGTH} characters`;
  let u: URL;
  try {
    u = new URL(clientId);
  } catch {
    return "client_id is not an absolute URL";
  }
  const devHttp = u.protocol === "http:" && issuerIsLoopback(issuer) && isLoopbackHostname(u.hostname);
  if (u.protocol !== "https:" && !devHttp) {
    return "client_id must be an https URL (plain http only for loopback hosts while Portico runs on loopback)";
  }
  if (u.username !== "" || u.password !== "") return "client_id must not contain a username or password";
  if (clientId.includes("#")) return "client_id must not contain a fragment";
  // The URL parser removes dot segments (also %2e forms), so look at the text as written.
  const afterScheme = clientId.slice(clientId.indexOf("//") + 2);
  const slash = afterScheme.indexOf("/");
  const rawPath = slash < 0 ? "" : afterScheme.slice(slash).split("?")[0];
  if (rawPath.split("/").some((s) => /^(\.|%2e){1,2}$/i.test(s))) {
    return "client_id must not contain . or .. path segments";
  }
  if (u.pathname === "/" || u.pathname === "") {
    return "client_id must have a path, such as https://app.example.com/oauth/client.json";
  }
  if (u.href !== clientId) {
    return "client_id must be written as a URL parser writes it: lowercase scheme and host, no default port, " +
      "no empty user info, percent-encoding where required";
  }
  if (!u.hostname.includes(".") && !u.hostname.startsWith("[") && !isLoopbackHostname(u.hostname)) {
    return "client_id host must be a fully qualified domain name";
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Addresses

function parseIPv4(s: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

/** Eight 16-bit groups, or null; accepts brackets and a trailing dotted quad, refuses zone ids. */
function parseIPv6(input: string): number[] | null {
  let s = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input;
  if (!/^[0-9a-fA-F:.]+$/.test(s) || !s.includes(":")) return null;
  if (s.includes(".")) {
    const last = s.lastIndexOf(":");
    const v4 = parseIPv4(s.slice(last + 1));
    if (v4 === null) return null;
    s = `${s.slice(0, last + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string) => h === "" ? [] : h.split(":");
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if ([...head, ...tail].some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  return [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail].map((g) =>
    parseInt(g, 16)
  );
}

function inV4(ip: number, base: string, bits: number): boolean {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return ((ip & mask) >>> 0) === ((parseIPv4(base)! & mask) >>> 0);
}

// Special-purpose IPv4 blocks that are not globally reachable (RFC 6890 and the IANA registry).
const V4_SPECIAL: [string, number, string][] = [
  ["0.0.0.0", 8, "a 'this network' address"],
  ["10.0.0.0", 8, "a private address"],
  ["100.64.0.0", 10, "a shared (carrier-grade NAT) address"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "a link-local address"],
  ["172.16.0.0", 12, "a private address"],
  ["192.0.0.0", 24, "an IETF protocol assignment"],
  ["192.0.2.0", 24, "a documentation address"],
  ["192.88.99.0", 24, "a 6to4 relay address"],
  ["192.168.0.0", 16, "a private address"],
  ["198.18.0.0", 15, "a benchmarking address"],
  ["198.51.100.0", 24, "a documentation address"],
  ["203.0.113.0", 24, "a documentation address"],
  ["224.0.0.0", 4, "a multicast address"],
  ["240.0.0.0", 4, "a reserved address"],
];

function v4Problem(ip: number, allowLoopback: boolean): string | null {
  if (allowLoopback && inV4(ip, "127.0.0.0", 8)) return null;
  return V4_SPECIAL.find(([base, bits]) => inV4(ip, base, bits))?.[2] ?? null;
}

/**
 * Why Portico must not connect to this IP address, or null when it may: special-use IPv4 blocks; for IPv6 only
 * global unicast (2000::/3) outside its special blocks, and IPv4-mapped or NAT64 addresses by the IPv4 they
 * embed. `allowLoopback` (a loopback issuer) exempts loopback addresses only.
 */
export function addressProblem(ip: string, allowLoopback = false): string | null {
  const v4 = parseIPv4(ip);
  if (v4 !== null) return v4Problem(v4, allowLoopback);
  const g = parseIPv6(ip);
  if (g === null) return "not an IP address";
  const embedded = () => ((g[6] << 16) | g[7]) >>> 0;
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return "the unspecified address";
  if (zeros(7) && g[7] === 1) return allowLoopback ? null : "a loopback address";
  if (zeros(5) && g[5] === 0xffff) {
    const p = v4Problem(embedded(), allowLoopback);
    return p && `${p} (IPv4-mapped)`;
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    const p = v4Problem(embedded(), allowLoopback);
    return p && `${p} (NAT64)`;
  }
  if (g[0] >>> 8 === 0xff) return "a multicast address";
  if ((g[0] & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g[0] & 0xffc0) === 0xfec0) return "a site-local address";
  if ((g[0] & 0xfe00) === 0xfc00) return "a unique local (private) address";
  if ((g[0] & 0xe000) !== 0x2000) return "a reserved IPv6 address";
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "a documentation address";
  if (g[0] === 0x2001 && g[1] < 0x0200) return "an IETF protocol assignment (such as Teredo)";
  if (g[0] === 0x2002) return "a 6to4 address";
  if ((g[0] & 0xfff0) === 0x3ff0) return "a documentation address";
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Fetching

/** A failure with the reason the person and the client developer read; becomes invalid_client. */
class Refusal extends Error {}

/** RFC 6749 error_description allows %x20-21 / %x23-5B / %x5D-7E only. */
function clean(text: string, max = 400): string {
  const safe = text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "?");
  return safe.length > max ? `${safe.slice(0, max - 3)}...` : safe;
}

function invalidClient(description: string): OAuthError {
  return new OAuthError("invalid_client", clean(description));
}

async function defaultResolve(host: string, timeoutMs: number): Promise<string[]> {
  const signal = AbortSignal.timeout(timeoutMs);
  const [a, aaaa] = await Promise.allSettled([
    Deno.resolveDns(host, "A", { signal }),
    Deno.resolveDns(host, "AAAA", { signal }),
  ]);
  const found = [
    ...(a.status === "fulfilled" ? a.value : []),
    ...(aaaa.status === "fulfilled" ? aaaa.value : []),
  ];
  if (found.length === 0) {
    const notFound = [a, aaaa].every((r) =>
      r.status === "rejected" && r.reason instanceof Deno.errors.NotFound
    );
    throw new Refusal(notFound ? `host ${host} does not resolve` : `DNS lookup of ${host} failed`);
  }
  return found;
}

interface Fetched {
  body: Uint8Array;
  headers: Map<string, string[]>;
}

interface FetchSettings {
  timeoutMs: number;
  maxBytes: number;
  allowLoopback: boolean;
  resolve: (host: string) => Promise<string[]>;
  caCerts?: string[];
}

function indexOfCrlfCrlf(data: Uint8Array, from: number): number {
  for (let i = Math.max(0, from); i + 3 < data.length; i++) {
    if (data[i] === 13 && data[i + 1] === 10 && data[i + 2] === 13 && data[i + 3] === 10) return i;
  }
  return -1;
}

function indexOfCrlf(data: Uint8Array, from: number, to: number): number {
  for (let i = from; i + 1 < to; i++) if (data[i] === 13 && data[i + 1] === 10) return i;
  return -1;
}

/**
 * GET over one connection to an address that was checked: resolve once, refuse if any address is special,
 * connect to the address literal (so DNS cannot change between the check and the connection), then TLS with the
 * URL's host name for SNI and certificate verification. HTTP/1.1, `Connection: close`, no redirects, a byte
 * limit enforced on what is read (not on Content-Length), one deadline for everything.
 */
async function fetchDocument(url: URL, s: FetchSettings): Promise<Fetched> {
  const controller = new AbortController();
  let conn: Deno.TcpConn | Deno.TlsConn | undefined;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
    try {
      conn?.close();
    } catch { /* already closed */ }
  }, s.timeoutMs);
  const deadline = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => reject(new Refusal("timed out")), { once: true });
  });
  deadline.catch(() => {});
  try {
    const host = url.hostname;
    const bare = host.startsWith("[") ? host.slice(1, -1) : host;
    let addresses: string[];
    if (parseIPv4(bare) !== null || parseIPv6(bare) !== null) addresses = [bare];
    else if (isLoopbackHostname(bare)) addresses = ["127.0.0.1", "::1"]; // RFC 6761 §6.3: never asked of DNS
    else addresses = await Promise.race([s.resolve(bare), deadline]);
    if (addresses.length === 0) throw new Refusal(`host ${bare} does not resolve`);
    for (const ip of addresses) {
      const problem = addressProblem(ip, s.allowLoopback);
      if (problem) {
        throw new Refusal(
          `host ${bare} resolves to ${ip}, ${problem}; documents are fetched only from public addresses`,
        );
      }
    }
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    for (const ip of addresses) {
      try {
        conn = await Promise.race([
          Deno.connect({ hostname: ip, port, signal: controller.signal }),
          deadline,
        ]);
        break;
      } catch (err) {
        if (timedOut) throw err;
      }
    }
    if (!conn) throw new Refusal(`could not connect to ${url.host}`);
    if (url.protocol === "https:") {
      const tcp = conn as Deno.TcpConn;
      try {
        conn = await Promise.race([Deno.startTls(tcp, { hostname: bare, caCerts: s.caCerts }), deadline]);
        await Promise.race([conn.handshake(), deadline]);
      } catch (err) {
        if (timedOut) throw err;
        throw new Refusal(
          `TLS with ${url.host} failed (${clean(String((err as Error).message ?? err), 160)})`,
        );
      }
    }
    const request = `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n` +
      "Accept: application/json\r\nAccept-Encoding: identity\r\nUser-Agent: Portico\r\nConnection: close\r\n\r\n";
    await Promise.race([writeAll(conn, new TextEncoder().encode(request)), deadline]);
    return await Promise.race([readResponse(conn, s.maxBytes), deadline]);
  } catch (err) {
    if (timedOut) throw new Refusal(`no answer within ${s.timeoutMs} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
    try {
      conn?.close();
    } catch { /* already closed by the deadline */ }
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

async function readResponse(conn: Deno.Conn, maxBytes: number): Promise<Fetched> {
  let data = new Uint8Array(0);
  const chunk = new Uint8Array(READ_CHUNK);
  /** Reads once more; false at end of stream. */
  const more = async (): Promise<boolean> => {
    let n: number | null;
    try {
      n = await conn.read(chunk);
    } catch (err) {
      throw new Refusal(
        `the connection failed while reading (${clean(String((err as Error).message ?? err), 120)})`,
      );
    }
    if (n === null) return false;
    const next = new Uint8Array(data.length + n);
    next.set(data);
    next.set(chunk.subarray(0, n), data.length);
    data = next;
    return true;
  };
  const tooLarge = () => new Refusal(`the document is larger than ${maxBytes} bytes`);

  let end = -1;
  while ((end = indexOfCrlfCrlf(data, 0)) < 0) {
    if (data.length > MAX_HEADER_BYTES) throw new Refusal("the response headers are larger than 8 KiB");
    if (!await more()) throw new Refusal("the server closed the connection before a complete response");
  }
  if (end > MAX_HEADER_BYTES) throw new Refusal("the response headers are larger than 8 KiB");
  const lines = new TextDecoder("latin1").decode(data.subarray(0, end)).split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0]);
  if (!status) throw new Refusal("the server did not answer with HTTP/1.x");
  const code = Number(status[1]);
  const headers = new Map<string, string[]>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new Refusal("the server sent a malformed response header");
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...headers.get(name) ?? [], line.slice(colon + 1).trim()]);
  }
  if (code >= 300 && code < 400) {
    throw new Refusal(`redirects are not followed (the server answered ${code})`);
  }
  if (code !== 200) throw new Refusal(`the server answered ${code}; 200 is required`);
  const type = (headers.get("content-type")?.[0] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json" && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    throw new Refusal(
      `the document must be served as application/json (got ${type ? clean(type, 80) : "no Content-Type"})`,
    );
  }
  const encoding = headers.get("content-encoding")?.join(",").trim().toLowerCase();
  if (encoding && encoding !== "identity") {
    throw new Refusal(`the document is content-encoded (${clean(encoding, 40)})`);
  }

  const start = end + 4;
  const te = headers.get("transfer-encoding");
  const cl = headers.get("content-length");
  if (te && cl) throw new Refusal("the server sent both Transfer-Encoding and Content-Length");
  if (te) {
    if (te.join(",").trim().toLowerCase() !== "chunked") {
      throw new Refusal("the server uses an unsupported Transfer-Encoding");
    }
    return { body: await readChunked(), headers };
  }
  if (cl) {
    const values = new Set(cl.flatMap((v) => v.split(",")).map((v) => v.trim()));
    const [only] = values;
    if (values.size !== 1 || !/^\d{1,15}$/.test(only)) {
      throw new Refusal("the server sent an invalid Content-Length");
    }
    const length = Number(only);
    if (length > maxBytes) throw tooLarge();
    while (data.length - start < length) {
      if (!await more()) {
        throw new Refusal("the server closed the connection before the whole document arrived");
      }
    }
    return { body: data.slice(start, start + length), headers };
  }
  // No framing: the body ends when the server closes; stop reading as soon as it passes the limit.
  while (await more()) if (data.length - start > maxBytes) throw tooLarge();
  if (data.length - start > maxBytes) throw tooLarge();
  return { body: data.slice(start), headers };

  async function readChunked(): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let size = 0;
    let pos = start;
    // Framing overhead is bounded too, so tiny chunks or long extensions cannot stream forever.
    const rawLimit = maxBytes * 8 + 1024;
    for (;;) {
      let lineEnd: number;
      while ((lineEnd = indexOfCrlf(data, pos, data.length)) < 0) {
        if (data.length - pos > 256) throw new Refusal("the server sent a malformed chunked body");
        if (data.length - start > rawLimit) throw tooLarge();
        if (!await more()) {
          throw new Refusal("the server closed the connection before the whole document arrived");
        }
      }
      const sizeText = new TextDecoder("latin1").decode(data.subarray(pos, lineEnd)).split(";")[0].trim();
      if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) throw new Refusal("the server sent a malformed chunked body");
      const n = parseInt(sizeText, 16);
      if (n === 0) break; // trailers are not needed
      if (size + n > maxBytes) throw tooLarge();
      const dataStart = lineEnd + 2;
      while (data.length < dataStart + n + 2) {
        if (!await more()) {
          throw new Refusal("the server closed the connection before the whole document arrived");
        }
      }
      parts.push(data.slice(dataStart, dataStart + n));
      size += n;
      pos = dataStart + n + 2;
      if (pos - start > rawLimit) throw tooLarge();
    }
    const body = new Uint8Array(size);
    let off = 0;
    for (const p of parts) {
      body.set(p, off);
      off += p.length;
    }
    return body;
  }
}

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

// ---------------------------------------------------------------------------------------------------------
// Validation

function httpUrlOrNull(value: unknown, field: string, httpsOnly: boolean): string | null {
  if (value === undefined) return null;
  if (typeof value !== "string" || value.length > MAX_URL_LENGTH) {
    throw new Refusal(`${field} must be a URL of at most ${MAX_URL_LENGTH} characters`);
  }
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Refusal(`${field} is not an absolute URL`);
  }
  if (u.protocol !== "https:" && (httpsOnly || u.protocol !== "http:")) {
    throw new Refusal(`${field} must be ${httpsOnly ? "an https" : "an http(s)"} URL`);
  }
  return value;
}

// Control characters and bidirectional overrides could make a name look like something else on consent.
// deno-lint-ignore no-control-regex -- matching control characters is the point
const SPOOFING_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Validates a fetched document the way registration validates a request, plus the draft's public-client rules. */
function validateMetadataDocument(clientId: string, json: unknown): MetadataDocument {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new Refusal("the document must be a JSON object");
  }
  const d = json as Record<string, unknown>;
  if (d.client_id !== clientId) {
    if (typeof d.client_id !== "string") throw new Refusal("the document has no client_id");
    throw new Refusal(`the document's client_id (${clean(d.client_id, 120)}) is not exactly its URL`);
  }
  const method = d.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") {
    const m = typeof method === "string" ? clean(method, 60) : "of a wrong type";
    throw new Refusal(
      `token_endpoint_auth_method ${m} is not allowed: Portico accepts only public clients (none) from client ` +
        "metadata documents",
    );
  }
  for (const field of ["client_secret", "client_secret_expires_at"]) {
    if (field in d) {
      throw new Refusal(`the document must not contain ${field} (a shared secret cannot be published)`);
    }
  }
  for (const field of ["jwks", "jwks_uri"]) {
    if (field in d) {
      throw new Refusal(
        `the document must not contain ${field}: Portico does not support private_key_jwt, only public clients`,
      );
    }
  }

  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    throw new Refusal("redirect_uris must list at least one URI");
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new Refusal(`redirect_uris must list at most ${MAX_REDIRECT_URIS} URIs`);
  }
  for (const uri of uris) {
    if (typeof uri !== "string" || uri.length > MAX_URL_LENGTH) {
      throw new Refusal(`redirect_uris entries must be strings of at most ${MAX_URL_LENGTH} characters`);
    }
    const problem = redirectUriProblem(uri);
    if (problem) throw new Refusal(`redirect_uris: ${clean(uri, 200)} ${problem}`);
  }
  const redirectUris = [...new Set(uris as string[])];

  let grantTypes = ["authorization_code"];
  if (d.grant_types !== undefined) {
    if (!Array.isArray(d.grant_types) || d.grant_types.length === 0) {
      throw new Refusal("grant_types must be a non-empty array");
    }
    for (const g of d.grant_types) {
      if (g !== "authorization_code" && g !== "refresh_token") {
        const name = typeof g === "string" ? clean(g, 80) : "of a wrong type";
        throw new Refusal(`grant type ${name} is not supported (authorization_code, refresh_token)`);
      }
    }
    if (!d.grant_types.includes("authorization_code")) {
      throw new Refusal("grant_types must include authorization_code");
    }
    grantTypes = [...new Set(d.grant_types as string[])];
  }
  if (d.response_types !== undefined) {
    if (!Array.isArray(d.response_types) || d.response_types.some((r) => r !== "code")) {
      throw new Refusal("response_types may only contain code");
    }
  }

  let scopes: string[] | null = null;
  if (d.scope !== undefined) {
    if (typeof d.scope !== "string" || d.scope.length > 2000) {
      throw new Refusal("scope must be a space-separated string of at most 2000 characters");
    }
    scopes = [...new Set(d.scope.split(" ").filter((s) => s.length > 0))];
  }

  const host = new URL(clientId).host;
  let name = host;
  if (d.client_name !== undefined) {
    if (
      typeof d.client_name !== "string" || d.client_name.trim().length === 0 || d.client_name.length > 200
    ) {
      throw new Refusal("client_name must be 1-200 characters");
    }
    if (SPOOFING_CHARACTERS.test(d.client_name)) {
      throw new Refusal("client_name must not contain control or text-direction characters");
    }
    name = d.client_name.trim();
  }

  const loopbackRedirectsOnly = redirectUris.every((uri) => {
    const u = new URL(uri);
    return u.protocol === "http:" && isLoopbackHostname(u.hostname);
  });
  return Object.freeze({
    clientId,
    name,
    redirectUris: Object.freeze(redirectUris) as string[],
    grantTypes: Object.freeze(grantTypes) as string[],
    scopes: scopes && Object.freeze(scopes) as string[],
    clientUri: httpUrlOrNull(d.client_uri, "client_uri", false),
    logoUri: httpUrlOrNull(d.logo_uri, "logo_uri", true),
    host,
    loopbackRedirectsOnly,
  });
}

// ---------------------------------------------------------------------------------------------------------
// The cached fetcher

interface Entry {
  doc?: MetadataDocument;
  error?: OAuthError;
  expiresAt: number;
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
  const settings: FetchSettings = {
    timeoutMs,
    maxBytes: opts.maxBytes ?? METADATA_MAX_BYTES,
    allowLoopback: issuerIsLoopback(opts.issuer),
    resolve: opts.resolve ?? ((host) => defaultResolve(host, timeoutMs)),
    caCerts: opts.caCerts,
  };
  const maxEntries = Math.max(1, opts.maxEntries ?? METADATA_CACHE_ENTRIES);
  const negativeTtlMs = opts.negativeTtlMs ?? METADATA_NEGATIVE_TTL_SECONDS * 1000;
  const maxConcurrent = Math.max(1, opts.maxConcurrentFetches ?? METADATA_MAX_CONCURRENT_FETCHES);
  const perMinute = Math.max(1, opts.maxFetchesPerMinute ?? METADATA_MAX_FETCHES_PER_MINUTE);
  let windowStart = -Infinity;
  let fetchesInWindow = 0;
  const cache = new Map<string, Entry>(); // insertion order = least recently used first
  const inflight = new Map<string, Promise<MetadataDocument>>();

  function remember(clientId: string, entry: Entry): void {
    cache.delete(clientId);
    cache.set(clientId, entry);
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
  }

  async function load(clientId: string): Promise<MetadataDocument> {
    const url = new URL(clientId);
    try {
      const fetched = await fetchDocument(url, settings);
      let json: unknown;
      try {
        json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(fetched.body));
      } catch {
        throw new Refusal("the document is not valid JSON");
      }
      const doc = validateMetadataDocument(clientId, json);
      const ttl = cacheLifetimeSeconds(
        fetched.headers.get("cache-control")?.join(","),
        fetched.headers.get("age")?.[0],
      );
      remember(clientId, { doc, expiresAt: now() + ttl * 1000 });
      return doc;
    } catch (err) {
      const error = err instanceof Refusal
        ? invalidClient(`client metadata document ${clientId}: ${err.message}`)
        : invalidClient(`client metadata document ${clientId}: it could not be fetched`);
      remember(clientId, { error, expiresAt: now() + negativeTtlMs });
      throw error;
    }
  }

  return {
    get(clientId: string): Promise<MetadataDocument> {
      const problem = metadataDocumentUrlProblem(clientId, opts.issuer);
      if (problem) return Promise.reject(invalidClient(problem));
      const hit = cache.get(clientId);
      if (hit && hit.expiresAt > now()) {
        remember(clientId, hit);
        return hit.error ? Promise.reject(hit.error) : Promise.resolve(hit.doc!);
      }
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

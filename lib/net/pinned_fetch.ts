// The DNS-pinned fetch: GET a small JSON document from a public address only, resolving the host once and
// connecting to the address that was checked, within one deadline and a byte limit (SSRF guards).
import { parseIPv4, parseIPv6 } from "./addresses.ts";
import { type Fetched, readResponse } from "./http1_response.ts";
import { LOOPBACK_ADDRESSES, reachesLoopback } from "./loopback.ts";
import { addressProblem } from "./public_address.ts";
import { FetchRefusal as Refusal, printable as clean } from "./refusal.ts";

export interface PinnedFetchSettings {
  /** one deadline for DNS, connect, TLS and reading the whole answer */
  timeoutMs: number;
  /** the most body bytes read */
  maxBytes: number;
  /** loopback addresses may be connected to (the caller itself runs on loopback: development) */
  allowLoopback: boolean;
  /** a host name to IP addresses (resolveHost by default; a test seam) */
  resolve: (host: string) => Promise<string[]>;
  /** extra PEM root certificates trusted for https (a test seam) */
  caCerts?: string[];
}

/** A and AAAA records of `host` within `timeoutMs`; throws FetchRefusal when there are none. */
export async function resolveHost(host: string, timeoutMs: number): Promise<string[]> {
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

/**
 * GET over one connection to an address that was checked: resolve once, refuse if any address is special,
 * connect to the address literal (so DNS cannot change between the check and the connection), then TLS with the
 * URL's host name for SNI and certificate verification. HTTP/1.1, `Connection: close`, no redirects, a byte
 * limit enforced on what is read (not on Content-Length), one deadline for everything.
 */
export async function fetchPinned(url: URL, s: PinnedFetchSettings): Promise<Fetched> {
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
    else if (reachesLoopback(bare)) addresses = [...LOOPBACK_ADDRESSES]; // RFC 6761 §6.3: never asked of DNS
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

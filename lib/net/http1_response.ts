// Reads one HTTP/1.x answer off a connection within bounds: 8 KiB of headers, a body limit enforced on the bytes
// read (Content-Length, chunked or close-delimited), 200 and a JSON media type required, no redirects followed.
import { FetchRefusal as Refusal, printable as clean } from "./refusal.ts";

const MAX_HEADER_BYTES = 8192;
const READ_CHUNK = 4096;

/** A response body and its headers (lowercase names, every value of a repeated header). */
export interface Fetched {
  body: Uint8Array;
  headers: Map<string, string[]>;
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

/** Reads the answer to a request already written; throws FetchRefusal naming what was wrong with it. */
export async function readResponse(conn: Deno.Conn, maxBytes: number): Promise<Fetched> {
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

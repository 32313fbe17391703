// A real SMTP server for tests (npm smtp-server on a loopback port) that keeps every message it is given, decoded
// as a mail client would: the envelope, the headers (unfolded), the Subject with its RFC 2047 encoded words, and
// the plain-text body (quoted-printable or base64) as UTF-8 — so a test can read a German or French mail.
//
// Export: `smtpServer()` → { url, received, close() }.
import { Buffer } from "node:buffer";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  from: string;
  /** every header, unfolded, by lower-case name (the last one wins) */
  headers: Record<string, string>;
  subject: string;
  body: string;
}

const utf8 = new TextDecoder();

/** Quoted-printable (RFC 2045 §6.7) to bytes; `underscores` for RFC 2047's Q encoding. */
function qpBytes(text: string, underscores = false): Uint8Array {
  const soft = text.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const ch = soft[i];
    if (ch === "=" && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (underscores && ch === "_") bytes.push(0x20);
    else bytes.push(...new TextEncoder().encode(ch));
  }
  return new Uint8Array(bytes);
}

/** A header value with its RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) decoded. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?") // whitespace between two encoded words is not part of the text
    .replace(
      /=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g,
      (_, _charset: string, enc: string, data: string) =>
        utf8.decode(enc.toUpperCase() === "B" ? Buffer.from(data, "base64") : qpBytes(data, true)),
    );
}

function parse(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, " ");
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const encoded = raw.slice(split).replace(/^\r?\n\r?\n/, "");
  const cte = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  const body = cte === "quoted-printable"
    ? utf8.decode(qpBytes(encoded))
    : cte === "base64"
    ? utf8.decode(Buffer.from(encoded.replace(/\s+/g, ""), "base64"))
    : encoded;
  return { headers, body: body.replace(/\r\n/g, "\n") };
}

/** An SMTP server on a loopback port that keeps every message it is given, decoded. */
export async function smtpServer() {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Uint8Array[] = [];
      stream.on("data", (c: Uint8Array) => chunks.push(c));
      stream.on("end", () => {
        const envelope = session.envelope;
        const { headers, body } = parse(utf8.decode(Buffer.concat(chunks)));
        received.push({
          to: envelope.rcptTo.map((r) => r.address),
          from: envelope.mailFrom ? envelope.mailFrom.address : "",
          headers,
          subject: decodeWords(headers["subject"] ?? ""),
          body,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

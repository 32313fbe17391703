// Slow and vanishing clients over real TCP: a body slower than HTTP_REQUEST_TIMEOUT_MS gets 408 and
// `Connection: close`; a client that hangs up mid-body is logged at info as 499 "client aborted", never as an error or a 500.
import assert from "node:assert/strict";
import { parseConfig } from "../../lib/config.ts";
import { serve, serveOptions } from "../../lib/http/serve.ts";
import { createLogger } from "../../lib/log.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";

const REQUEST_TIMEOUT_MS = 300;
const encoder = new TextEncoder();

async function served() {
  const db = await freshDatabase();
  const lines: Record<string, unknown>[] = [];
  const config = parseConfig({
    ISSUER: "http://localhost:8000",
    SECRET_KEY: TEST_SECRET,
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
  });
  const log = createLogger("info", (line) => lines.push(JSON.parse(line)));
  const app = createApp({ config, sql: db.sql, log, secretKey: TEST_SECRET, scrypt: TEST_SCRYPT });
  const server = serve(app.fetch, { ...serveOptions(config), hostname: "127.0.0.1", port: 0 });
  return {
    port: server.addr.port,
    lines,
    async close() {
      await server.shutdown();
      await db.close();
    },
  };
}

/**
 * The server's whole answer (head and Content-Length body), or a failed test after 60 s (a hang). Deno.serve keeps
 * the socket itself open after a 408 while the client still owes body bytes; see docs/operations.md "Timeouts".
 */
async function readAnswer(conn: Deno.Conn, what: string): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer (a hang)`)), 60_000);
  });
  let text = "";
  const buf = new Uint8Array(16 * 1024);
  try {
    while (true) {
      const n = await Promise.race([conn.read(buf), hang]);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
      const end = text.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? NaN);
      if (end >= 0 && text.length - end - 4 >= length) break;
    }
  } finally {
    clearTimeout(timer);
    conn.close();
  }
  return text;
}

const HEAD = "POST /oauth/register HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
  "Content-Length: 200\r\n\r\n";

Deno.test("slow clients: a body that does not arrive within HTTP_REQUEST_TIMEOUT_MS gets 408 (request_timeout)", async () => {
  const s = await served();
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
    await conn.write(encoder.encode(`${HEAD}{"client_name":`)); // and then nothing more
    const answer = await readAnswer(conn, "slow body");
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    assert.equal(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).error, "request_timeout");
    assert.equal(s.lines.some((l) => l.level === "error"), false);
  } finally {
    await s.close();
  }
});

Deno.test("slow clients: a client hanging up mid-body is an info line with 499, not an error or a 500", async () => {
  const s = await served();
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
    await conn.write(encoder.encode(`${HEAD}{"client_name":`));
    await new Promise((r) => setTimeout(r, 50)); // the handler is reading the body
    conn.close();
    for (let i = 0; i < 600 && !s.lines.some((l) => l.msg === "request"); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const request = s.lines.find((l) => l.msg === "request");
    assert.equal(request?.status, 499);
    assert.equal(request?.level, "info");
    assert.deepEqual(s.lines.filter((l) => l.msg === "client aborted").map((l) => [l.level, l.path]), [
      ["info", "/oauth/register"],
    ]);
    assert.deepEqual(s.lines.filter((l) => l.level === "error" || l.status === 500), []);
  } finally {
    await s.close();
  }
});

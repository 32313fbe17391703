// The embedded database's front door: one loopback port that PostgreSQL clients (the server's own pool, `deno
// task admin`, `migrate`, psql) connect to, which asks each for the password only the owner's DATA_DIR holds
// and runs one client's work at a time on PGlite's single backend.
//
// PGlite is one Postgres backend: an unnamed statement or portal, an open transaction, the state after an error
// in an extended-protocol batch all belong to whoever spoke last. pglite-socket 0.2 queued clients' messages one
// at a time, so two clients' Parse/Bind/Execute/Sync sequences interleaved (`portal "" does not exist`, HTTP 500s
// while `deno task admin` ran beside `deno task dev`). Here a client holds the backend from its first message
// until PGlite answers ReadyForQuery with status idle (`I`): a whole Sync-terminated batch, or a whole
// transaction. A client that goes away while holding it leaves the backend clean (Sync, then ROLLBACK if a
// transaction is open) before the next client runs.
//
// The port is loopback-only, but any local user could reach it; Postgres' own cleartext password exchange keeps
// them out (the password never leaves this machine's loopback and is stored in DATA_DIR/embedded.json, mode
// 0600). docs/operations.md, "Embedded database".
import { timingSafeEqual } from "node:crypto";

/** Runs frontend messages in order on PGlite and resolves with every byte it answered. */
export type ExecBackend = (messages: Uint8Array[]) => Promise<Uint8Array>;

export interface GateOptions {
  /** the password clients must send; compared in constant time */
  password: string;
  /** the backend, or undefined while the database is not serving (a connection is then closed at once) */
  backend: () => ExecBackend | undefined;
  /** a client that holds the backend (inside a transaction or a batch) and sends nothing this long is dropped */
  idleHoldMs?: number;
  /** connections beyond this many are closed at once */
  maxConnections?: number;
  /**
   * PGlite answered PANIC (measured: `checkpoint` on a full disk): Postgres would restart every backend, and
   * PGlite's one backend answers nothing sensible after it, so the caller restarts PGlite.
   */
  onPanic?: (message: string) => void;
}

export interface Gate {
  port: number;
  /** the URL clients connect with, password included */
  url: string;
  /** Closes every client connection (the backend failed); whoever held it is released. */
  dropConnections(): void;
  close(): Promise<void>;
}

const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const MAX_STARTUP_BYTES = 10_000;
const MAX_PASSWORD_BYTES = 1_000;
/** a single frontend message (a bulk insert's Bind, a COPY chunk) */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);
const enc = new TextEncoder();

/** A fresh random password for the gate (24 bytes, base64url). */
export function newGatePassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

function int32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, n);
  return b;
}

/** One buffer of several (the same one when there is only one). */
export function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A backend message: type byte, int32 length (itself included), body. */
function backendMessage(type: string, body: Uint8Array): Uint8Array {
  return concat([enc.encode(type), int32(body.length + 4), body]);
}

/** An ErrorResponse (FATAL) as Postgres sends it before closing a connection. */
function fatal(code: string, message: string): Uint8Array {
  return backendMessage("E", concat([enc.encode(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`)]));
}

const ASK_CLEARTEXT_PASSWORD = backendMessage("R", int32(3));
const ROLLBACK = backendMessage("Q", enc.encode("ROLLBACK\0"));

/**
 * What a run of backend messages ends in: the status of its last ReadyForQuery ("I", "T", "E"; undefined when
 * there is none) and, when PGlite sent an ErrorResponse of severity FATAL or PANIC, that severity and message.
 */
export function readAnswer(
  out: Uint8Array,
): { status?: string; fatal?: { severity: string; message: string } } {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const answer: { status?: string; fatal?: { severity: string; message: string } } = {};
  let at = 0;
  while (at + 5 <= out.length) {
    const type = out[at];
    const end = Math.min(out.length, at + 1 + view.getInt32(at + 1));
    if (type === 0x5a && at + 5 < end) answer.status = String.fromCharCode(out[at + 5]);
    else if (type === 0x45 /* E */) {
      const fields = new Map<string, string>();
      for (const f of new TextDecoder().decode(out.subarray(at + 5, end)).split("\0")) {
        if (f) fields.set(f[0], f.slice(1));
      }
      const severity = fields.get("V") ?? fields.get("S") ?? "";
      if (severity === "FATAL" || severity === "PANIC") {
        answer.fatal = { severity, message: fields.get("M") ?? "" };
      }
    }
    at = end;
  }
  return answer;
}

/** The status byte of the last ReadyForQuery in a run of backend messages ("I", "T", "E"), or undefined. */
export function lastReadyStatus(out: Uint8Array): string | undefined {
  return readAnswer(out).status;
}

/** Reads length-framed messages from a connection. */
class Framer {
  private buf = new Uint8Array(0);
  private start = 0;
  private chunk = new Uint8Array(64 * 1024);
  constructor(private conn: Deno.Conn) {}

  private get available(): number {
    return this.buf.length - this.start;
  }

  /** Reads more bytes; false at the end of the stream. */
  async fill(): Promise<boolean> {
    const n = await this.conn.read(this.chunk);
    if (n === null) return false;
    const rest = this.buf.subarray(this.start);
    const next = new Uint8Array(rest.length + n);
    next.set(rest);
    next.set(this.chunk.subarray(0, n), rest.length);
    this.buf = next;
    this.start = 0;
    return true;
  }

  private int32At(offset: number): number {
    const at = this.start + offset;
    return new DataView(this.buf.buffer, this.buf.byteOffset + at, 4).getInt32(0);
  }

  /** A start-up packet (int32 length, then the rest), or null at the end of the stream or when too long. */
  async startupPacket(): Promise<Uint8Array | null> {
    for (;;) {
      if (this.available >= 4) {
        const length = this.int32At(0);
        if (length < 8 || length > MAX_STARTUP_BYTES) return null;
        if (this.available >= length) return this.take(length);
      }
      if (!await this.fill()) return null;
    }
  }

  /** The length of the complete typed message at `offset` from the read position, or 0 when it has not all come. */
  private completeAt(offset: number, max: number): number {
    if (this.available < offset + 5) return 0;
    const length = 1 + this.int32At(offset + 1);
    if (length < 5 || length > max) throw new Error("message too long");
    return this.available >= offset + length ? length : 0;
  }

  /** Every complete typed message already read, waiting for at least one; null at the end of the stream. */
  async messages(max = MAX_MESSAGE_BYTES): Promise<Uint8Array[] | null> {
    while (this.completeAt(0, max) === 0) {
      if (!await this.fill()) return null;
    }
    const out: Uint8Array[] = [];
    for (let length = this.completeAt(0, max); length > 0; length = this.completeAt(0, max)) {
      out.push(this.take(length));
    }
    return out;
  }

  private take(length: number): Uint8Array {
    const m = this.buf.slice(this.start, this.start + length);
    this.start += length;
    return m;
  }
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  for (let at = 0; at < data.length;) at += await conn.write(data.subarray(at));
}

/** Splits a client's messages into runs that PGlite answers in one go: each ends at Sync, Query or Flush. */
function batches(messages: Uint8Array[]): Uint8Array[][] {
  const out: Uint8Array[][] = [];
  let run: Uint8Array[] = [];
  for (const m of messages) {
    run.push(m);
    const type = m[0];
    if (type === 0x53 /* S */ || type === 0x51 /* Q */ || type === 0x48 /* H */) {
      out.push(run);
      run = [];
    }
  }
  if (run.length) out.push(run);
  return out;
}

/** Starts the gate on an ephemeral loopback port. */
export function startGate(opts: GateOptions): Gate {
  const idleHoldMs = opts.idleHoldMs ?? 30_000;
  const maxConnections = opts.maxConnections ?? 64;
  const password = enc.encode(opts.password);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0, transport: "tcp" });
  const sessions = new Set<Session>();

  // The backend's owner and the queue of clients waiting for it, first come first served.
  let holder: Session | undefined;
  const waiting: Session[] = [];

  class Session {
    closed = false;
    wake?: () => void;
    constructor(readonly conn: Deno.TcpConn) {}

    /** Waits until this session holds the backend; false when the connection closed meanwhile. */
    async acquire(): Promise<boolean> {
      if (holder === this) return true;
      if (!holder) {
        holder = this;
        return true;
      }
      waiting.push(this);
      await new Promise<void>((resolve) => this.wake = resolve);
      return holder === this && !this.closed;
    }

    release(): void {
      if (holder !== this) return;
      holder = waiting.shift();
      holder?.wake?.();
    }

    close(): void {
      if (this.closed) return;
      this.closed = true;
      sessions.delete(this);
      try {
        this.conn.close();
      } catch {
        // already closed
      }
      const i = waiting.indexOf(this);
      if (i >= 0) {
        waiting.splice(i, 1);
        this.wake?.();
      }
    }
  }

  /** Runs one batch for `s` on the backend and writes the answer; keeps the backend until it is idle again. */
  async function run(s: Session, batch: Uint8Array[]): Promise<boolean> {
    if (!await s.acquire()) return false;
    const exec = opts.backend();
    if (!exec) return false;
    const out = await exec(batch);
    if (s.closed) return false;
    await writeAll(s.conn, out);
    const answer = readAnswer(out);
    if (answer.fatal) {
      // Postgres ends the connection after FATAL, and every backend after PANIC: so does the gate.
      if (answer.fatal.severity === "PANIC") opts.onPanic?.(answer.fatal.message);
      return false;
    }
    if (answer.status === "I") s.release();
    return true;
  }

  /** After a client that held the backend went away: end its batch and transaction, then let the next in. */
  async function leave(s: Session): Promise<void> {
    s.close();
    if (holder !== s) return;
    try {
      const exec = opts.backend();
      if (exec && lastReadyStatus(await exec([SYNC])) !== "I") await exec([ROLLBACK]);
    } catch {
      // the backend failed: dropConnections follows, and a restarted PGlite starts clean
    } finally {
      s.release();
    }
  }

  /** The next messages, or null at the end or when the session held the backend idle for too long. */
  async function next(s: Session, framer: Framer): Promise<Uint8Array[] | null> {
    if (holder !== s || idleHoldMs <= 0) return await framer.messages();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const idle = new Promise<"idle">((resolve) => timer = setTimeout(() => resolve("idle"), idleHoldMs));
    try {
      const got = await Promise.race([framer.messages(), idle]);
      if (got !== "idle") return got;
      await writeAll(
        s.conn,
        fatal(
          "25P03",
          `terminating connection: it held the embedded database for ${idleHoldMs} ms in silence`,
        ),
      ).catch(() => {});
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  async function serve(conn: Deno.TcpConn): Promise<void> {
    const s = new Session(conn);
    if (sessions.size >= maxConnections || !opts.backend()) {
      s.close();
      return;
    }
    sessions.add(s);
    conn.setNoDelay(true);
    const framer = new Framer(conn);
    try {
      let startup: Uint8Array | null;
      for (;;) {
        startup = await framer.startupPacket();
        if (!startup) return;
        const code = new DataView(startup.buffer).getInt32(4);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          await writeAll(conn, enc.encode("N")); // no encryption on loopback; the client goes on in the clear
          continue;
        }
        if (code !== PROTOCOL_3) return; // a CancelRequest (PGlite cannot cancel) or an unknown protocol
        break;
      }
      await writeAll(conn, ASK_CLEARTEXT_PASSWORD);
      const reply = await framer.messages(MAX_PASSWORD_BYTES);
      const sent = reply?.length === 1 && reply[0][0] === 0x70 /* p */ ? reply[0].subarray(5, -1) : undefined;
      if (!sent || sent.length !== password.length || !timingSafeEqual(sent, password)) {
        await writeAll(conn, fatal("28P01", 'password authentication failed for user "postgres"'));
        return;
      }
      // PGlite answers the start-up itself (AuthenticationOk, parameters, ReadyForQuery).
      if (!await run(s, [startup])) return;
      for (;;) {
        const messages = await next(s, framer);
        if (!messages) return;
        for (const batch of batches(messages)) {
          if (batch[batch.length - 1][0] === 0x58 /* X: Terminate */) {
            if (batch.length > 1 && !await run(s, batch.slice(0, -1))) return;
            return;
          }
          if (!await run(s, batch)) return;
        }
      }
    } catch {
      // a reset connection, a message over the limit, a failed backend: the connection ends
    } finally {
      await leave(s);
    }
  }

  const accepting = (async () => {
    for await (const conn of listener) void serve(conn);
  })().catch(() => {});

  const port = (listener.addr as Deno.NetAddr).port;
  return {
    port,
    url: `postgres://postgres:${opts.password}@127.0.0.1:${port}/postgres`,
    dropConnections() {
      for (const s of [...sessions]) s.close();
      holder = undefined;
      for (const w of waiting.splice(0)) w.wake?.();
    },
    async close() {
      listener.close();
      await accepting;
      this.dropConnections();
    },
  };
}

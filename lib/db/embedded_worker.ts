// The embedded database's own thread: PGlite under DATA_DIR/pgdata, answering the PostgreSQL protocol messages
// the supervisor's gate sends it (lib/db/embedded_gate.ts, which serves the loopback port and picks whose turn).
//
// It runs in a Worker so that PGlite stuck in its WASM code (measured: `checkpoint` or `vacuum full` on a full
// disk spins forever) blocks only this thread: the main thread keeps answering /healthz with 503, honours
// SIGTERM, and lib/db/embedded_supervisor.ts terminates and restarts this worker.
/// <reference lib="deno.worker" />
import { PGlite } from "@electric-sql/pglite";
// pg_trgm backs the search indexes of migration 00019; a static import so `deno compile` bundles it.
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { type FromWorker, HEARTBEAT_MS, type ToWorker } from "./embedded_protocol.ts";
import { pgliteExec } from "./embedded_exec.ts";

let db: PGlite | undefined;

function send(msg: FromWorker, transfer: Transferable[] = []): void {
  self.postMessage(msg, transfer);
}

async function start(dir: string): Promise<void> {
  try {
    await Deno.mkdir(dir, { recursive: true });
    db = await PGlite.create({ dataDir: dir, extensions: { pg_trgm } });
    setInterval(() => send({ type: "alive" }), HEARTBEAT_MS);
    send({ type: "ready" });
  } catch (err) {
    send({ type: "failed", message: err instanceof Error ? err.message : String(err) });
  }
}

async function exec(id: number, messages: Uint8Array[]): Promise<void> {
  try {
    if (!db) throw new Error("the embedded database is not open");
    const data = await pgliteExec(db, messages);
    send({ type: "answer", id, data }, [data.buffer as ArrayBuffer]);
  } catch (err) {
    send({ type: "execFailed", id, message: err instanceof Error ? err.message : String(err) });
  }
}

async function stop(): Promise<void> {
  try {
    await db?.close();
  } catch {
    // the supervisor terminates this thread next either way
  }
  send({ type: "stopped" });
}

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const msg = event.data;
  if (msg.type === "exec") void exec(msg.id, msg.messages);
  else if (msg.type === "start") void start(msg.dir);
  else if (msg.type === "stop") void stop();
  else if (msg.type === "spin") {
    send({ type: "spinning" }); // from here on nothing this thread serves gets an answer
    for (;;) { /* a hung PGlite, for the supervisor's tests */ }
  }
};

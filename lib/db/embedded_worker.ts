// The embedded database's own thread: PGlite under DATA_DIR/pgdata, served on an ephemeral loopback port.
//
// It runs in a Worker so that PGlite stuck in its WASM code (measured: `checkpoint` or `vacuum full` on a full
// disk spins forever) blocks only this thread: the main thread keeps answering /healthz with 503, honours
// SIGTERM, and lib/db/embedded_supervisor.ts terminates and restarts this worker.
/// <reference lib="deno.worker" />
import { PGlite } from "@electric-sql/pglite";
// pg_trgm backs the search indexes of migration 00019; a static import so `deno compile` bundles it.
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { type FromWorker, HEARTBEAT_MS, type ToWorker } from "./embedded_protocol.ts";

let db: PGlite | undefined;
let server: PGLiteSocketServer | undefined;

function send(msg: FromWorker): void {
  self.postMessage(msg);
}

async function start(dir: string): Promise<void> {
  try {
    await Deno.mkdir(dir, { recursive: true });
    db = await PGlite.create({ dataDir: dir, extensions: { pg_trgm } });
    // A few connections: the server's pool of one, plus `deno task admin` / `migrate` reaching it through the
    // port file. pglite-socket queues their queries and keeps a connection's open transaction together.
    server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 8 });
    await server.start();
    const conn = server.getServerConn();
    setInterval(() => send({ type: "alive" }), HEARTBEAT_MS);
    send({ type: "ready", port: Number(conn.slice(conn.lastIndexOf(":") + 1)) });
  } catch (err) {
    send({ type: "failed", message: err instanceof Error ? err.message : String(err) });
  }
}

async function stop(): Promise<void> {
  try {
    await server?.stop();
    await db?.close();
  } catch {
    // the supervisor terminates this thread next either way
  }
  send({ type: "stopped" });
}

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const msg = event.data;
  if (msg.type === "start") void start(msg.dir);
  else if (msg.type === "stop") void stop();
  else if (msg.type === "spin") {
    send({ type: "spinning" }); // from here on nothing this thread serves gets an answer
    for (;;) { /* a hung PGlite, for the supervisor's tests */ }
  }
};

// In-thread PGlite served on loopback, for tests and benchmarks (mostly in memory). The server's embedded
// database under DATA_DIR runs supervised in a worker instead: lib/db/embedded_supervisor.ts.
import { PGlite } from "@electric-sql/pglite";
// pg_trgm backs the search indexes of migration 00019; a static import so `deno compile` bundles it.
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface Embedded {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts PGlite persisted in `dir` (or in memory when `dir` is undefined) and exposes it on an ephemeral
 * loopback port. PGlite runs one backend, so clients must use a pool of one connection.
 */
export async function startEmbedded(dir: string | undefined): Promise<Embedded> {
  if (dir) await Deno.mkdir(dir, { recursive: true });
  const db = await PGlite.create(
    dir ? { dataDir: dir, extensions: { pg_trgm } } : { extensions: { pg_trgm } },
  );
  // A few connections; pglite-socket queues their queries and keeps a connection's open transaction together.
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 });
  await server.start();
  const conn = server.getServerConn();
  const port = Number(conn.slice(conn.lastIndexOf(":") + 1));
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}

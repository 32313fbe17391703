// In-thread PGlite served on loopback, for tests and benchmarks (mostly in memory). The server's embedded
// database under DATA_DIR runs supervised in a worker instead: lib/db/embedded_supervisor.ts.
import { PGlite } from "@electric-sql/pglite";
// pg_trgm backs the search indexes of migration 00019; a static import so `deno compile` bundles it.
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { newGatePassword, startGate } from "./embedded_gate.ts";
import { pgliteExec } from "./embedded_exec.ts";

export interface Embedded {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts PGlite persisted in `dir` (or in memory when `dir` is undefined) behind the gate on an ephemeral
 * loopback port. Several connections may be open; the gate runs one client's batch or transaction at a time.
 */
export async function startEmbedded(dir: string | undefined): Promise<Embedded> {
  if (dir) await Deno.mkdir(dir, { recursive: true });
  const db = await PGlite.create(
    dir ? { dataDir: dir, extensions: { pg_trgm } } : { extensions: { pg_trgm } },
  );
  const exec = (messages: Uint8Array[]) => pgliteExec(db, messages);
  const gate = startGate({ password: newGatePassword(), backend: () => exec });
  return {
    url: gate.url,
    async close() {
      await gate.close();
      await db.close();
    },
  };
}

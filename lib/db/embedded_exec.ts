// Runs PostgreSQL frontend messages on a PGlite instance: the one place that talks to PGlite's protocol API.
import type { PGlite } from "@electric-sql/pglite";
import { concat } from "./embedded_gate.ts";

/** Runs `messages` in order, alone on the instance, and returns every byte PGlite answered (a fresh buffer). */
export async function pgliteExec(db: PGlite, messages: Uint8Array[]): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  await db.runExclusive(async () => {
    for (const m of messages) {
      // the chunk may be a view into PGlite's memory: copied before the next message overwrites it
      await db.execProtocolRawStream(m, { onRawData: (chunk) => parts.push(chunk.slice()) });
    }
  });
  return parts.length === 1 ? parts[0] : concat(parts);
}

// The messages between the embedded database's supervisor (main thread) and its worker thread.

/**
 * Messages from the supervisor: `exec` runs PostgreSQL frontend messages on PGlite (lib/db/embedded_gate.ts
 * decides whose and when); `spin` is a test hook that hangs the thread as PGlite does on a full disk.
 */
export type ToWorker =
  | { type: "start"; dir: string }
  | { type: "exec"; id: number; messages: Uint8Array[] }
  | { type: "stop" }
  | { type: "spin" };
/** Messages to the supervisor; `alive` every HEARTBEAT_MS while the thread's event loop turns. */
export type FromWorker =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "answer"; id: number; data: Uint8Array }
  | { type: "execFailed"; id: number; message: string }
  | { type: "alive" }
  | { type: "spinning" }
  | { type: "stopped" };

export const HEARTBEAT_MS = 250;

// The messages between the embedded database's supervisor (main thread) and its worker thread.

/** Messages from the supervisor; `spin` is a test hook that hangs the thread as PGlite does on a full disk. */
export type ToWorker = { type: "start"; dir: string } | { type: "stop" } | { type: "spin" };
/** Messages to the supervisor; `alive` every HEARTBEAT_MS while the thread's event loop turns. */
export type FromWorker =
  | { type: "ready"; port: number }
  | { type: "failed"; message: string }
  | { type: "alive" }
  | { type: "spinning" }
  | { type: "stopped" };

export const HEARTBEAT_MS = 250;

// Keeps the embedded database alive: PGlite in a Worker, restarted with backoff, behind one stable loopback port.
//
// postgres.js and other processes (through the port file) connect to the gate (lib/db/embedded_gate.ts), which
// checks their password and hands one client's messages at a time to the worker. While the worker is
// (re)starting, a connection is closed at once, so callers get a quick "unavailable" (503) instead of waiting. The worker must send a
// heartbeat: a worker whose thread stops turning (PGlite spinning in WASM on a full disk) is terminated and
// started again, which is also how the database comes back once the disk is writable again.
import { dirname, join } from "node:path";
import type { Logger } from "../log.ts";
import { newGatePassword, startGate } from "./embedded_gate.ts";
import { type FromWorker, HEARTBEAT_MS, type ToWorker } from "./embedded_protocol.ts";

export type EmbeddedState = "starting" | "ready" | "restarting" | "stopped";

export interface SupervisorOptions {
  log?: Logger;
  /** a ready worker that sends no heartbeat for this long is terminated and restarted */
  heartbeatTimeoutMs?: number;
  /** how long the first start of PGlite may take (it may run initdb: half a minute on a slow machine) */
  startTimeoutMs?: number;
  /** how long a restart may take (an existing directory: a second or two, plus WAL recovery) */
  restartTimeoutMs?: number;
  /** how often DATA_DIR is checked for being writable */
  probeIntervalMs?: number;
}

export interface SupervisedEmbedded {
  /** the stable loopback URL; valid across worker restarts */
  url: string;
  state(): EmbeddedState;
  /** why the embedded database cannot serve right now (restarting, disk full or read-only), or undefined */
  problem(): string | undefined;
  /** how many times the worker was restarted after its first start */
  restarts(): number;
  close(): Promise<void>;
  /** Test hook: makes the worker's thread spin as PGlite does on a full disk; resolves once it spins. */
  spinForTest(): Promise<void>;
}

const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 5_000;

/** Starts the supervised embedded database in `dir`; resolves once it serves, rejects if the first start fails. */
export async function startSupervisedEmbedded(
  dir: string,
  opts: SupervisorOptions = {},
): Promise<SupervisedEmbedded> {
  const heartbeatTimeoutMs = opts.heartbeatTimeoutMs ?? 10_000;
  const startTimeoutMs = opts.startTimeoutMs ?? 120_000;
  const restartTimeoutMs = opts.restartTimeoutMs ?? 30_000;
  const probeIntervalMs = opts.probeIntervalMs ?? 2_000;
  let state: EmbeddedState = "starting";
  let worker: Worker | undefined;
  let lastAlive = 0;
  // the pending spinForTest, told when the worker reports it spins
  let spinning: (() => void) | undefined;
  let restartCount = 0;
  let backoff = BACKOFF_MIN_MS;
  let diskProblem: string | undefined;
  let respawnTimer: ReturnType<typeof setTimeout> | undefined;
  // Answers the worker owes the gate, by request id; rejected when the worker fails.
  const owed = new Map<number, { resolve: (data: Uint8Array) => void; reject: (err: Error) => void }>();
  let nextId = 1;

  function exec(messages: Uint8Array[]): Promise<Uint8Array> {
    const w = worker;
    if (!w) return Promise.reject(new Error("the embedded database is restarting"));
    return new Promise((resolve, reject) => {
      const id = nextId++;
      owed.set(id, { resolve, reject });
      w.postMessage({ type: "exec", id, messages } satisfies ToWorker);
    });
  }

  function failOwed(reason: string) {
    for (const { reject } of owed.values()) reject(new Error(reason));
    owed.clear();
  }

  const gate = startGate({
    password: newGatePassword(),
    backend: () => state === "ready" && worker ? exec : undefined,
    onPanic: (message) => {
      if (worker) fail(worker, `PGlite panicked: ${message}`);
    },
  });

  function dropConnections() {
    failOwed("the embedded database is restarting");
    gate.dropConnections();
  }

  /** Starts one worker; resolves with "" when it serves, or the reason it did not. */
  function spawn(timeoutMs: number): Promise<string> {
    const w = new Worker(new URL("./embedded_worker.ts", import.meta.url).href, { type: "module" });
    worker = w;
    return new Promise((resolve) => {
      let settled = false;
      const settle = (reason: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(reason);
      };
      const timer = setTimeout(() => settle(`no answer within ${timeoutMs / 1000} s`), timeoutMs);
      w.onmessage = (event: MessageEvent<FromWorker>) => {
        const msg = event.data;
        if (msg.type === "answer") {
          owed.get(msg.id)?.resolve(msg.data);
          owed.delete(msg.id);
        } else if (msg.type === "execFailed") {
          owed.get(msg.id)?.reject(new Error(msg.message));
          owed.delete(msg.id);
        } else if (msg.type === "alive") lastAlive = Date.now();
        else if (msg.type === "spinning") spinning?.();
        else if (msg.type === "ready") {
          lastAlive = Date.now();
          settle("");
        } else if (msg.type === "failed") {
          if (settled) fail(w, msg.message);
          else settle(msg.message);
        }
      };
      w.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        const reason = event.message || "the worker failed";
        if (settled) fail(w, reason);
        else settle(reason);
      };
      w.postMessage({ type: "start", dir } satisfies ToWorker);
    });
  }

  function terminate(w: Worker | undefined) {
    try {
      w?.terminate();
    } catch {
      // already gone
    }
  }

  /** The running worker died or hung: cut its connections and start another after a backoff. */
  function fail(w: Worker, reason: string) {
    if (w !== worker || state === "stopped") return;
    opts.log?.warn("embedded database failed; restarting", { reason, retry_in_ms: backoff });
    state = "restarting";
    terminate(w);
    worker = undefined;
    dropConnections();
    scheduleRespawn();
  }

  function scheduleRespawn() {
    respawnTimer = setTimeout(async () => {
      respawnTimer = undefined;
      if (state === "stopped") return;
      restartCount++;
      const reason = await spawn(restartTimeoutMs);
      if ((state as EmbeddedState) === "stopped") {
        terminate(worker);
        return;
      }
      if (reason === "") {
        state = "ready";
        backoff = BACKOFF_MIN_MS;
        opts.log?.info("embedded database restarted", { restarts: restartCount });
      } else {
        opts.log?.warn("embedded database restart failed", { reason, retry_in_ms: backoff });
        terminate(worker);
        worker = undefined;
        backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
        scheduleRespawn();
      }
    }, backoff);
  }

  const watchdog = setInterval(() => {
    if (state === "ready" && worker && Date.now() - lastAlive > heartbeatTimeoutMs) {
      fail(worker, `no heartbeat for ${heartbeatTimeoutMs / 1000} s`);
    }
  }, Math.min(HEARTBEAT_MS * 4, heartbeatTimeoutMs));

  // PGlite reports a full disk only on writes (and may hang on them); a small file written next to the data
  // tells the operator through /healthz before that, and tells them when it is over.
  const probeFile = join(dirname(dir), ".write_probe");
  let probing = false;
  const probe = setInterval(async () => {
    if (probing) return;
    probing = true;
    try {
      await Deno.writeFile(probeFile, new Uint8Array(4096));
      await Deno.remove(probeFile);
      if (diskProblem) opts.log?.info("data directory writable again", { dir });
      diskProblem = undefined;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!diskProblem) opts.log?.warn("data directory not writable", { dir, reason: message });
      diskProblem = /no space|ENOSPC/i.test(message)
        ? "the data directory's disk is full"
        : /read-only|EROFS/i.test(message)
        ? "the data directory's disk is read-only"
        : "the data directory is not writable";
    } finally {
      probing = false;
    }
  }, probeIntervalMs);

  const first = await spawn(startTimeoutMs);
  if (first !== "") {
    terminate(worker);
    clearInterval(watchdog);
    clearInterval(probe);
    await gate.close();
    throw new Error(first);
  }
  state = "ready";

  return {
    url: gate.url,
    state: () => state,
    problem() {
      if (state === "starting" || state === "restarting") return "the embedded database is restarting";
      return diskProblem;
    },
    restarts: () => restartCount,
    spinForTest() {
      return new Promise<void>((resolve) => {
        spinning = resolve;
        worker?.postMessage({ type: "spin" } satisfies ToWorker);
      });
    },
    async close() {
      if (state === "stopped") return;
      const w = worker;
      const healthy = state === "ready" && Date.now() - lastAlive < 2_000;
      state = "stopped";
      clearTimeout(respawnTimer);
      clearInterval(watchdog);
      clearInterval(probe);
      await gate.close();
      failOwed("the embedded database stopped");
      if (w && healthy) {
        // A clean PGlite shutdown (checkpoint) when the worker answers; a hung one is just terminated, and
        // the next start recovers from the WAL as after a crash.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 5_000);
          w.onmessage = (event: MessageEvent<FromWorker>) => {
            if (event.data.type === "stopped") {
              clearTimeout(timer);
              resolve();
            }
          };
          w.postMessage({ type: "stop" } satisfies ToWorker);
        });
      }
      terminate(w);
      worker = undefined;
    },
  };
}

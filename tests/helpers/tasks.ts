// Runs the real `deno task …` commands (their own permissions, never -A) against a temporary DATA_DIR and port.
//
// Each task runs in a process group of its own (setsid): a signal reaches the whole tree — `deno task`, the
// `--watch` runner under it — as a terminal's Ctrl-C or a service manager's stop does, and cleanup kills the
// whole group, also a process that lost its parent. Reading a task's output ends only when every process holding
// its pipes is gone, so a process left behind would otherwise hold a test (and the suite) for ever.
import assert from "node:assert/strict";
import { HANG_MS } from "./wait.ts";

export const ROOT = new URL("../../", import.meta.url).pathname;

export function taskEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1", ...extra };
  for (const k of ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const v = Deno.env.get(k);
    if (v) env[k] = v;
  }
  return env;
}

export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = l.addr.port;
  l.close();
  return port;
}

export interface TaskResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A `deno task` in its own process group, its output collected as it comes. */
interface Spawned {
  pid: number;
  readonly stdout: string;
  readonly stderr: string;
  /** true once `deno task` itself has exited */
  readonly exited: boolean;
  /** resolves when `deno task` has exited and every process of its group has let go of the output pipes */
  status: Promise<Deno.CommandStatus>;
  /** sends `signal` to every process of the group */
  signal(signal: Deno.Signal): void;
}

function spawnTask(name: string, args: string[], env: Record<string, string>): Spawned {
  // setsid execs in place (a child of Deno is never a group leader): the pid is `deno task`'s and the group's
  const child = new Deno.Command("setsid", {
    args: [Deno.execPath(), "task", "-q", name, ...args],
    cwd: ROOT,
    env: taskEnv(env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const decoder = new TextDecoder();
  let stdout = "";
  let stderr = "";
  const reading = Promise.all([
    (async () => {
      for await (const chunk of child.stdout) stdout += decoder.decode(chunk, { stream: true });
    })(),
    (async () => {
      for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
    })(),
  ]);
  let exited = false;
  const status = child.status.then(async (s) => {
    exited = true;
    await reading;
    return s;
  });
  return {
    pid: child.pid,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    get exited() {
      return exited;
    },
    status,
    signal(signal) {
      try {
        Deno.kill(-child.pid, signal);
      } catch {
        // the group is gone already
      }
    },
  };
}

/** `status`, or undefined once `ms` have passed. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<undefined>((r) => timer = setTimeout(() => r(undefined), ms))]);
  } finally {
    clearTimeout(timer);
  }
}

/** `deno task <name> <args…>` to the end (a hang, HANG_MS, kills its group and fails). */
export async function runTask(
  name: string,
  args: string[],
  env: Record<string, string>,
): Promise<TaskResult> {
  const task = spawnTask(name, args, env);
  const status = await within(task.status, HANG_MS);
  if (!status) {
    task.signal("SIGKILL");
    await task.status;
    throw new Error(
      `deno task ${name} ${args.join(" ")} ${task.exited ? "left a process running" : "did not end"}` +
        ` within ${HANG_MS / 1000} s (a hang):\n${task.stdout}\n${task.stderr}`,
    );
  }
  return { code: status.code, stdout: task.stdout, stderr: task.stderr };
}

export interface RunningTask {
  pid: number;
  readonly stdout: string;
  readonly stderr: string;
  /** resolves when the task's process has ended */
  status: Promise<Deno.CommandStatus>;
  /**
   * Sends `signal` to the task's process group (as Ctrl-C or a service manager's stop does) and waits until every
   * process of it has ended — at most `boundMs` (default: HANG_MS, only a hang reaches it); `ended` says whether
   * they did. A group that did not end is killed.
   */
  stop(signal: Deno.Signal, boundMs?: number): Promise<{ code: number | null; ended: boolean }>;
  /** cleanup after a failed test: SIGKILL to every process of the task's group */
  kill(): Promise<void>;
}

/** Starts `deno task <name>` and waits until its log says it is listening (or it exits: a failed start). */
export async function startTask(
  name: string,
  env: Record<string, string>,
  readyMs = HANG_MS,
): Promise<RunningTask> {
  const task = spawnTask(name, [], env);
  const deadline = Date.now() + readyMs;
  while (!task.stdout.includes('"msg":"listening"')) {
    if (task.exited || Date.now() > deadline) {
      task.signal("SIGKILL");
      await task.status;
      throw new Error(`deno task ${name} did not start:\n${task.stdout}\n${task.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    pid: task.pid,
    get stdout() {
      return task.stdout;
    },
    get stderr() {
      return task.stderr;
    },
    status: task.status,
    async stop(signal, boundMs = HANG_MS) {
      task.signal(signal);
      const status = await within(task.status, boundMs);
      if (!status) {
        // do not leave it running: end the whole group (the watcher is a child of `deno task`)
        task.signal("SIGKILL");
        await task.status;
        return { code: null, ended: false };
      }
      return { code: status.code, ended: true };
    },
    async kill() {
      task.signal("SIGKILL");
      await task.status;
    },
  };
}

/** True when nothing accepts connections on the port any more. */
export async function portClosed(port: number): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.close();
    return false;
  } catch (err) {
    assert.ok(err instanceof Deno.errors.ConnectionRefused, String(err));
    return true;
  }
}

/** The processes whose parent is `pid` (the watcher under `deno task`), for leak checks. */
export function childPids(pid: number): number[] {
  const out = new Deno.Command("pgrep", { args: ["-P", String(pid)], stdout: "piped" }).outputSync();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l.trim()).map(Number);
}

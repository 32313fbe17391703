// Runs the real `deno task …` commands (their own permissions, never -A) against a temporary DATA_DIR and port.
import assert from "node:assert/strict";

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

/** `deno task <name> <args…>` to the end. */
export async function runTask(
  name: string,
  args: string[],
  env: Record<string, string>,
): Promise<TaskResult> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", name, ...args],
    cwd: ROOT,
    env: taskEnv(env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

export interface RunningTask {
  pid: number;
  readonly stdout: string;
  readonly stderr: string;
  /** resolves when the task's process has ended */
  status: Promise<Deno.CommandStatus>;
  /** sends `signal` to the `deno task` process (as a process manager would) and waits, at most `boundMs` */
  stop(signal: Deno.Signal, boundMs?: number): Promise<{ code: number | null; ended: boolean }>;
  /** cleanup after a failed test: SIGKILL to the task and everything under it */
  kill(): Promise<void>;
}

/** Starts `deno task <name>` and waits until its log says it is listening. */
export async function startTask(
  name: string,
  env: Record<string, string>,
  readyMs = 180_000,
): Promise<RunningTask> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", name],
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
  let done = false;
  const status = child.status.then(async (s) => {
    done = true;
    await reading;
    return s;
  });
  const deadline = Date.now() + readyMs;
  while (!stdout.includes('"msg":"listening"')) {
    if (done || Date.now() > deadline) {
      if (!done) child.kill("SIGKILL");
      await status;
      throw new Error(`deno task ${name} did not start:\n${stdout}\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    pid: child.pid,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    status,
    async stop(signal, boundMs = 30_000) {
      child.kill(signal);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const ended = await Promise.race([
        status.then(() => true),
        new Promise<boolean>((r) => timer = setTimeout(() => r(false), boundMs)),
      ]);
      clearTimeout(timer);
      if (!ended) {
        // do not leave it running: end the whole tree (the watcher is a child of `deno task`)
        killTree(child.pid);
        await status;
        return { code: null, ended: false };
      }
      return { code: (await status).code, ended: true };
    },
    async kill() {
      killTree(child.pid);
      await status;
    },
  };
}

function killTree(pid: number): void {
  try {
    const children = new TextDecoder().decode(
      new Deno.Command("pgrep", { args: ["-P", String(pid)], stdout: "piped" }).outputSync().stdout,
    ).split("\n").filter((l) => l.trim()).map(Number);
    for (const c of children) killTree(c);
    Deno.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
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

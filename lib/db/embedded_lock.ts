// Who owns the embedded database: an OS file lock on DATA_DIR/embedded.lock, and the owner's published port.
//
// PGlite's data directory must be opened by one process only. The owner holds an exclusive advisory lock
// (flock) for its whole life; the kernel releases it when the process ends, however it ends, so there is no
// stale state to guess about (the earlier check read /proc/<pid>, which `deno task admin` may not read).

import { join } from "node:path";

export const LOCK_FILE = "embedded.lock";
export const PORT_FILE = "embedded.json";

export interface EmbeddedLock {
  /** records the owner's loopback URL for other processes */
  publish(url: string): Promise<void>;
  unpublish(): Promise<void>;
  release(): void;
}

/** Takes the lock without waiting; null when another process (or another open in this one) holds it. */
export async function lockEmbedded(dataDir: string): Promise<EmbeddedLock | null> {
  await Deno.mkdir(dataDir, { recursive: true });
  const file = await Deno.open(join(dataDir, LOCK_FILE), { read: true, write: true, create: true });
  let locked = false;
  try {
    locked = await file.tryLock(true);
  } finally {
    if (!locked) file.close();
  }
  if (!locked) return null;
  const portFile = join(dataDir, PORT_FILE);
  // Whatever a crashed owner left behind is stale now that we hold the lock.
  await Deno.remove(portFile).catch(() => {});
  await file.truncate(0);
  await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
  let released = false;
  return {
    async publish(url) {
      const tmp = `${portFile}.${Deno.pid}.tmp`;
      // owner-only: the URL carries the gate's password (lib/db/embedded_gate.ts)
      await Deno.writeTextFile(tmp, JSON.stringify({ url, pid: Deno.pid }), { mode: 0o600 });
      await Deno.rename(tmp, portFile); // readers never see half a file
    },
    async unpublish() {
      await Deno.remove(portFile).catch(() => {});
    },
    release() {
      if (released) return;
      released = true;
      try {
        file.close(); // closing the descriptor releases the lock
      } catch {
        // already closed
      }
    },
  };
}

/** What the current owner recorded: its pid (from the lock file) and, once it serves, its URL. */
export async function readOwner(dataDir: string): Promise<{ pid?: number; url?: string }> {
  const owner: { pid?: number; url?: string } = {};
  try {
    const pid = Number((await Deno.readTextFile(join(dataDir, LOCK_FILE))).trim());
    if (Number.isInteger(pid) && pid > 0) owner.pid = pid;
  } catch {
    // not written yet
  }
  try {
    const recorded = JSON.parse(await Deno.readTextFile(join(dataDir, PORT_FILE)));
    if (
      typeof recorded.url === "string" &&
      /^postgres:\/\/postgres:[\w-]+@127\.0\.0\.1:\d+\//.test(recorded.url)
    ) {
      owner.url = recorded.url;
    }
  } catch {
    // not published yet
  }
  return owner;
}

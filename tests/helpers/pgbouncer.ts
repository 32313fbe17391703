// A real PgBouncer in transaction mode, started by a test in front of DATABASE_URL's server, in a temp directory.
//
// Exports: PGBOUNCER (the binary), havePgBouncer, warnIfNoPgBouncer(file), startPgBouncer(databaseUrl, opts).
// PgBouncer refuses to run as root: under root (CI containers) it is told to switch to `nobody` (-u).
import { eventually } from "./wait.ts";

export const PGBOUNCER = "/usr/sbin/pgbouncer";

function version(): [number, number] | null {
  try {
    const out = new Deno.Command(PGBOUNCER, { args: ["-V"], stdout: "piped", stderr: "null" }).outputSync();
    const m = new TextDecoder().decode(out.stdout).match(/PgBouncer (\d+)\.(\d+)/);
    return m ? [Number(m[1]), Number(m[2])] : null;
  } catch {
    return null;
  }
}

const VERSION = version();
export const havePgBouncer = VERSION !== null;

export function warnIfNoPgBouncer(file: string, why?: string): void {
  if (!havePgBouncer) console.warn(`${file} skipped: ${PGBOUNCER} is missing (apt-get install pgbouncer)`);
  else if (why) console.warn(`${file} skipped: ${why}`);
}

export interface PgBouncer {
  /** `databaseUrl` with its host and port replaced by PgBouncer's */
  url: string;
  port: number;
  /** the PgBouncer process (its CPU, for bench/pooler.ts) */
  pid: number;
  /** one SHOW command on PgBouncer's admin console (via psql), as rows of column → value */
  show(what: "pools" | "stats"): Promise<Record<string, string>[]>;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** server connections per database and user (default 3: a pool of 10 client connections shares them) */
  poolSize?: number;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function accepts(port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    return true;
  } catch {
    return false;
  }
}

/** Starts PgBouncer (transaction mode, trust auth) in front of the server of `databaseUrl`; waits until it listens. */
export async function startPgBouncer(databaseUrl: string, opts: PgBouncerOptions = {}): Promise<PgBouncer> {
  if (!VERSION) throw new Error(`${PGBOUNCER} is missing`);
  const target = new URL(databaseUrl);
  const user = decodeURIComponent(target.username) || "postgres";
  const dir = await Deno.makeTempDir({ prefix: "portico_pgbouncer_" });
  await Deno.chmod(dir, 0o755); // read again by `nobody` after the switch (auth_file)
  const port = freePort();
  const ini = [
    "[databases]",
    `* = host=${target.hostname} port=${target.port || "5432"}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = trust",
    `auth_file = ${dir}/users.txt`,
    `admin_users = ${user}`,
    "pool_mode = transaction",
    `default_pool_size = ${opts.poolSize ?? 3}`,
    "max_client_conn = 200",
    // 1.21 and later can track named prepared statements (1.22 does by default): off, as in 1.18 and Supavisor
    // before it, so the test without DATABASE_POOLER shows what a pooler that does not track them does.
    ...(VERSION[0] > 1 || VERSION[1] >= 21 ? ["max_prepared_statements = 0"] : []),
  ].join("\n");
  await Deno.writeTextFile(`${dir}/pgbouncer.ini`, ini + "\n", { mode: 0o644 });
  await Deno.writeTextFile(`${dir}/users.txt`, `"${user}" ""\n`, { mode: 0o644 });
  const root = Deno.uid() === 0;
  const child = new Deno.Command(PGBOUNCER, {
    args: [...(root ? ["-u", "nobody"] : []), `${dir}/pgbouncer.ini`],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const reading = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) log += chunk;
  })();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const stop = async () => {
    if (!exited) child.kill("SIGTERM");
    await status;
    await reading.catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    await eventually("PgBouncer listens", async () => exited || await accepts(port));
    if (exited) throw new Error(`PgBouncer exited: ${log.trim().split("\n").slice(-3).join(" | ")}`);
  } catch (err) {
    await stop();
    throw err;
  }
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    pid: child.pid,
    async show(what) {
      const out = await new Deno.Command("psql", {
        args: [
          "-h",
          "127.0.0.1",
          "-p",
          String(port),
          "-U",
          user,
          "-d",
          "pgbouncer",
          "-A",
          "-F",
          "\t",
          "-c",
          `show ${what}`,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (!out.success) throw new Error(`psql show ${what}: ${new TextDecoder().decode(out.stderr)}`);
      const [head, ...rows] = new TextDecoder().decode(out.stdout).trim().split("\n").filter((l) =>
        l.includes("\t")
      );
      const cols = head.split("\t");
      return rows.map((r) => Object.fromEntries(r.split("\t").map((v, i) => [cols[i], v])));
    },
    stop,
  };
}

// Where a server's CPU goes, read from /proc (Linux; NaN elsewhere): its event loop (the main thread) apart from
// its other threads (the signer's pool, the garbage collector), and PostgreSQL's backends beside it. Used by
// bench/refresh_peer.ts, whose per-refresh figures showed that Portico and the peer spend about the same in
// their own processes, and the difference is in PostgreSQL and in the event loop's hand-offs.

/** utime + stime of one thread, seconds (clock ticks of 1/100 s). */
function threadSeconds(pid: number, tid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/task/${tid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of the main thread of `pid` (its event loop, in Deno and Node) so far. */
export function eventLoopSeconds(pid: number): number {
  try {
    return threadSeconds(pid, pid);
  } catch {
    return NaN;
  }
}

/**
 * CPU seconds of every `postgres` process on this machine so far (the backends, the WAL writer, the
 * checkpointer): a loopback server's whole share of the work. A backend that ended meanwhile is not counted.
 */
export function postgresSeconds(): number {
  try {
    let sum = 0;
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      let stat: string;
      try {
        stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      } catch {
        continue; // ended since the listing
      }
      if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) !== "postgres") continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      sum += (Number(fields[11]) + Number(fields[12])) / 100;
    }
    return sum;
  } catch {
    return NaN;
  }
}

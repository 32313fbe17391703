// The options of `deno task bench` (parsed here, without loading any benchmark, so --help answers at once).

/** The benchmarks `deno task bench` knows, in the order it runs them. */
export const BENCHES = [
  "mcp",
  "gantt",
  "contacts_export",
  "export_stall",
  "load",
  "serve_front",
  "signer",
  "refresh_peer",
  "memory_start",
  "scale",
  "row_tokens",
  "jobs",
  "pooler",
  "activity",
  "otel",
  "instances",
] as const;
export type BenchName = typeof BENCHES[number];

/** The load benchmark's options (bench/load.ts `LoadOptions`), as `deno task bench` passes them on. */
export interface LoadArgs {
  requests: number;
  warmup: number;
  concurrency: number;
  rounds: number;
  maxSeconds: number;
  logLevel: "debug" | "info" | "warn" | "error";
  only: string;
  cpuProf: string;
}

export interface BenchArgs {
  help: boolean;
  benches: BenchName[];
  load: LoadArgs;
  /** rows per domain for bench/scale.ts, ascending; set only by --scale (else its default 1k, 10k, 100k) */
  scale?: number[];
}

/**
 * The short default run (about half a minute; measured 54 s with `mcp` added on a 2-core machine at load
 * average 11): the load benchmark's tools/call list_projects rows beside their baselines, small.
 */
export const QUICK: { benches: BenchName[]; load: LoadArgs } = {
  benches: ["load"],
  load: {
    requests: 200,
    warmup: 50,
    concurrency: 8,
    rounds: 1,
    maxSeconds: 3,
    logLevel: "info",
    only: "list_projects",
    cpuProf: "",
  },
};

/** `--full`: every benchmark at the sizes BENCHMARKS.md records (several minutes). */
export const FULL: { benches: BenchName[]; load: LoadArgs } = {
  benches: [...BENCHES],
  load: {
    requests: 3000,
    warmup: 300,
    concurrency: 32,
    rounds: 1,
    maxSeconds: 25,
    logLevel: "info",
    only: "",
    cpuProf: "",
  },
};

export const BENCH_HELP = `usage: deno task bench [options]

Without options: a short run (about half a minute): the load benchmark's tools/call list_projects rows beside
their baselines, at small sizes. Numbers from a short run are rough; BENCHMARKS.md records --full runs.

  --full               every benchmark at the sizes BENCHMARKS.md records (several minutes)
  --bench=NAMES        which benchmarks, comma-separated: ${BENCHES.join(", ")}
load benchmark (bench/load.ts; defaults short / --full):
  --requests=N         measured requests per row (${QUICK.load.requests} / ${FULL.load.requests})
  --warmup=N           requests per row before measuring (${QUICK.load.warmup} / ${FULL.load.warmup})
  --concurrency=N      keep-alive connections (${QUICK.load.concurrency} / ${FULL.load.concurrency})
  --rounds=N           rounds per endpoint, median shown (1)
  --max-seconds=N      a row stops measuring after N seconds (${QUICK.load.maxSeconds} / ${FULL.load.maxSeconds})
  --log-level=LEVEL    the servers' LOG_LEVEL: debug, info, warn, error (info)
  --only=TEXT          only rows whose "endpoint implementation" contains TEXT ("${QUICK.load.only}" / every row)
  --cpu-prof=DIR       each server writes a V8 CPU profile into DIR
scale benchmark (bench/scale.ts):
  --scale=N,N,...      rows per domain in the measured workspace (1000,10000,100000); for activity
                       (bench/activity.ts) the largest N is its number of audit rows (1000000)
  --help               this text

DATABASE_URL: a fresh database on that server (dropped afterwards); unset: embedded PGlite (not comparable).`;

/** Thrown for an option `deno task bench` does not know or a malformed value; mod.ts prints it and exits 2. */
export class BenchArgsError extends Error {}

function positive(name: string, value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new BenchArgsError(`--${name} must be a positive integer`);
  return Number(value);
}

const VALUE_OPTIONS = [
  "bench",
  "requests",
  "warmup",
  "concurrency",
  "rounds",
  "max-seconds",
  "log-level",
  "only",
  "cpu-prof",
  "scale",
];

/** Parses `deno task bench` arguments (`--name=value` or `--name value`); unknown options are refused. */
export function parseBenchArgs(args: string[]): BenchArgs {
  const full = args.includes("--full");
  const base = full ? FULL : QUICK;
  const out: BenchArgs = { help: false, benches: [...base.benches], load: { ...base.load } };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const m = arg.match(/^--([a-z-]+)(?:=(.*))?$/s);
    if (!m) throw new BenchArgsError(`unexpected argument ${arg}`);
    const name = m[1];
    if (name === "full" || name === "help") {
      if (m[2] !== undefined) throw new BenchArgsError(`--${name} takes no value`);
      if (name === "help") out.help = true;
      continue;
    }
    if (!VALUE_OPTIONS.includes(name)) {
      throw new BenchArgsError(`unknown option --${name} (deno task bench --help lists them)`);
    }
    let value = m[2];
    if (value === undefined) {
      value = args[++i];
      if (value === undefined) throw new BenchArgsError(`--${name} needs a value`);
    }
    switch (name) {
      case "bench": {
        const names = value.split(",").map((s) => s.trim()).filter(Boolean);
        const unknown = names.filter((n) => !(BENCHES as readonly string[]).includes(n));
        if (names.length === 0 || unknown.length) {
          throw new BenchArgsError(`--bench takes names from ${BENCHES.join(", ")}`);
        }
        out.benches = BENCHES.filter((b) => names.includes(b));
        break;
      }
      case "requests":
      case "warmup":
      case "concurrency":
      case "rounds":
        out.load[name] = positive(name, value);
        break;
      case "max-seconds":
        out.load.maxSeconds = positive(name, value);
        break;
      case "log-level":
        if (!["debug", "info", "warn", "error"].includes(value)) {
          throw new BenchArgsError("--log-level must be debug, info, warn or error");
        }
        out.load.logLevel = value as LoadArgs["logLevel"];
        break;
      case "only":
        out.load.only = value;
        break;
      case "cpu-prof":
        out.load.cpuProf = value;
        break;
      case "scale": {
        const sizes = value.split(",").map((s) => positive(name, s.trim()));
        out.scale = [...new Set(sizes)].sort((a, b) => a - b);
        break;
      }
    }
  }
  return out;
}

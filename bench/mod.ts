// `deno task bench`: a short run by default, every benchmark with --full; --help lists the options.
// Add a bench/<name>.ts exporting a function, name it in BENCHES (bench/util.ts) and call it here.
import { BENCH_HELP, type BenchArgs, BenchArgsError, parseBenchArgs } from "./args.ts";

async function run(args: BenchArgs): Promise<void> {
  // Imported when chosen, so `--help` and a short run load only what they use.
  for (const name of args.benches) {
    if (name === "mcp") await (await import("./mcp.ts")).benchMcp();
    if (name === "gantt") await (await import("./gantt.ts")).benchGantt();
    if (name === "contacts_export") await (await import("./contacts_export.ts")).benchContactsExport();
    if (name === "export_stall") await (await import("./export_stall.ts")).benchExportStall();
    if (name === "load") await (await import("./load.ts")).benchLoad(args.load);
    if (name === "serve_front") await (await import("./serve_front.ts")).benchServeFront();
    if (name === "signer") await (await import("./signer.ts")).benchSigner();
    if (name === "refresh_peer") await (await import("./refresh_peer.ts")).benchRefreshPeer();
    if (name === "memory_start") await (await import("./memory_start.ts")).benchMemoryStart();
    if (name === "scale") await (await import("./scale.ts")).benchScale(args.scale);
    if (name === "row_tokens") await (await import("./row_tokens.ts")).benchRowTokens();
    if (name === "jobs") await (await import("./jobs.ts")).benchJobs();
    if (name === "pooler") await (await import("./pooler.ts")).benchPooler();
    if (name === "activity") {
      await (await import("./activity.ts")).benchActivity(
        args.scale ? args.scale[args.scale.length - 1] : undefined,
      );
    }
    if (name === "otel") await (await import("./otel.ts")).benchOtel();
    if (name === "instances") await (await import("./instances.ts")).benchInstances();
  }
}

if (import.meta.main) {
  let args: BenchArgs;
  try {
    args = parseBenchArgs(Deno.args);
  } catch (err) {
    if (!(err instanceof BenchArgsError)) throw err;
    console.error(`bench: ${err.message}`);
    Deno.exit(2);
  }
  if (args.help) {
    console.log(BENCH_HELP);
    Deno.exit(0);
  }
  await run(args);
}

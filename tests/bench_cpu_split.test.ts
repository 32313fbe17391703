// bench/cpu_split.ts, the CPU split bench/refresh_peer.ts prints in every row: the event loop's seconds are the
// main thread's alone (another thread's work is not in them), and PostgreSQL's are its processes' (a query's
// work shows there, not in this process). Linux only, as /proc is.
import assert from "node:assert/strict";
import { processCpuSeconds } from "../bench/load.ts";
import { eventLoopSeconds, postgresSeconds } from "../bench/cpu_split.ts";
import { freshDatabase } from "./helpers/db.ts";

const linux = Deno.build.os === "linux";

// A process that spins its main thread, then a worker's, each when told (stdin), and says when it is done. Under
// `deno test` the tests do not run on the process's main thread, so the measured process is a child.
const CHILD = `
const spin = "let x = 0; for (let i = 0; i < 2e8; i++) x += i % 7; x";
const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
const say = (s) => Deno.stdout.writeSync(new TextEncoder().encode(s + "\\n"));
say("ready");
await lines.read();
say(String(eval(spin)));
await lines.read();
const worker = new Worker(URL.createObjectURL(new Blob(
  ["self.onmessage = () => self.postMessage(eval(" + JSON.stringify(spin) + "));"], { type: "text/javascript" })),
  { type: "module" });
const done = new Promise((resolve) => worker.onmessage = (e) => resolve(e.data));
worker.postMessage(0);
say(String(await done));
worker.terminate();
`;

Deno.test({
  name: "bench/cpu_split: the event loop's CPU is the main thread's; a worker's busy work is not in it",
  ignore: !linux,
  async fn() {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", CHILD],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const writer = child.stdin.getWriter();
    let text = "";
    const line = async () => {
      while (!text.includes("\n")) {
        const { value, done } = await out.read();
        if (done) throw new Error("the child ended early");
        text += value;
      }
      const at = text.indexOf("\n");
      const got = text.slice(0, at);
      text = text.slice(at + 1);
      return got;
    };
    const sample = () => ({ loop: eventLoopSeconds(child.pid), all: processCpuSeconds(child.pid) });
    try {
      assert.equal(await line(), "ready");
      const s0 = sample();
      await writer.write(new TextEncoder().encode("main\n"));
      await line();
      const s1 = sample();
      await writer.write(new TextEncoder().encode("worker\n"));
      await line();
      const s2 = sample();
      const mainLoop = s1.loop - s0.loop, mainAll = s1.all - s0.all;
      assert.ok(mainAll >= 0.1, `the main thread's spin cost the process ${mainAll} s`);
      assert.ok(
        mainLoop >= mainAll / 2,
        `event loop ${mainLoop} s of the process's ${mainAll} s (main spinning)`,
      );
      const workerLoop = s2.loop - s1.loop, workerAll = s2.all - s1.all;
      assert.ok(workerAll >= 0.1, `the worker's spin cost the process ${workerAll} s`);
      assert.ok(
        workerLoop < workerAll / 2,
        `event loop ${workerLoop} s of the process's ${workerAll} s (worker)`,
      );
    } finally {
      await writer.close().catch(() => {});
      await out.cancel().catch(() => {});
      await child.status;
    }
  },
});

Deno.test({
  name: "bench/cpu_split: a query's work shows in PostgreSQL's CPU",
  ignore: !linux || !Deno.env.get("DATABASE_URL"),
  async fn() {
    const db = await freshDatabase();
    try {
      const before = postgresSeconds();
      await db.sql`select count(*) from generate_series(1, 3000000)`;
      const spent = postgresSeconds() - before;
      assert.ok(spent >= 0.05, `PostgreSQL spent ${spent} s`);
    } finally {
      await db.close();
    }
  },
});

// The signer as operators run it: `deno task start` (which grants FFI) signs with OpenSSL, says so, and says
// what it measured of the machine before it listens; the
// deploy-like run without FFI (tests/deploy_compile.test.ts) uses WebCrypto; SIGNER=openssl that cannot load
// libcrypto stops start-up with one line.
import assert from "node:assert/strict";
import { OFFLOAD_MIN_RATIO } from "../lib/oauth/signer.ts";
import { emptyDatabase } from "./helpers/db.ts";
import { freePort, startTask } from "./helpers/tasks.ts";

const ROOT = new URL("../", import.meta.url).pathname;

function env(extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { ...extra };
  for (const k of ["HOME", "PATH", "DENO_DIR"]) {
    const v = Deno.env.get(k);
    if (v) out[k] = v;
  }
  return out;
}

Deno.test({
  name:
    "signer: deno task start signs with OpenSSL and logs it; SIGNER=openssl without libcrypto is one line",
  ignore: !Deno.env.get("DATABASE_URL") || Deno.build.os !== "linux",
  async fn() {
    const db = await emptyDatabase();
    try {
      // the real task in its own process group (tests/helpers/tasks.ts): started once its log says "listening"
      // (this polled /oauth/jwks at most 300 times: a loaded host may need longer), stopped as a service is
      const port = freePort();
      const task = await startTask("start", {
        DATABASE_URL: db.url,
        SECRET_KEY: "s".repeat(40),
        PORT: String(port),
      });
      let ready = false;
      let reg: Response | undefined;
      try {
        const jwks = await fetch(`http://127.0.0.1:${port}/oauth/jwks`);
        ready = jwks.status === 200;
        await jwks.body?.cancel();
        // An upload goes through the body deadline (lib/http/body_guard.ts) without Deno's request.signal warning.
        reg = await fetch(`http://127.0.0.1:${port}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ client_name: "Start test", redirect_uris: ["http://127.0.0.1:9/cb"] }),
        }).catch(() => undefined);
        await reg?.body?.cancel();
      } finally {
        await task.stop("SIGTERM");
      }
      assert.ok(ready, task.stderr);
      assert.equal(reg?.status, 201);
      assert.doesNotMatch(task.stderr, /request\.signal/);
      const lines = task.stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
      const signer = lines.find((l) => l.msg === "signer");
      assert.deepEqual([signer?.signer, signer?.reason], ["openssl", "FFI granted and libcrypto loaded"]);
      // The signing key is imported, and the signer measured, before the server listens (main.ts).
      const calibrated = lines.findIndex((l) => l.msg === "signer calibrated");
      const listening = lines.findIndex((l) => l.msg === "listening");
      assert.ok(calibrated >= 0 && calibrated < listening, task.stdout);
      const c = lines[calibrated];
      assert.ok(c.signature_ms > 0 && c.hand_off_ms > 0, JSON.stringify(c));
      assert.equal(c.offload_when_busy, c.signature_ms >= OFFLOAD_MIN_RATIO * c.hand_off_ms);
      assert.equal(lines.filter((l) => l.msg === "signer calibrated").length, 1);

      const bad = await new Deno.Command(Deno.execPath(), {
        args: ["task", "start"],
        cwd: ROOT,
        clearEnv: true,
        env: env({
          DATABASE_URL: db.url,
          SECRET_KEY: "s".repeat(40),
          PORT: String(freePort()),
          SIGNER: "openssl",
          LIBCRYPTO_PATH: "/nonexistent/libcrypto.so.3",
        }),
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).output();
      assert.equal(bad.code, 1);
      // deno task echoes the command it runs ("Task start …", coloured); the rest is Portico's.
      const stderr = new TextDecoder().decode(bad.stderr).replace(
        new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"),
        "",
      ).trim().split("\n")
        .filter((l) => !l.startsWith("Task "));
      assert.equal(stderr.length, 1, stderr.join("\n"));
      assert.match(stderr[0], /^portico: libcrypto not found \(\/nonexistent\/libcrypto\.so\.3\): /);
    } finally {
      await db.close();
    }
  },
});

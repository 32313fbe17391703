// bench/refresh_peer.ts refuses, before starting anything, an option it does not know or a value it cannot use,
// naming the option (exit 2); a mistake would otherwise cost minutes of the wrong benchmark, or a crash at the end.
import assert from "node:assert/strict";
import { optionError } from "../bench/refresh_peer.ts";

Deno.test("bench/refresh_peer.ts: an unknown option or an unusable value is named; good ones pass", () => {
  assert.equal(
    optionError(["--rounds=5", "--requests=3000", "--warmup=0", "--connections=1,4,16", "--durable-peer"]),
    undefined,
  );
  assert.equal(
    optionError(["--signer=openssl", "--log-level=warn", "--baseline=/tmp/b", "--phases"]),
    undefined,
  );
  assert.equal(
    optionError(["--durable_peer"]),
    "unknown option --durable_peer (the head of bench/refresh_peer.ts lists them)",
  );
  assert.equal(optionError(["--rounds=abc"]), "--rounds=abc: expected a whole number from 1 to 1,000,000");
  assert.equal(optionError(["--rounds=0"]), "--rounds=0: expected a whole number from 1 to 1,000,000");
  assert.equal(
    optionError(["--requests=1e3"]),
    "--requests=1e3: expected a whole number from 1 to 1,000,000",
  );
  assert.equal(optionError(["--warmup=-1"]), "--warmup=-1: expected a whole number from 0 to 1,000,000");
  assert.equal(
    optionError(["--connections=4,"]),
    "--connections=4,: expected whole numbers from 1 to 1,024, separated by commas",
  );
  assert.equal(optionError(["--signer=rsa"]), "--signer=rsa: expected auto, openssl or webcrypto");
  assert.equal(optionError(["--log-level=loud"]), "--log-level=loud: expected debug, info, warn or error");
  assert.equal(optionError(["--baseline="]), "--baseline=: expected a path");
});

Deno.test("bench/refresh_peer.ts, as run: a bad value exits 2 naming it, before any server starts", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", "deno.test.json", "bench/refresh_peer.ts", "--rounds=abc"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 2);
  assert.equal(
    new TextDecoder().decode(out.stderr).trim(),
    "refresh_peer: --rounds=abc: expected a whole number from 1 to 1,000,000",
  );
  assert.equal(new TextDecoder().decode(out.stdout), "");
});

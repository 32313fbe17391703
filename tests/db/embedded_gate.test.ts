// The embedded database's gate: one client's transaction at a time on PGlite's single backend, a client that
// leaves mid-transaction leaves nothing behind, a silent holder is dropped, a wrong password is refused.
import assert from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { createDb } from "../../lib/db/client.ts";
import { pgliteExec } from "../../lib/db/embedded_exec.ts";
import { newGatePassword, readAnswer, startGate } from "../../lib/db/embedded_gate.ts";

async function withGate(idleHoldMs: number, fn: (url: string) => Promise<void>) {
  const db = await PGlite.create();
  const gate = startGate({
    password: newGatePassword(),
    backend: () => (messages) => pgliteExec(db, messages),
    idleHoldMs,
  });
  try {
    const setup = createDb(gate.url, { max: 1 });
    await setup`create table t (n int)`;
    await setup.end();
    await fn(gate.url);
  } finally {
    await gate.close();
    await db.close();
  }
}

Deno.test("gate: another client waits for an open transaction and sees its commit, never its middle", async () => {
  await withGate(0, async (url) => {
    const a = createDb(url, { max: 1 });
    const b = createDb(url, { max: 1 });
    try {
      const reserved = await a.reserve();
      await reserved`begin`;
      await reserved`insert into t values (1)`;
      // B asks while A's transaction is open: on one backend it would otherwise run inside A's transaction
      const counted = b`select count(*)::int as c from t`;
      await reserved`insert into t values (2)`;
      await reserved`commit`;
      reserved.release();
      assert.deepEqual([...await counted], [{ c: 2 }]);
    } finally {
      await a.end();
      await b.end();
    }
  });
});

Deno.test("gate: a client gone mid-transaction is rolled back before the next one runs", async () => {
  await withGate(0, async (url) => {
    const a = createDb(url, { max: 1 });
    const reserved = await a.reserve();
    await reserved`begin`;
    await reserved`insert into t values (42)`;
    await a.end({ timeout: 0 }); // the connection closes with the transaction open
    const b = createDb(url, { max: 1 });
    try {
      assert.deepEqual([...await b`select count(*)::int as c from t`], [{ c: 0 }]);
      // and B is not inside a leftover transaction: its own rollback has nothing to end
      await b`insert into t values (1)`;
      assert.deepEqual([...await b`select count(*)::int as c from t`], [{ c: 1 }]);
    } finally {
      await b.end();
    }
  });
});

Deno.test("gate: a client that holds the backend in silence is disconnected and the others go on", async () => {
  await withGate(200, async (url) => {
    const a = createDb(url, { max: 1 });
    const b = createDb(url, { max: 1 });
    try {
      const reserved = await a.reserve();
      await reserved`begin`;
      await reserved`insert into t values (7)`;
      // B waits behind A's open transaction until the gate gives up on A and rolls it back
      assert.deepEqual([...await b`select count(*)::int as c from t`], [{ c: 0 }]);
      await b`insert into t values (8)`;
      assert.deepEqual([...await b`select n from t`], [{ n: 8 }]);
    } finally {
      await a.end({ timeout: 0 });
      await b.end();
    }
  });
});

Deno.test("gate: a wrong or missing password is refused; the right one works", async () => {
  await withGate(0, async (url) => {
    for (const password of ["", "wrong"]) {
      const u = new URL(url);
      u.password = password;
      const c = createDb(u.toString(), { max: 1 });
      await assert.rejects(c`select 1`, (err: { code?: string }) => err.code === "28P01");
      await c.end();
    }
    const right = createDb(url, { max: 1 });
    assert.deepEqual([...await right`select 1 as one`], [{ one: 1 }]);
    await right.end();
  });
});

Deno.test("gate: readAnswer finds the last ReadyForQuery and a FATAL or PANIC error", () => {
  const enc = new TextEncoder();
  const msg = (type: string, body: Uint8Array) => {
    const out = new Uint8Array(5 + body.length);
    out[0] = type.charCodeAt(0);
    new DataView(out.buffer).setInt32(1, body.length + 4);
    out.set(body, 5);
    return out;
  };
  const error = (severity: string, text: string) =>
    msg("E", enc.encode(`S${severity}\0V${severity}\0C53100\0M${text}\0\0`));
  const ready = (status: string) => msg("Z", enc.encode(status));
  const join = (...parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  assert.deepEqual(readAnswer(join(ready("T"), ready("I"))), { status: "I" });
  assert.deepEqual(readAnswer(join(error("ERROR", "no"), ready("E"))), { status: "E" });
  assert.deepEqual(readAnswer(error("PANIC", "could not write")), {
    fatal: { severity: "PANIC", message: "could not write" },
  });
  assert.deepEqual(readAnswer(new Uint8Array(0)), {});
});

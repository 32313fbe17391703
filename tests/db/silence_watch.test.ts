// The silence watch on a Postgres connection (lib/db/client.ts `watchConnection`), on a stand-in socket: one timer
// per quiet spell rather than one per statement, and never a cut before `limitMs` of silence since the request
// that is owed an answer, even when the timer was set for an earlier statement.
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type net from "node:net";
import { watchConnection } from "../../lib/db/client.ts";

const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]); // S Sync: the server owes a ReadyForQuery
const READY = new Uint8Array([0x5a, 0, 0, 0, 5, 0x49]); // Z ReadyForQuery (idle)
const STARTUP = new Uint8Array([0, 0, 0, 8, 0, 3, 0, 0]); // the start-up message (protocol 3.0)

function standIn() {
  const socket = new EventEmitter() as EventEmitter & {
    write(chunk: unknown): boolean;
    destroy(err?: Error): void;
  };
  const state: { destroyedAt?: number; error?: Error } = {};
  socket.write = () => true;
  socket.destroy = (err?: Error) => {
    state.destroyedAt ??= performance.now();
    state.error = err;
    socket.emit("close");
  };
  return { socket, state, asNet: socket as unknown as net.Socket };
}

const until = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("silence watch: a busy connection sets one timer per quiet spell, not one per statement", () => {
  const { asNet, socket } = standIn();
  const realSet = globalThis.setTimeout;
  let set = 0;
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    set++;
    return realSet(fn, ms);
  }) as typeof setTimeout;
  try {
    watchConnection(asNet, 60_000);
    asNet.write(STARTUP);
    socket.emit("data", READY);
    for (let i = 0; i < 100; i++) {
      asNet.write(SYNC);
      socket.emit("data", READY);
    }
  } finally {
    globalThis.setTimeout = realSet;
    socket.emit("close"); // clears the one timer
  }
  // One for the start-up message; the hundred statements that followed within the limit reuse it.
  assert.equal(set, 1);
});

Deno.test("silence watch: a timer set for an earlier statement never cuts a later one short", async () => {
  const limitMs = 400;
  const { asNet, socket, state } = standIn();
  watchConnection(asNet, limitMs);
  const t0 = performance.now();
  asNet.write(STARTUP); // the timer is set now, for t0 + limitMs
  socket.emit("data", READY); // answered: nothing owed, the timer left to run out
  await until(limitMs * 0.75);
  const sent = performance.now();
  asNet.write(SYNC); // owed again, shortly before that timer fires; never answered
  while (state.destroyedAt === undefined) await until(25);
  assert.equal((state.error as { code?: string })?.code, "ETIMEDOUT");
  // Silence is counted from the second request: a cut counted from the first would come about limitMs / 4
  // (plus the 250 ms confirmation) after it.
  assert.ok(state.destroyedAt - sent >= limitMs, `cut ${Math.round(state.destroyedAt - sent)} ms after it`);
  assert.ok(state.destroyedAt - t0 >= limitMs * 1.75);
});

Deno.test("silence watch: a connection that owes nothing is never cut, however long it idles", async () => {
  const limitMs = 100;
  const { asNet, socket, state } = standIn();
  watchConnection(asNet, limitMs);
  asNet.write(STARTUP);
  socket.emit("data", READY);
  await until(limitMs * 4 + 250);
  assert.equal(state.destroyedAt, undefined);
  socket.emit("close");
});

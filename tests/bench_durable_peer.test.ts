// bench/refresh_peer.ts --durable-peer: node-oidc-provider on PostgreSQL (bench/peers/pg_adapter.mjs) keeps its
// tokens in the database and commits them before it answers, as Portico does — the row the comparison stands on.
// A rotation leaves the presented token consumed and its successor stored; a replay of the consumed token is
// refused and takes the grant's tokens with it, as node-oidc-provider does with any adapter.
import assert from "node:assert/strict";
import { peerReady, startPeer } from "../bench/peer_start.ts";
import { DATABASE_URL, freshDatabase } from "./helpers/db.ts";

// Node and the pinned peer (`npm ci` in bench/peers on first use, from the npm registry).
const ready = DATABASE_URL !== undefined && await peerReady();
if (!ready) console.log("bench_durable_peer: skipped (needs DATABASE_URL, Node and bench/peers' packages)");

async function refresh(
  port: number,
  token: string,
): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`http://127.0.0.1:${port}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `grant_type=refresh_token&client_id=bench-public&refresh_token=${encodeURIComponent(token)}`,
  });
  return { status: res.status, body: await res.json() };
}

Deno.test({
  name:
    "the durable peer stores each rotation in PostgreSQL and refuses a replay, revoking the grant's tokens",
  ignore: !ready,
  async fn() {
    const db = await freshDatabase();
    const peer = await startPeer(1, db.url);
    try {
      const [first] = peer.chains;
      const rotated = await refresh(peer.port, first);
      assert.equal(rotated.status, 200);
      assert.equal(typeof rotated.body.access_token, "string");
      assert.equal(typeof rotated.body.id_token, "string");
      const successor = rotated.body.refresh_token;
      assert.notEqual(successor, first);

      // Committed before the answer: another connection sees the consumed token and its successor.
      const rows = await db.sql<{ id: string; consumed: boolean }[]>`
        select id, consumed_at is not null as consumed from oidc_payloads
         where type = 'RefreshToken' order by consumed desc`;
      assert.deepEqual([...rows], [{ id: first, consumed: true }, { id: successor, consumed: false }]);

      const replay = await refresh(peer.port, first);
      assert.equal(replay.status, 400);
      assert.equal(replay.body.error, "invalid_grant");
      assert.deepEqual([...await db.sql`select id from oidc_payloads where type = 'RefreshToken'`], []);
      const afterReplay = await refresh(peer.port, successor);
      assert.equal(afterReplay.status, 400);
      assert.equal(afterReplay.body.error, "invalid_grant");
    } finally {
      await peer.stop();
      await db.close();
    }
  },
});

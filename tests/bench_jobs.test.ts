// The everyday jobs of bench/jobs.ts as a check (issue 25 point 7): every job finishes on the demo workspace,
// and no argument of any call is a value the model had to guess.
import assert from "node:assert/strict";
import { runJobs } from "../bench/jobs.ts";
import { JOBS } from "../bench/jobs_list.ts";
import { freshDatabase } from "./helpers/db.ts";

Deno.test("bench/jobs: at least 20 everyday jobs, every one done, no value guessed; the five of issue 25 in at most 4 calls", async () => {
  const db = await freshDatabase();
  try {
    assert.ok(JOBS.length >= 20, `${JOBS.length} jobs`);
    const results = await runJobs(db.sql, JOBS);
    for (const r of results) {
      assert.deepEqual(r.guessed, [], `${r.name}: guessed`);
      assert.ok(r.ok, `${r.name}: ${r.problem}`);
    }
    const walkthrough = [
      "Invoice tranche 2 of the Website relaunch offer",
      "Assign WEB-3 to Milo",
      "Show the subtask WEB-5",
      "Log 2 hours yesterday on 'Build page templates'",
    ];
    for (const name of walkthrough) {
      const r = results.find((x) => x.name === name);
      assert.ok(r, name);
      assert.ok(r.calls <= 4, `${name}: ${r.calls} calls`);
    }
  } finally {
    await db.close();
  }
});

// AI activity and workspace document tools through /mcp: phases, results, links, limits, scope and roles.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, listedTools, mcpApp, rpc } from "../helpers/mcp.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { trackAiActivity } from "../../tools/track_ai_activity.ts";
import { updateAiActivityPhase } from "../../tools/update_ai_activity_phase.ts";
import { createWorkspaceDocument } from "../../tools/create_workspace_document.ts";
import { updateWorkspaceDocument } from "../../tools/update_workspace_document.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
const appA = mcpApp(db.sql, "A");
const appB = mcpApp(db.sql, "B");
const MISSING = "00000000-0000-4000-8000-000000000000";
const MiB = 1024 * 1024;
const SHA = "a".repeat(64);

Deno.test.afterAll(() => db.close());

const names = (phases: { name: string }[]) => phases.map((p) => p.name);

Deno.test("track_ai_activity: defaults, initial phases in order, metadata and result", async () => {
  const a = await callOk(appA, f.keys.owner, "track_ai_activity", { kind: "research", title: "Market scan" });
  assert.equal(a.status, "running");
  assert.equal(a.source, "mcp");
  assert.equal(a.createdBy, f.users.owner);
  assert.equal(a.companyId, null);
  assert.deepEqual([a.phases, a.documents, a.metadata, a.resultMarkdown], [[], [], {}, ""]);
  assert.equal(a.finishedAt, null);

  const b = await callOk(appA, f.keys.manager, "track_ai_activity", {
    kind: "writing",
    title: "Draft offer",
    source: "agent",
    description: "for Acme",
    agentName: "Writer v2",
    status: "waiting",
    companyId: f.companies.b,
    aiTaskId: "task-42",
    phases: [
      { name: "outline", status: "completed", summary: "3 sections" },
      { name: "draft", status: "running" },
      { name: "review" },
    ],
    resultMarkdown: "# Offer",
    metadata: { model: "m-1", tokens: 1200, nested: { ok: true } },
  });
  assert.deepEqual(
    b.phases.map((p: { position: number; name: string; status: string }) => [p.position, p.name, p.status]),
    [[1, "outline", "completed"], [2, "draft", "running"], [3, "review", "pending"]],
  );
  assert.ok(b.phases[0].startedAt && b.phases[0].finishedAt, "a completed phase is stamped");
  assert.ok(b.phases[1].startedAt && !b.phases[1].finishedAt);
  assert.deepEqual([b.phases[2].startedAt, b.phases[2].finishedAt], [null, null]);
  assert.equal(b.phases[0].summary, "3 sections");
  assert.deepEqual(b.metadata, { model: "m-1", tokens: 1200, nested: { ok: true } });
  assert.equal(b.resultMarkdown, "# Offer");
  assert.deepEqual([b.kind, b.source, b.status, b.agentName, b.aiTaskId, b.companyId], [
    "writing",
    "agent",
    "waiting",
    "Writer v2",
    "task-42",
    f.companies.b,
  ]);
  assert.equal(b.phaseCount, 3);
  assert.equal(b.resultBytes, 7);
  const done = await callOk(appA, f.keys.owner, "track_ai_activity", {
    kind: "other",
    title: "t",
    status: "completed",
  });
  assert.ok(done.finishedAt);
  // every member may track AI work, guests and accounting included; a limited key gets its company
  const g = await callOk(appA, f.keys.guest, "track_ai_activity", { kind: "summary", title: "guest" });
  assert.equal(g.createdBy, f.users.guest);
  const l = await callOk(appA, f.keys.limited, "track_ai_activity", { kind: "summary", title: "limited" });
  assert.equal(l.companyId, f.companies.a);
  await callOk(appA, f.keys.accounting, "list_ai_activities", {});
});

Deno.test("track_ai_activity: bad input and companies out of reach", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ title: "x" }, /kind/],
    [{ kind: "dreaming", title: "x" }, /kind/],
    [{ kind: "other" }, /title/],
    [{ kind: "other", title: "x", source: "email" }, /source/],
    [{ kind: "other", title: "x", status: "done" }, /status/],
    [{ kind: "other", title: "x", phases: [{ name: "a" }, { name: "a" }] }, /phase name "a" appears twice/],
    [{ kind: "other", title: "x", phases: [{ name: "a", status: "ok" }] }, /phases\.0\.status/],
    [{ kind: "other", title: "x", phases: [{ name: "" }] }, /phases\.0\.name: must not be empty/],
    [
      { kind: "other", title: "x", phases: Array.from({ length: 51 }, (_, i) => ({ name: `p${i}` })) },
      /at most 50/,
    ],
    [{ kind: "other", title: "x", metadata: [1, 2] }, /metadata: must be a JSON object/],
    [
      { kind: "other", title: "x", metadata: { big: "x".repeat(17000) } },
      /metadata: must be at most 16384 bytes/,
    ],
    [{ kind: "other", title: "x", companyId: "acme" }, /companyId: must be a UUID/],
    [{
      kind: "other",
      title: "x",
      phases: [{ name: "a", startedAt: "2026-01-02T00:00:00Z", finishedAt: "2026-01-01T00:00:00Z" }],
    }, /finishedAt: must not be before startedAt/],
  ];
  for (const [args, re] of cases) {
    const t = await callFails(appA, f.keys.owner, "track_ai_activity", args, "invalid_input");
    assert.match(t, re, JSON.stringify(args).slice(0, 80));
  }
  await callFails(
    appA,
    f.keys.owner,
    "track_ai_activity",
    { kind: "other", title: "x", companyId: MISSING },
    "not_found",
  );
  await callFails(appA, f.keys.owner, "track_ai_activity", {
    kind: "other",
    title: "x",
    companyId: f.other.companyId,
  }, "not_found");
  await callFails(appA, f.keys.limited, "track_ai_activity", {
    kind: "other",
    title: "x",
    companyId: f.companies.b,
  }, "not_found");
});

Deno.test("markdown fields: 1 MiB of UTF-8 bytes, not characters", () => {
  const A = trackAiActivity.variants.A!;
  const ok = A.safeParse({ kind: "other", title: "x", resultMarkdown: "x".repeat(MiB) });
  assert.equal(ok.success, true);
  const big = A.safeParse({ kind: "other", title: "x", resultMarkdown: "x".repeat(MiB + 1) });
  assert.equal(big.success, false);
  assert.match(big.error!.issues[0].message, /at most 1048576 bytes \(1 MiB\) of UTF-8/);
  // 524,289 two-byte characters: half a million characters but over the limit in bytes
  const accents = A.safeParse({ kind: "other", title: "x", resultMarkdown: "é".repeat(MiB / 2 + 1) });
  assert.equal(accents.success, false);
  for (
    const [schema, field] of [
      [createWorkspaceDocument.variants.A!, { title: "t", kind: "notes" }],
      [updateWorkspaceDocument.variants.A!, { documentId: MISSING }],
      [updateAiActivityPhase.variants.A!, { activityId: MISSING, phaseName: "p", phaseStatus: "running" }],
    ] as const
  ) {
    const key = "documentId" in field || "title" in field ? "contentMarkdown" : "resultMarkdown";
    const r = schema.safeParse({ ...field, [key]: "x".repeat(MiB + 1) });
    assert.equal(r.success, false, key);
    assert.ok(schema.safeParse({ ...field, [key]: "x".repeat(1000) }).success);
  }
});

Deno.test("update_ai_activity_phase: updates by name or appends in order; stamps; moves the activity", async () => {
  const a = await callOk(appA, f.keys.owner, "track_ai_activity", {
    kind: "analysis",
    title: "Phases",
    phases: [{ name: "fetch", status: "running", summary: "loading" }],
  });
  const id = a.id;
  let r = await callOk(appA, f.keys.member, "update_ai_activity_phase", {
    activityId: id,
    phaseName: "analyse",
    phaseStatus: "pending",
  });
  assert.deepEqual(names(r.phases), ["fetch", "analyse"]);
  r = await callOk(appA, f.keys.owner, "update_ai_activity_phase", {
    activityId: id,
    phaseName: "fetch",
    phaseStatus: "completed",
  });
  assert.deepEqual(names(r.phases), ["fetch", "analyse"], "an update keeps the position");
  assert.equal(r.phases[0].status, "completed");
  assert.equal(r.phases[0].summary, "loading", "omitted summary is kept");
  assert.ok(r.phases[0].startedAt && r.phases[0].finishedAt);
  r = await callOk(appA, f.keys.owner, "update_ai_activity_phase", {
    activityId: id,
    phaseName: "report",
    phaseStatus: "running",
    phaseSummary: "writing",
  });
  assert.deepEqual(r.phases.map((p: { position: number; name: string }) => [p.position, p.name]), [
    [1, "fetch"],
    [2, "analyse"],
    [3, "report"],
  ]);
  r = await callOk(appA, f.keys.owner, "update_ai_activity_phase", {
    activityId: id,
    phaseName: "analyse",
    phaseStatus: "failed",
    phaseError: "timeout",
    startedAt: "2026-05-01T10:00:00Z",
    finishedAt: "2026-05-01T10:05:00Z",
    activityStatus: "failed",
  });
  assert.deepEqual(r.phases[1], {
    position: 2,
    name: "analyse",
    status: "failed",
    summary: null,
    error: "timeout",
    startedAt: "2026-05-01T10:00:00Z",
    finishedAt: "2026-05-01T10:05:00Z",
    updatedAt: r.phases[1].updatedAt,
  });
  assert.equal(r.status, "failed");
  assert.ok(r.finishedAt, "a finished activity is stamped");
  // a retry: the phase runs again (finishedAt cleared) and the activity is running again
  r = await callOk(appA, f.keys.owner, "update_ai_activity_phase", {
    activityId: id,
    phaseName: "analyse",
    phaseStatus: "running",
    activityStatus: "running",
  });
  assert.deepEqual([r.phases[1].status, r.phases[1].finishedAt, r.phases[1].error], [
    "running",
    null,
    "timeout",
  ]);
  assert.deepEqual([r.status, r.finishedAt], ["running", null]);
  const [{ n }] = await db.sql`select count(*)::int as n from ai_activity_phases where activity_id = ${id}`;
  assert.equal(n, 3);
});

Deno.test("update_ai_activity_phase: resultMarkdown appends, or replaces with replaceResultMarkdown", async () => {
  const a = await callOk(appA, f.keys.owner, "track_ai_activity", { kind: "writing", title: "Result" });
  const step = (args: Record<string, unknown>) =>
    callOk(appA, f.keys.owner, "update_ai_activity_phase", {
      activityId: a.id,
      phaseName: "w",
      phaseStatus: "running",
      ...args,
    });
  assert.equal(
    (await step({ resultMarkdown: "## Part 1" })).resultMarkdown,
    "## Part 1",
    "first part, no separator",
  );
  assert.equal((await step({ resultMarkdown: "## Part 2" })).resultMarkdown, "## Part 1\n\n## Part 2");
  assert.equal((await step({})).resultMarkdown, "## Part 1\n\n## Part 2", "omitted: kept");
  assert.equal(
    (await step({ resultMarkdown: "# Final", replaceResultMarkdown: true })).resultMarkdown,
    "# Final",
  );
  assert.equal((await step({ resultMarkdown: "", replaceResultMarkdown: true })).resultMarkdown, "");
  const t = await callFails(appA, f.keys.owner, "update_ai_activity_phase", {
    activityId: a.id,
    phaseName: "w",
    phaseStatus: "running",
    replaceResultMarkdown: true,
  }, "invalid_input");
  assert.match(t, /replaceResultMarkdown: needs resultMarkdown/);
});

Deno.test("update_ai_activity_phase: a result growing past 1 MiB is refused and nothing changes", async () => {
  const a = await callOk(appA, f.keys.owner, "track_ai_activity", { kind: "writing", title: "Big" });
  const part = "x".repeat(600 * 1024);
  await callOk(appA, f.keys.owner, "update_ai_activity_phase", {
    activityId: a.id,
    phaseName: "one",
    phaseStatus: "completed",
    resultMarkdown: part,
  });
  const t = await callFails(appA, f.keys.owner, "update_ai_activity_phase", {
    activityId: a.id,
    phaseName: "two",
    phaseStatus: "completed",
    resultMarkdown: part,
    activityStatus: "completed",
  }, "invalid_input");
  assert.match(t, /resultMarkdown: the result would exceed 1 MiB/);
  const g = await callOk(appA, f.keys.owner, "get_ai_activity", { activityId: a.id });
  assert.equal(g.resultBytes, part.length);
  assert.deepEqual(names(g.phases), ["one"], "the phase of the refused call was not added");
  assert.equal(g.status, "running");
});

Deno.test("update_ai_activity_phase: concurrent reports get distinct, gap-free positions", async () => {
  // On Postgres these run on several connections and serialise on the activity row; PGlite has one connection.
  const a = await callOk(appA, f.keys.owner, "track_ai_activity", { kind: "coding", title: "Parallel" });
  await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      callOk(appA, f.keys.owner, "update_ai_activity_phase", {
        activityId: a.id,
        phaseName: `p${i}`,
        phaseStatus: "running",
        resultMarkdown: `r${i}`,
      })),
  );
  const g = await callOk(appA, f.keys.owner, "get_ai_activity", { activityId: a.id });
  assert.deepEqual(
    g.phases.map((p: { position: number }) => p.position),
    Array.from({ length: 12 }, (_, i) => i + 1),
  );
  assert.equal(new Set(names(g.phases)).size, 12);
  assert.equal(g.resultMarkdown.split("\n\n").length, 12, "no append was lost");
});

Deno.test("update_ai_activity_phase and get_ai_activity: bad input, not_found, scope and isolation", async () => {
  const mine = await callOk(appA, f.keys.owner, "track_ai_activity", {
    kind: "other",
    title: "b",
    companyId: f.companies.b,
  });
  const base = { activityId: mine.id, phaseName: "p", phaseStatus: "running" };
  await callFails(
    appA,
    f.keys.owner,
    "update_ai_activity_phase",
    { ...base, phaseStatus: "done" },
    "invalid_input",
  );
  await callFails(
    appA,
    f.keys.owner,
    "update_ai_activity_phase",
    { ...base, phaseName: "" },
    "invalid_input",
  );
  await callFails(
    appA,
    f.keys.owner,
    "update_ai_activity_phase",
    { ...base, activityStatus: "paused" },
    "invalid_input",
  );
  await callFails(
    appA,
    f.keys.owner,
    "update_ai_activity_phase",
    { ...base, activityId: "x" },
    "invalid_input",
  );
  await callFails(
    appA,
    f.keys.owner,
    "update_ai_activity_phase",
    { ...base, startedAt: "noon" },
    "invalid_input",
  );
  await callFails(
    appA,
    f.keys.owner,
    "update_ai_activity_phase",
    { activityId: mine.id, phaseName: "p" },
    "invalid_input",
  );
  await callFails(
    appA,
    f.keys.owner,
    "update_ai_activity_phase",
    { ...base, activityId: MISSING },
    "not_found",
  );
  let t = await callFails(appA, f.other.key, "update_ai_activity_phase", base, "not_found");
  assert.equal(t, `not_found: activityId: no AI activity ${mine.id}`);
  await callFails(appA, f.keys.limited, "update_ai_activity_phase", base, "not_found");
  await callFails(appA, f.keys.ownerCompanyA, "get_ai_activity", { activityId: mine.id }, "not_found");
  t = await callFails(appA, f.other.key, "get_ai_activity", { activityId: mine.id }, "not_found");
  assert.equal(t, `not_found: activityId: no AI activity ${mine.id}`);
  await callFails(appA, f.keys.owner, "get_ai_activity", { activityId: MISSING }, "not_found");
  await callFails(appA, f.keys.owner, "get_ai_activity", { activityId: "nope" }, "invalid_input");
  const [{ n }] = await db
    .sql`select count(*)::int as n from ai_activity_phases where activity_id = ${mine.id}`;
  assert.equal(n, 0);
  const g = await callOk(appA, f.keys.owner, "get_ai_activity", { activityId: mine.id });
  assert.equal(g.id, mine.id);
});

Deno.test("list_ai_activities: filters, search, paging, scope and isolation", async () => {
  const fx = await buildFixture(db.sql);
  const mk = (args: Record<string, unknown>, key = fx.keys.owner) =>
    callOk(appA, key, "track_ai_activity", args).then((a) => a.id as string);
  const r1 = await mk({ kind: "research", title: "Competitors", source: "chat", agentName: "Scout" });
  const r2 = await mk({ kind: "research", title: "Pricing", status: "completed", aiTaskId: "ext-77" });
  const w1 = await mk({
    kind: "writing",
    title: "Newsletter",
    description: "about PRICING",
    companyId: fx.companies.a,
  });
  const w2 = await mk({ kind: "writing", title: "Blog", source: "automation", companyId: fx.companies.b });
  await db.sql`update ai_activities set created_at = now() + make_interval(secs => x.n)
                 from (values (${r1}::uuid, 1), (${r2}::uuid, 2), (${w1}::uuid, 3), (${w2}::uuid, 4)) x(id, n)
                where ai_activities.id = x.id`;
  const ids = (args: Record<string, unknown>, key = fx.keys.owner) =>
    callOk(appA, key, "list_ai_activities", args).then((r) => r.items.map((a: { id: string }) => a.id));
  assert.deepEqual(await ids({}), [w2, w1, r2, r1]);
  assert.deepEqual(await ids({ kind: "research" }), [r2, r1]);
  assert.deepEqual(await ids({ source: "chat" }), [r1]);
  assert.deepEqual(await ids({ status: "completed" }), [r2]);
  assert.deepEqual(await ids({ search: "pricing" }), [w1, r2]);
  assert.deepEqual(await ids({ search: "scout" }), [r1]);
  assert.deepEqual(await ids({ search: "EXT-7" }), [r2]);
  assert.deepEqual(await ids({ search: "pricing", kind: "writing" }), [w1]);
  const page = await callOk(appA, fx.keys.owner, "list_ai_activities", { limit: 3 });
  assert.deepEqual([page.items.length, page.total, page.hasMore, page.limit], [3, 4, true, 3]);
  assert.equal(page.items[0].resultMarkdown, undefined, "summaries carry no result");
  // a summary is the get_ answer cut to what picks an activity: status, phases and result in brief
  const got = await callOk(appA, fx.keys.owner, "get_ai_activity", { activityId: w2 });
  assert.deepEqual(page.items[0], {
    id: w2,
    kind: "writing",
    status: "running",
    title: "Blog",
    agentName: null,
    phaseCount: 0,
    resultBytes: 0,
    createdAt: got.createdAt,
    finishedAt: null,
  });
  assert.deepEqual(await ids({}, fx.keys.limited), [w1]);
  assert.deepEqual(await ids({}, fx.other.key), []);
  await callFails(appA, fx.keys.owner, "list_ai_activities", { kind: "x" }, "invalid_input");
  await callFails(appA, fx.keys.owner, "list_ai_activities", { limit: 101 }, "invalid_input");
});

Deno.test("create_workspace_document: content, storage, links shown on both sides", async () => {
  const act = await callOk(appA, f.keys.owner, "track_ai_activity", {
    kind: "research",
    title: "Linked",
    companyId: f.companies.a,
  });
  const d = await callOk(appA, f.keys.member, "create_workspace_document", {
    title: "Findings",
    kind: "report",
    contentMarkdown: "# Findings\n\nÜberall.",
    activityId: act.id,
    metadata: { pages: 2 },
  });
  assert.equal(d.source, "ai");
  assert.equal(d.mimeType, "text/markdown");
  assert.equal(d.companyId, f.companies.a, "inherits the activity's company");
  assert.equal(d.contentMarkdown, "# Findings\n\nÜberall.");
  assert.equal(d.contentBytes, new TextEncoder().encode("# Findings\n\nÜberall.").length);
  assert.equal(d.createdBy, f.users.member);
  assert.deepEqual(d.metadata, { pages: 2 });
  assert.deepEqual(
    d.activities.map((
      l: Record<string, string>,
    ) => [l.activityId, l.title, l.kind, l.status, l.relationship]),
    [[act.id, "Linked", "research", "running", "output"]],
  );
  const input = await callOk(appA, f.keys.owner, "create_workspace_document", {
    title: "Brief.pdf",
    kind: "brief",
    source: "upload",
    mimeType: "application/pdf",
    storageProvider: "s3",
    storagePath: "briefs/2026/brief.pdf",
    storageUrl: "https://files.example.test/brief.pdf",
    fileSizeBytes: 123456,
    checksumSha256: SHA,
    activityId: act.id,
    relationship: "input",
    description: "the customer's brief",
  });
  assert.deepEqual(
    [input.storageProvider, input.storagePath, input.storageUrl, input.fileSizeBytes, input.checksumSha256],
    ["s3", "briefs/2026/brief.pdf", "https://files.example.test/brief.pdf", 123456, SHA],
  );
  assert.equal(input.contentMarkdown, null);
  assert.equal(input.contentBytes, 0);
  const g = await callOk(appA, f.keys.owner, "get_ai_activity", { activityId: act.id });
  assert.deepEqual(
    g.documents.map((l: Record<string, string>) => [l.documentId, l.title, l.kind, l.relationship]),
    [
      [d.id, "Findings", "report", "output"],
      [input.id, "Brief.pdf", "brief", "input"],
    ],
  );
  const gd = await callOk(appA, f.keys.owner, "get_workspace_document", { documentId: input.id });
  assert.deepEqual(gd.activities.map((l: { relationship: string }) => l.relationship), ["input"]);
  const [{ n }] = await db
    .sql`select count(*)::int as n from ai_activity_documents where activity_id = ${act.id}`;
  assert.equal(n, 2);
  // a limited key creates in its company by default
  const lim = await callOk(appA, f.keys.limited, "create_workspace_document", {
    title: "Mine",
    kind: "notes",
  });
  assert.equal(lim.companyId, f.companies.a);
});

Deno.test("create_workspace_document: bad input, storage rules and things out of reach", async () => {
  const base = { title: "t", kind: "notes" };
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ kind: "notes" }, /title/],
    [{ title: "t", kind: "memo" }, /kind/],
    [{ ...base, source: "web" }, /source/],
    [{ ...base, relationship: "output" }, /relationship: needs activityId/],
    [{ ...base, activityId: MISSING, relationship: "parent" }, /relationship/],
    [{ ...base, mimeType: "pdf" }, /mimeType: must be a media type/],
    [{ ...base, storagePath: "a/b" }, /storageProvider: is required with storagePath or storageUrl/],
    [{ ...base, storageProvider: "url" }, /storageUrl: is required when storageProvider is url/],
    [{ ...base, storageProvider: "ftp" }, /storageProvider/],
    [
      { ...base, storageProvider: "url", storageUrl: "ftp://x.test/a" },
      /storageUrl: must be an http or https URL/,
    ],
    [{ ...base, checksumSha256: "ABC" }, /checksumSha256: must be 64 lower-case hex characters/],
    [{ ...base, fileSizeBytes: -1 }, /fileSizeBytes: must not be negative/],
    [{ ...base, metadata: "x" }, /metadata: must be a JSON object/],
  ];
  for (const [args, re] of cases) {
    const t = await callFails(appA, f.keys.owner, "create_workspace_document", args, "invalid_input");
    assert.match(t, re, JSON.stringify(args));
  }
  let t = await callFails(
    appA,
    f.keys.owner,
    "create_workspace_document",
    { ...base, activityId: MISSING },
    "not_found",
  );
  assert.equal(t, `not_found: activityId: no AI activity ${MISSING}`);
  const foreign = await callOk(appA, f.other.key, "track_ai_activity", { kind: "other", title: "theirs" });
  await callFails(
    appA,
    f.keys.owner,
    "create_workspace_document",
    { ...base, activityId: foreign.id },
    "not_found",
  );
  const actB = await callOk(appA, f.keys.owner, "track_ai_activity", {
    kind: "other",
    title: "b",
    companyId: f.companies.b,
  });
  await callFails(
    appA,
    f.keys.limited,
    "create_workspace_document",
    { ...base, activityId: actB.id },
    "not_found",
  );
  t = await callFails(appA, f.keys.owner, "create_workspace_document", {
    ...base,
    activityId: actB.id,
    companyId: f.companies.a,
  }, "invalid_input");
  assert.match(t, /belongs to another company than companyId/);
  await callFails(
    appA,
    f.keys.limited,
    "create_workspace_document",
    { ...base, companyId: f.companies.b },
    "not_found",
  );
  const [{ n }] = await db.sql`select count(*)::int as n from workspace_documents where title = 't'`;
  assert.equal(n, 0);
});

Deno.test("update_workspace_document: fields, clearing, metadata replace, storage checked with stored values, scope", async () => {
  const d = await callOk(appA, f.keys.owner, "create_workspace_document", {
    title: "Spec",
    kind: "specification",
    description: "v1",
    contentMarkdown: "old",
    storageProvider: "url",
    storageUrl: "https://x.test/spec",
    metadata: { a: 1 },
  });
  let u = await callOk(appA, f.keys.admin, "update_workspace_document", {
    documentId: d.id,
    title: "Spec v2",
    kind: "proposal",
    source: "user",
    description: null,
    contentMarkdown: "new",
    mimeType: "text/plain; charset=utf-8",
    metadata: { b: 2 },
    companyId: f.companies.b,
  });
  assert.deepEqual(
    [u.title, u.kind, u.source, u.description, u.contentMarkdown, u.mimeType, u.companyId],
    ["Spec v2", "proposal", "user", null, "new", "text/plain; charset=utf-8", f.companies.b],
  );
  assert.deepEqual(u.metadata, { b: 2 }, "metadata is replaced as a whole");
  assert.equal(u.storageUrl, "https://x.test/spec", "omitted fields stay");
  let t = await callFails(appA, f.keys.owner, "update_workspace_document", {
    documentId: d.id,
    storageUrl: null,
  }, "invalid_input");
  assert.match(t, /storageUrl: is required when storageProvider is url/);
  u = await callOk(appA, f.keys.owner, "update_workspace_document", {
    documentId: d.id,
    storageProvider: null,
    storageUrl: null,
    contentMarkdown: null,
  });
  assert.deepEqual([u.storageProvider, u.storageUrl, u.contentMarkdown, u.contentBytes], [
    null,
    null,
    null,
    0,
  ]);

  await callFails(appA, f.keys.owner, "update_workspace_document", { documentId: d.id }, "invalid_input");
  await callFails(
    appA,
    f.keys.owner,
    "update_workspace_document",
    { documentId: d.id, kind: "memo" },
    "invalid_input",
  );
  await callFails(
    appA,
    f.keys.owner,
    "update_workspace_document",
    { documentId: d.id, title: "" },
    "invalid_input",
  );
  await callFails(
    appA,
    f.keys.owner,
    "update_workspace_document",
    { documentId: "d", title: "x" },
    "invalid_input",
  );
  await callFails(
    appA,
    f.keys.owner,
    "update_workspace_document",
    { documentId: MISSING, title: "x" },
    "not_found",
  );
  await callFails(
    appA,
    f.keys.owner,
    "update_workspace_document",
    { documentId: d.id, companyId: MISSING },
    "not_found",
  );
  t = await callFails(
    appA,
    f.other.key,
    "update_workspace_document",
    { documentId: d.id, title: "x" },
    "not_found",
  );
  assert.equal(t, `not_found: documentId: no document ${d.id}`);
  await callFails(
    appA,
    f.keys.limited,
    "update_workspace_document",
    { documentId: d.id, title: "x" },
    "not_found",
  );
  await callFails(appA, f.keys.limited, "get_workspace_document", { documentId: d.id }, "not_found");
  const mine = await callOk(appA, f.keys.limited, "create_workspace_document", { title: "L", kind: "notes" });
  await callFails(
    appA,
    f.keys.limited,
    "update_workspace_document",
    { documentId: mine.id, companyId: null },
    "invalid_input",
  );
  await callFails(appA, f.keys.limited, "update_workspace_document", {
    documentId: mine.id,
    companyId: f.companies.b,
  }, "not_found");
  const [row] = await db.sql`select title from workspace_documents where id = ${d.id}`;
  assert.equal(row.title, "Spec v2");
});

Deno.test("list_workspace_documents and get_workspace_document: filters, summaries, links in scope only", async () => {
  const fx = await buildFixture(db.sql);
  const mk = (args: Record<string, unknown>, key = fx.keys.owner) =>
    callOk(appA, key, "create_workspace_document", args).then((d) => d.id as string);
  const act = await callOk(appA, fx.keys.owner, "track_ai_activity", {
    kind: "research",
    title: "company-less",
  });
  const d1 = await mk({ title: "Alpha report", kind: "report", contentMarkdown: "needle inside" });
  const d2 = await mk({ title: "Beta notes", kind: "notes", source: "user", description: "Needle here" });
  const d3 = await mk({
    title: "Gamma",
    kind: "report",
    source: "import",
    companyId: fx.companies.a,
    activityId: act.id,
    relationship: "reference",
  });
  await db.sql`update workspace_documents set created_at = now() + make_interval(secs => x.n)
                 from (values (${d1}::uuid, 1), (${d2}::uuid, 2), (${d3}::uuid, 3)) x(id, n)
                where workspace_documents.id = x.id`;
  const ids = (args: Record<string, unknown>, key = fx.keys.owner) =>
    callOk(appA, key, "list_workspace_documents", args).then((r) => r.items.map((d: { id: string }) => d.id));
  assert.deepEqual(await ids({}), [d3, d2, d1]);
  assert.deepEqual(await ids({ kind: "report" }), [d3, d1]);
  assert.deepEqual(await ids({ source: "user" }), [d2]);
  assert.deepEqual(await ids({ search: "NEEDLE" }), [d2, d1], "title, description and content");
  assert.deepEqual(await ids({ search: "needle", kind: "report" }), [d1]);
  const page = await callOk(appA, fx.keys.owner, "list_workspace_documents", { limit: 1, offset: 1 });
  assert.deepEqual([page.items.length, page.total, page.hasMore], [1, 3, true]);
  assert.equal(page.items[0].contentMarkdown, undefined, "lists carry no content");
  assert.equal(page.items[0].metadata, undefined);
  const d2got = await callOk(appA, fx.keys.owner, "get_workspace_document", { documentId: d2 });
  assert.deepEqual(page.items[0], {
    id: d2,
    title: "Beta notes",
    kind: "notes",
    source: "user",
    mimeType: "text/markdown",
    contentBytes: 0,
    createdAt: d2got.createdAt,
  });
  assert.equal(d2got.description, "Needle here", "the details come from get_workspace_document");
  assert.deepEqual(await ids({}, fx.keys.limited), [d3]);
  assert.deepEqual(await ids({}, fx.other.key), []);
  // the company-a member sees the document but not the company-less activity it is linked to
  const limited = await callOk(appA, fx.keys.limited, "get_workspace_document", { documentId: d3 });
  assert.deepEqual(limited.activities, []);
  const owner = await callOk(appA, fx.keys.owner, "get_workspace_document", { documentId: d3 });
  assert.equal(owner.activities[0].relationship, "reference");
  await callFails(appA, fx.keys.owner, "get_workspace_document", { documentId: MISSING }, "not_found");
  await callFails(appA, fx.other.key, "get_workspace_document", { documentId: d1 }, "not_found");
  await callFails(appA, fx.keys.owner, "list_workspace_documents", { source: "x" }, "invalid_input");
});

Deno.test("AI activity and document tools: roles, modules, user context and variants", async () => {
  const ai = ["track_ai_activity", "update_ai_activity_phase", "list_ai_activities", "get_ai_activity"];
  const docs = [
    "create_workspace_document",
    "update_workspace_document",
    "list_workspace_documents",
    "get_workspace_document",
  ];
  for (const role of ["owner", "admin", "manager", "accounting", "member", "guest"] as const) {
    const listed = await listedTools(appA, f.keys[role]);
    for (const name of ai) assert.ok(listed.includes(name), `${role} ${name}`);
    for (const name of docs) {
      assert.equal(listed.includes(name), !["accounting", "guest"].includes(role), `${role} ${name}`);
    }
  }
  for (const role of ["accounting", "guest"] as const) {
    const t = await callFails(appA, f.keys[role], "list_workspace_documents", {}, "access_denied");
    assert.match(t, new RegExp(`the ${role} role may not use documents tools`));
    await callFails(
      appA,
      f.keys[role],
      "create_workspace_document",
      { title: "t", kind: "notes" },
      "access_denied",
    );
  }
  const noAi = await buildFixture(db.sql, {
    modules: MODULES.filter((m) => m !== "ai_activities" && m !== "documents"),
  });
  let t = await callFails(appA, noAi.keys.owner, "list_ai_activities", {}, "unavailable");
  assert.match(t, /ai_activities module is disabled/);
  t = await callFails(
    appA,
    noAi.keys.owner,
    "get_workspace_document",
    { documentId: MISSING },
    "unavailable",
  );
  assert.match(t, /documents module is disabled/);
  const b = await listedTools(appB, f.keys.internal);
  for (const name of [...ai, ...docs]) {
    assert.ok(!b.includes(name));
    const r = await rpc(appB, f.keys.internal, "tools/call", { name, arguments: {} });
    assert.equal(r.body.error.code, -32602);
  }
});

// The structured log: the access line (built by hand for speed) is byte for byte the generic line; times are ISO.
import assert from "node:assert/strict";
import { createLogger, nowIso } from "../lib/log.ts";

const TIME = /"time":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"/;

Deno.test("log: the access line equals info('request', fields) but for its time", () => {
  const lines: string[] = [];
  const log = createLogger("info", (l) => lines.push(l));
  const cases: [string, string, string, number, number][] = [
    ["0f8e4c1e-2b7a-4a57-9d53-6c1f0c1d2e3f", "POST", "/mcp", 200, 1.25],
    ["abc-123", "GET", '/a"b\\c/ü/\u2028/%00', 503, 0.04],
    ["x.y:z", "DELETE", "/", 405, 123.456],
    ["id", "PUT", "/oauth/token", 400, 0],
  ];
  for (const [id, method, path, status, ms] of cases) {
    lines.length = 0;
    log.access(id, method, path, status, ms);
    log.info("request", { request_id: id, method, path, status, ms: Math.round(ms * 10) / 10 });
    assert.equal(lines.length, 2);
    assert.match(lines[0], TIME);
    assert.equal(lines[0].replace(TIME, ""), lines[1].replace(TIME, ""));
    assert.deepEqual(Object.keys(JSON.parse(lines[0])), [
      "time",
      "level",
      "msg",
      "request_id",
      "method",
      "path",
      "status",
      "ms",
    ]);
  }
});

Deno.test("log: no access line below info", () => {
  const lines: string[] = [];
  createLogger("warn", (l) => lines.push(l)).access("id", "GET", "/", 200, 1);
  assert.deepEqual(lines, []);
});

Deno.test("log: nowIso(t) is new Date(t).toISOString(), across second and minute boundaries", () => {
  const base = Date.UTC(2026, 10, 23, 6, 59, 58, 0);
  const instants = [
    0,
    1,
    9,
    10,
    99,
    100,
    999,
    1000,
    1001,
    1999,
    2000,
    2001,
    60_000,
    61_234,
    3_600_000,
    86_400_000,
  ]
    .flatMap((d) => [base + d, base - d]);
  instants.push(Date.UTC(2099, 11, 31, 23, 59, 59, 999), Date.UTC(2000, 1, 29, 0, 0, 0, 5));
  for (const t of instants) assert.equal(nowIso(t), new Date(t).toISOString(), String(t));
  assert.match(nowIso(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

Deno.test("errorFields masks URL passwords in the message and the stack", async () => {
  const { errorFields, redactUrlPasswords } = await import("../lib/log.ts");
  const err = new TypeError("Invalid URL: 'postgres://app:S3cret@Passw0rd@db host:5432/prod'");
  const fields = errorFields(err);
  assert.equal(fields.error, "Invalid URL: 'postgres://app:***@db host:5432/prod'");
  assert.ok(!String(fields.stack).includes("S3cret"));
  assert.equal(
    redactUrlPasswords("redis://:pw@h:6379 and https://host/path"),
    "redis://:***@h:6379 and https://host/path",
  );
  assert.equal(redactUrlPasswords("postgres://u@h/db"), "postgres://u@h/db");
});

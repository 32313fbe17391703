// The operator hears about a new approval request: one warn line with ids only, and APPROVAL_WEBHOOK_URL's JSON
// POST, sent in the background to a listener of the test's own.
import assert from "node:assert/strict";
import {
  announceApprovalRequest,
  APPROVAL_WEBHOOK_MAX_IN_FLIGHT,
  APPROVAL_WEBHOOK_TIMEOUT_MS,
  type ApprovalNoticeDeps,
} from "../../lib/oauth/approval_notice.ts";
import type { ApprovalRequest } from "../../lib/oauth/approvals.ts";
import { createLogger } from "../../lib/log.ts";
import { parseConfig } from "../../lib/config.ts";
import { eventually } from "../helpers/wait.ts";

const ISSUER = "https://portico.example";

function request(n = 1): ApprovalRequest {
  return {
    id: `00000000-0000-4000-8000-00000000000${n}`,
    clientId: "pcl_selfregistered",
    userId: "11111111-1111-4111-8111-111111111111",
    workspaceId: "22222222-2222-4222-8222-222222222222",
    companyId: null,
    scopes: ["openid", "workspace"],
    note: "please, for the quarterly report — secret-note",
    status: "pending",
    createdAt: new Date("2026-11-23T06:25:00.000Z"),
    askedAt: new Date("2026-11-23T06:26:00.000Z"),
    decidedAt: null,
  };
}

interface Received {
  method: string;
  contentType: string | null;
  authorization: string | null;
  path: string;
  body: string;
}

/** A listener of the test's own on 127.0.0.1:0 that answers `status` once the test lets it (`release`). */
function listener(status: number, opts: { hold?: boolean; headers?: Record<string, string> } = {}) {
  const received: Received[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => release = r);
  if (!opts.hold) release();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    received.push({
      method: req.method,
      contentType: req.headers.get("content-type"),
      authorization: req.headers.get("authorization"),
      path: url.pathname + url.search,
      body: await req.text(),
    });
    await released;
    return new Response(status === 204 || status === 302 ? null : "ok", { status, headers: opts.headers });
  });
  return {
    received,
    release,
    url: `http://127.0.0.1:${server.addr.port}`,
    async close() {
      release();
      await server.shutdown();
    },
  };
}

function capture(): { log: ApprovalNoticeDeps["log"]; lines: Record<string, unknown>[]; raw: string[] } {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  return { log: createLogger("info", (l) => (raw.push(l), lines.push(JSON.parse(l)))), lines, raw };
}

const WARN_LINE = {
  level: "warn",
  msg: "approval requested",
  approval_request_id: "00000000-0000-4000-8000-000000000001",
  client_id: "pcl_selfregistered",
  user_id: "11111111-1111-4111-8111-111111111111",
  workspace_id: "22222222-2222-4222-8222-222222222222",
};

function withoutTime(line: Record<string, unknown>) {
  const { time: _, ...rest } = line;
  return rest;
}

Deno.test("approval notice: without APPROVAL_WEBHOOK_URL only the warn line, ids only, and no POST", () => {
  const { log, lines, raw } = capture();
  let posts = 0;
  const fetchSpy = (() => {
    posts++;
    return Promise.resolve(new Response("ok"));
  }) as typeof fetch;
  announceApprovalRequest({ log, config: { issuer: ISSUER }, fetch: fetchSpy }, request());
  assert.deepEqual(lines.map(withoutTime), [WARN_LINE]);
  assert.equal(posts, 0);
  assert.ok(!raw.join("").includes("secret-note"), "never the person's note");
  // The call the authorization flow makes: the whole Config, whose webhook is unset by default.
  const config = parseConfig({});
  assert.equal(config.approvalWebhookUrl, undefined);
  announceApprovalRequest({ log, config, fetch: fetchSpy }, request());
  assert.equal(posts, 0);
  assert.equal(APPROVAL_WEBHOOK_TIMEOUT_MS, 5_000);
});

Deno.test("approval notice: the webhook gets exactly the JSON body, in the background (announce returns first)", async () => {
  const hook = listener(204, { hold: true });
  try {
    const { log, lines } = capture();
    const config = parseConfig({ ISSUER, APPROVAL_WEBHOOK_URL: `${hook.url}/hooks/portico?token=s3cr3t` });
    announceApprovalRequest({ log, config }, request());
    // announce has returned; the listener has not answered (it holds its answer until released)
    assert.deepEqual(lines.map(withoutTime), [WARN_LINE]);
    await eventually("the listener received the POST", () => hook.received.length === 1);
    assert.equal(lines.length, 1, "nothing logged while the listener holds its answer");
    const [got] = hook.received;
    assert.equal(got.method, "POST");
    assert.equal(got.contentType, "application/json");
    assert.equal(got.authorization, null);
    assert.equal(got.path, "/hooks/portico?token=s3cr3t");
    assert.deepEqual(JSON.parse(got.body), {
      type: "approval_requested",
      request_id: "00000000-0000-4000-8000-000000000001",
      client_id: "pcl_selfregistered",
      user_id: "11111111-1111-4111-8111-111111111111",
      workspace_id: "22222222-2222-4222-8222-222222222222",
      asked_at: "2026-11-23T06:26:00.000Z",
      review_url: "https://portico.example/operator/requests",
      text: "An app is waiting for an operator's approval: https://portico.example/operator/requests",
    });
    hook.release();
    await eventually("the delivery is logged", () => lines.length === 2);
    assert.deepEqual(withoutTime(lines[1]), {
      level: "info",
      msg: "approval webhook sent",
      approval_request_id: "00000000-0000-4000-8000-000000000001",
      webhook: hook.url,
      status: 204,
    });
  } finally {
    await hook.close();
  }
});

Deno.test("approval notice: user name and password in the URL go as Basic authentication, never to the log", async () => {
  const hook = listener(500);
  try {
    const { log, lines, raw } = capture();
    const url = hook.url.replace("http://", "http://portico:p%40ss@") + "/in?key=s3cr3t";
    announceApprovalRequest({ log, config: { issuer: ISSUER, approvalWebhookUrl: url } }, request());
    await eventually("the failure is logged", () => lines.length === 2);
    assert.equal(hook.received[0].authorization, `Basic ${btoa("portico:p@ss")}`);
    assert.equal(hook.received[0].path, "/in?key=s3cr3t");
    // A listener answering 500: one warn line naming the status and the origin only.
    assert.deepEqual(withoutTime(lines[1]), {
      level: "warn",
      msg: "approval webhook failed",
      approval_request_id: "00000000-0000-4000-8000-000000000001",
      webhook: hook.url,
      status: 500,
      reason: "not a 2xx answer",
    });
    const all = raw.join("\n");
    for (const secret of ["s3cr3t", "p%40ss", "p@ss", "portico:", "secret-note"]) {
      assert.ok(!all.includes(secret), `the log carries ${secret}`);
    }
  } finally {
    await hook.close();
  }
});

Deno.test("approval notice: a redirect is a failure, not followed", async () => {
  const target = listener(204);
  const hook = listener(302, { headers: { location: `${target.url}/elsewhere` } });
  try {
    const { log, lines } = capture();
    announceApprovalRequest({ log, config: { issuer: ISSUER, approvalWebhookUrl: hook.url } }, request());
    await eventually("the failure is logged", () => lines.length === 2);
    assert.deepEqual(withoutTime(lines[1]), {
      level: "warn",
      msg: "approval webhook failed",
      approval_request_id: "00000000-0000-4000-8000-000000000001",
      webhook: hook.url,
      status: 302,
      reason: "redirect (not followed)",
    });
    assert.equal(target.received.length, 0, "the redirect's target got nothing");
  } finally {
    await hook.close();
    await target.close();
  }
});

Deno.test("approval notice: a listener that never answers ends in a timeout warning", async () => {
  const hook = listener(200, { hold: true });
  try {
    const { log, lines } = capture();
    announceApprovalRequest(
      {
        log,
        config: { issuer: ISSUER, approvalWebhookUrl: `${hook.url}/x?token=s3cr3t` },
        webhookTimeoutMs: 50,
      },
      request(),
    );
    await eventually("the timeout is logged", () => lines.length === 2);
    assert.equal(hook.received.length, 1);
    assert.deepEqual(withoutTime(lines[1]), {
      level: "warn",
      msg: "approval webhook failed",
      approval_request_id: "00000000-0000-4000-8000-000000000001",
      webhook: hook.url,
      reason: "no answer within 50 ms",
    });
  } finally {
    await hook.close();
  }
});

Deno.test("approval notice: a network error is logged without the URL's path or query", async () => {
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = closed.addr.port;
  closed.close();
  const { log, lines, raw } = capture();
  announceApprovalRequest(
    { log, config: { issuer: ISSUER, approvalWebhookUrl: `http://127.0.0.1:${port}/x?token=s3cr3t` } },
    request(),
  );
  await eventually("the failure is logged", () => lines.length === 2);
  assert.equal(lines[1].msg, "approval webhook failed");
  assert.equal(lines[1].webhook, `http://127.0.0.1:${port}`);
  assert.match(String(lines[1].reason), /^network error: /);
  assert.ok(!raw.join("\n").includes("s3cr3t"), raw[1]);
});

Deno.test(`approval notice: at most ${APPROVAL_WEBHOOK_MAX_IN_FLIGHT} POSTs in flight; one more is skipped and logged`, async () => {
  const hook = listener(200, { hold: true });
  try {
    const { log, lines } = capture();
    const deps = { log, config: { issuer: ISSUER, approvalWebhookUrl: hook.url } };
    for (let n = 1; n <= APPROVAL_WEBHOOK_MAX_IN_FLIGHT + 1; n++) announceApprovalRequest(deps, request(n));
    const skipped = lines.filter((l) => l.msg === "approval webhook skipped: too many in flight");
    assert.deepEqual(skipped.map(withoutTime), [{
      level: "warn",
      msg: "approval webhook skipped: too many in flight",
      approval_request_id: `00000000-0000-4000-8000-00000000000${APPROVAL_WEBHOOK_MAX_IN_FLIGHT + 1}`,
      in_flight: APPROVAL_WEBHOOK_MAX_IN_FLIGHT,
    }]);
    assert.equal(
      lines.filter((l) => l.msg === "approval requested").length,
      APPROVAL_WEBHOOK_MAX_IN_FLIGHT + 1,
    );
    await eventually(
      "the listener holds four",
      () => hook.received.length === APPROVAL_WEBHOOK_MAX_IN_FLIGHT,
    );
    hook.release();
    const sent = () => lines.filter((l) => l.msg === "approval webhook sent").length;
    await eventually("every held POST is answered", () => sent() === APPROVAL_WEBHOOK_MAX_IN_FLIGHT);
    // the slots are free again: the next request is posted
    announceApprovalRequest(deps, request(9));
    await eventually("the next one is sent", () => sent() === APPROVAL_WEBHOOK_MAX_IN_FLIGHT + 1);
    assert.equal(hook.received.length, APPROVAL_WEBHOOK_MAX_IN_FLIGHT + 1);
  } finally {
    await hook.close();
  }
});

Deno.test("APPROVAL_WEBHOOK_URL: https, or http only to a loopback host; the error never echoes the value", () => {
  assert.equal(
    parseConfig({ APPROVAL_WEBHOOK_URL: "https://hooks.example.com/x?k=1" }).approvalWebhookUrl,
    "https://hooks.example.com/x?k=1",
  );
  for (const ok of ["http://127.0.0.1:9000/hook", "http://localhost/hook", "http://[::1]:8080/"]) {
    assert.equal(parseConfig({ APPROVAL_WEBHOOK_URL: ok }).approvalWebhookUrl, ok);
  }
  for (
    const bad of [
      "http://hooks.example.com/secret-value",
      "ftp://hooks.example.com/secret-value",
      "/relative/secret-value",
      "https://hooks.example.com/secret-value#frag",
      "http://10.0.0.5/secret-value",
    ]
  ) {
    assert.throws(() => parseConfig({ APPROVAL_WEBHOOK_URL: bad }), (err: Error) => {
      assert.equal(
        err.message,
        "config error: APPROVAL_WEBHOOK_URL must be an absolute https URL without a fragment " +
          "(plain http only to a loopback host)",
      );
      return true;
    }, bad);
  }
});

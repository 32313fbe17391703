// A workspace's "require two-step sign-in" on /account/workspaces: owners and admins switch it, with CSRF; other
// roles see it and cannot; the change is in the security log of the person who made it.
import assert from "node:assert/strict";
import { parseConfig } from "../../lib/config.ts";
import { createLogger } from "../../lib/log.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture } from "../helpers/mcp.ts";
import { Browser, field, ISSUER, location } from "../oauth/helpers.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const app = createApp({
  config: parseConfig({ ISSUER, SECRET_KEY: TEST_SECRET, ...TEST_RATE_LIMITS }),
  sql: db.sql,
  log: createLogger("error"),
  secretKey: TEST_SECRET,
  scrypt: TEST_SCRYPT,
});

async function signedIn(userId: string) {
  const [{ email }] = await db.sql`select email from users where id = ${userId}`;
  const browser = new Browser(app);
  const page = await browser.get("/signin");
  const res = await browser.post("/signin", {
    csrf: field(await page.text(), "csrf")!,
    email,
    password: "test password 123",
  });
  assert.equal(res.status, 303);
  return browser;
}

const policy = async () =>
  (await db.sql`select require_two_factor from workspaces where id = ${f.workspaceId}`)[0].require_two_factor;

Deno.test("an owner requires two-step sign-in and lifts it again; the security log has both", async () => {
  const owner = await signedIn(f.users.owner);
  const page = await owner.get("/account/workspaces");
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /data-policy="off"/);
  // Every member of the fixture is without a second factor.
  const [{ n }] = await db
    .sql`select count(*)::int as n from workspace_members where workspace_id = ${f.workspaceId}`;
  assert.match(html, new RegExp(`data-without-factor="${n}"`));
  const on = await owner.post("/account/workspaces/two-step", {
    csrf: field(html, "csrf")!,
    workspace_id: f.workspaceId,
    require: "on",
  });
  assert.equal(on.status, 303);
  assert.equal(location(on).pathname + location(on).search, "/account/workspaces?changed=on");
  assert.equal(await policy(), true);
  assert.match(await (await owner.get("/account/workspaces?changed=on")).text(), /data-policy="required"/);
  const off = await owner.post("/account/workspaces/two-step", {
    csrf: field(html, "csrf")!,
    workspace_id: f.workspaceId,
    require: "off",
  });
  assert.equal(off.status, 303);
  assert.equal(await policy(), false);
  const events = await db.sql`
    select kind, detail from security_events where user_id = ${f.users.owner} and kind = 'workspace_policy_changed'
     order by id`;
  assert.deepEqual(events.map((e) => e.detail), [
    { workspace_id: f.workspaceId, require_two_factor: true },
    { workspace_id: f.workspaceId, require_two_factor: false },
  ]);
});

Deno.test("a member sees the policy without a form and is refused (403) when posting anyway; no CSRF, no change", async () => {
  const member = await signedIn(f.users.member);
  const html = await (await member.get("/account/workspaces")).text();
  assert.doesNotMatch(html, /action="\/account\/workspaces\/two-step"/);
  assert.doesNotMatch(html, /data-without-factor/);
  const refused = await member.post("/account/workspaces/two-step", {
    csrf: field(html, "csrf")!,
    workspace_id: f.workspaceId,
    require: "on",
  });
  assert.equal(refused.status, 403);
  assert.equal(await policy(), false);
  // Another workspace's id, as an owner of this one: refused too.
  const owner = await signedIn(f.users.owner);
  const ownerHtml = await (await owner.get("/account/workspaces")).text();
  const elsewhere = await owner.post("/account/workspaces/two-step", {
    csrf: field(ownerHtml, "csrf")!,
    workspace_id: f.other.workspaceId,
    require: "on",
  });
  assert.equal(elsewhere.status, 403);
  const [other] = await db.sql`select require_two_factor from workspaces where id = ${f.other.workspaceId}`;
  assert.equal(other.require_two_factor, false);
  const forged = await owner.post("/account/workspaces/two-step", {
    csrf: "forged",
    workspace_id: f.workspaceId,
    require: "on",
  });
  assert.equal(forged.status, 403);
  assert.equal(await policy(), false);
});

Deno.test("signed out: the page sends the browser to sign in and back", async () => {
  const res = await new Browser(app).get("/account/workspaces");
  assert.equal(res.status, 303);
  assert.equal(location(res).pathname + location(res).search, "/signin?return_to=%2Faccount%2Fworkspaces");
});

Deno.test("a malformed policy form names its field (400) and changes nothing", async () => {
  const owner = await signedIn(f.users.owner);
  const csrf = field(await (await owner.get("/account/workspaces")).text(), "csrf")!;
  for (
    const [form, named] of [
      [{ csrf, workspace_id: f.workspaceId, require: "maybe" }, "require (on or off)"],
      [{ csrf, require: "on" }, "workspace_id"],
    ] as const
  ) {
    const res = await owner.post("/account/workspaces/two-step", form);
    assert.equal(res.status, 400);
    assert.ok((await res.text()).includes(`s ${named} is missing or not valid.`), named);
  }
  assert.equal(await policy(), false);
});

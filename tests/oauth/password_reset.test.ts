// "Forgot password?" end to end through a real SMTP server (npm smtp-server, started here): one answer for every
// address, a link that works once and for 30 minutes, sessions ended, the old password refused, limits that send
// nothing more, CSRF, disabled accounts, and the dev mailbox of `deno task dev`.
import assert from "node:assert/strict";
import { createUser, setUserDisabled } from "../../lib/accounts.ts";
import { parseConfig } from "../../lib/config.ts";
import { verifyPassword } from "../../lib/crypto.ts";
import { createLogger } from "../../lib/log.ts";
import { createMailer, type Mailer } from "../../lib/mail.ts";
import { RESET_LIMITS, RESET_TRIES } from "../../lib/password_reset.ts";
import { confirmTotp, currentStep, newTotpSecret, totpCode } from "../../lib/security/totp.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { freshDatabase, type TestDb } from "../helpers/db.ts";
import { type ReceivedMail, smtpServer } from "../helpers/smtp_server.ts";
import { eventually } from "../helpers/wait.ts";
import { Browser, field, ISSUER, PASSWORD } from "./helpers.ts";

const NEW_PASSWORD = "a brand new password";
const SENT_TEXT = "If an account exists for that address, we sent a link to choose a new password.";

function linkIn(mail: ReceivedMail): string {
  const m = mail.body.match(/http:\/\/localhost:8000\/signin\/reset\?token=([A-Za-z0-9_-]+)/);
  assert.ok(m, "the mail carries a reset link");
  return `/signin/reset?token=${m[1]}`;
}

interface World {
  db: TestDb;
  app: ReturnType<typeof createApp>;
  mailer: Mailer;
  smtp: Awaited<ReturnType<typeof smtpServer>>;
  logs: string[];
  user: { id: string; email: string };
  close(): Promise<void>;
}

async function world(): Promise<World> {
  const db = await freshDatabase();
  const smtp = await smtpServer();
  const logs: string[] = [];
  const log = createLogger("debug", (l) => logs.push(l));
  const config = parseConfig({
    ISSUER,
    SECRET_KEY: TEST_SECRET,
    ...TEST_RATE_LIMITS,
    SMTP_URL: smtp.url,
    MAIL_FROM: "Portico <no-reply@example.com>",
  });
  const mailer = createMailer(config, log);
  assert.equal(mailer.kind, "smtp");
  const app = createApp({ config, sql: db.sql, log, secretKey: TEST_SECRET, scrypt: TEST_SCRYPT, mailer });
  const user = await createUser(db.sql, { email: "dana@example.com", password: PASSWORD, name: "Dana" }, {
    scrypt: TEST_SCRYPT,
  });
  return {
    db,
    app,
    mailer,
    smtp,
    logs,
    user: { id: user.id, email: "dana@example.com" },
    close: async () => {
      await mailer.idle();
      await smtp.close();
      await db.close();
    },
  };
}

/** Asks for a link from `browser`: the answer's status and Location. */
async function forgot(browser: Browser, email: string): Promise<{ status: number; location: string | null }> {
  const csrf = field(await (await browser.get("/signin/forgot")).text(), "csrf")!;
  const res = await browser.post("/signin/forgot", { csrf, email });
  await res.body?.cancel();
  return { status: res.status, location: res.headers.get("location") };
}

async function signInOutcome(w: World, password: string): Promise<string> {
  const b = new Browser(w.app, "203.0.113.50");
  const csrf = field(await (await b.get("/signin")).text(), "csrf")!;
  const res = await b.post("/signin", { csrf, email: w.user.email, password });
  return res.headers.get("location")!;
}

async function passwordHash(w: World): Promise<string> {
  const [row] = await w.db.sql<{ h: string }[]>`select password_hash as h from users where id = ${w.user.id}`;
  return row.h;
}

async function postReset(b: Browser, link: string, password: string, confirm = password) {
  const page = await b.get(link);
  assert.equal(page.status, 200);
  const html = await page.text();
  const res = await b.post("/signin/reset", {
    csrf: field(html, "csrf")!,
    token: field(html, "token")!,
    password,
    confirm,
  });
  return { status: res.status, location: res.headers.get("location"), html: await res.text() };
}

Deno.test("the sign-in page links to /signin/forgot", async () => {
  const w = await world();
  try {
    const html = await (await new Browser(w.app).get("/signin")).text();
    assert.match(html, /<a class="button secondary" href="\/signin\/forgot">Forgot password\?<\/a>/);
  } finally {
    await w.close();
  }
});

Deno.test("one answer for a known, an unknown and a disabled address; only the known one gets mail", async () => {
  const w = await world();
  try {
    const disabled = await createUser(w.db.sql, { email: "dis@example.com", password: PASSWORD }, {
      scrypt: TEST_SCRYPT,
    });
    await setUserDisabled(w.db.sql, disabled.id, true);
    const answers = [];
    for (
      const [ip, email] of [["198.51.100.1", "dana@example.com"], ["198.51.101.1", "nobody@example.com"], [
        "198.51.102.1",
        "dis@example.com",
      ]]
    ) {
      const b = new Browser(w.app, ip);
      const a = await forgot(b, email);
      const sent = await b.get(a.location!);
      answers.push({ ...a, sentStatus: sent.status, sentBody: await sent.text() });
    }
    for (const a of answers) {
      assert.equal(a.status, 303);
      assert.equal(a.location, "/signin/forgot/sent");
      assert.equal(a.sentStatus, 200);
      assert.ok(a.sentBody.includes(SENT_TEXT));
    }
    // the bodies differ only in the request id the error footer may carry: none here, so byte-equal
    assert.equal(answers[1].sentBody, answers[0].sentBody);
    assert.equal(answers[2].sentBody, answers[0].sentBody);
    await eventually("the known address's mail arrives", () => w.smtp.received.length >= 1);
    await w.mailer.idle();
    assert.equal(w.smtp.received.length, 1);
    assert.deepEqual(w.smtp.received[0].to, ["dana@example.com"]);
    assert.equal(w.smtp.received[0].from, "no-reply@example.com");
    const rows = await w.db.sql<{ user_id: string; token_hash: string; ttl: number }[]>`
      select user_id, token_hash, extract(epoch from expires_at - created_at)::int as ttl from password_resets`;
    assert.equal(rows.length, 1);
    assert.equal(rows[0].user_id, w.user.id);
    assert.equal(rows[0].ttl, 1800);
    // stored as a SHA-256 hash, never the token; and the token is in no log line
    const token = linkIn(w.smtp.received[0]).split("=")[1];
    assert.match(rows[0].token_hash, /^[0-9a-f]{64}$/);
    assert.ok(!w.logs.some((l) => l.includes(token)), "no log line carries the token");
  } finally {
    await w.close();
  }
});

Deno.test("the link works once: new password set, sessions ended, old password refused, new one accepted", async () => {
  const w = await world();
  try {
    assert.equal(await signInOutcome(w, PASSWORD), "/account/apps");
    const [{ n: before }] = await w.db.sql<{ n: number }[]>`
      select count(*)::int as n from browser_session_accounts where user_id = ${w.user.id}`;
    assert.equal(before, 1);
    await forgot(new Browser(w.app), w.user.email);
    await eventually("mail", () => w.smtp.received.length === 1);
    const link = linkIn(w.smtp.received[0]);

    const b = new Browser(w.app, "198.51.100.9");
    const done = await postReset(b, link, NEW_PASSWORD);
    assert.equal(done.status, 303);
    assert.equal(done.location, "/signin?reset=done");
    assert.ok(
      !b.cookies.has("portico_session"),
      "a reset signs nobody in (a second factor would still apply)",
    );
    const [{ n: after }] = await w.db.sql<{ n: number }[]>`
      select count(*)::int as n from browser_session_accounts where user_id = ${w.user.id}`;
    assert.equal(after, 0);
    assert.ok(await verifyPassword(NEW_PASSWORD, await passwordHash(w), TEST_SCRYPT));
    assert.equal(
      await signInOutcome(w, PASSWORD),
      "/signin?return_to=%2Faccount%2Fapps&error=invalid_credentials",
    );
    assert.equal(await signInOutcome(w, NEW_PASSWORD), "/account/apps");
    // The person's security log: requested, reset (with the sessions it ended), the failed and the new sign-in.
    const events = await w.db.sql<{ kind: string; detail: Record<string, unknown> }[]>`
      select kind, detail from security_events where user_id = ${w.user.id} order by id`;
    assert.deepEqual(events.map((e) => e.kind), [
      "sign_in",
      "password_reset_requested",
      "password_reset",
      "sign_in_failed",
      "sign_in",
    ]);
    assert.deepEqual(events[2].detail, { sessions_ended: 1 });
    const [changed] = await w.db.sql<{ at: Date | null; required: boolean }[]>`
      select password_changed_at as at, password_change_required as required from users where id = ${w.user.id}`;
    assert.ok(changed.at instanceof Date, "the reset records when the password changed");
    assert.equal(changed.required, false);

    // spent: the same link shows the clear page and changes nothing
    const hash = await passwordHash(w);
    const again = await b.get(link);
    assert.equal(again.status, 400);
    assert.match(await again.text(), /This link does not work any more/);
    const csrf = field(await (await b.get("/signin/forgot")).text(), "csrf")!;
    const replay = await b.post("/signin/reset", {
      csrf,
      token: link.split("=")[1],
      password: "yet another password",
      confirm: "yet another password",
    });
    assert.equal(replay.status, 400);
    assert.equal(await passwordHash(w), hash);
  } finally {
    await w.close();
  }
});

Deno.test("two parallel posts of one link: exactly one sets its password", async () => {
  const w = await world();
  try {
    await forgot(new Browser(w.app), w.user.email);
    await eventually("mail", () => w.smtp.received.length === 1);
    const link = linkIn(w.smtp.received[0]);
    const b = new Browser(w.app, "198.51.100.9");
    const html = await (await b.get(link)).text();
    const post = (password: string) =>
      b.post("/signin/reset", {
        csrf: field(html, "csrf")!,
        token: field(html, "token")!,
        password,
        confirm: password,
      });
    const [r1, r2] = await Promise.all([post("first parallel password"), post("second parallel password")]);
    assert.deepEqual([r1.status, r2.status].sort(), [303, 400]);
    const winner = r1.status === 303 ? "first parallel password" : "second parallel password";
    const loser = r1.status === 303 ? "second parallel password" : "first parallel password";
    assert.ok(await verifyPassword(winner, await passwordHash(w), TEST_SCRYPT));
    assert.ok(!await verifyPassword(loser, await passwordHash(w), TEST_SCRYPT));
  } finally {
    await w.close();
  }
});

Deno.test("an expired, a replaced or a forged link: the clear page, nothing changed", async () => {
  const w = await world();
  try {
    const hash = await passwordHash(w);
    const b = new Browser(w.app);
    await forgot(b, w.user.email);
    await eventually("first mail", () => w.smtp.received.length === 1);
    const first = linkIn(w.smtp.received[0]);
    await forgot(b, w.user.email);
    await eventually("second mail", () => w.smtp.received.length === 2);
    const second = linkIn(w.smtp.received[1]);
    assert.notEqual(first, second);
    assert.equal((await b.get(first)).status, 400, "a new link replaces the old one");
    assert.equal((await b.get(second)).status, 200);

    await w.db.sql`update password_resets set expires_at = now() - interval '1 second'`;
    const expired = await b.get(second);
    assert.equal(expired.status, 400);
    assert.match(await expired.text(), /Nothing was\s+changed/);
    const csrf = field(await (await b.get("/signin/forgot")).text(), "csrf")!;
    for (const token of [second.split("=")[1], "prt_forged0000000000000000000000000000000000", ""]) {
      const res = await b.post("/signin/reset", {
        csrf,
        token,
        password: NEW_PASSWORD,
        confirm: NEW_PASSWORD,
      });
      assert.equal(res.status, 400);
      assert.match(await res.text(), /This link does not work any more/);
    }
    assert.equal((await b.get("/signin/reset?token=prt_forged")).status, 400);
    assert.equal(await passwordHash(w), hash);
  } finally {
    await w.close();
  }
});

Deno.test("a too short, common, personal or mismatched password is refused on the form and spends nothing", async () => {
  const w = await world();
  try {
    await forgot(new Browser(w.app), w.user.email);
    await eventually("mail", () => w.smtp.received.length === 1);
    const link = linkIn(w.smtp.received[0]);
    const b = new Browser(w.app);
    const short = await postReset(b, link, "short");
    assert.equal(short.status, 400);
    assert.match(short.html, /Use at least 12 characters\./);
    // 11 characters: still too short (issue 29: 12 is the minimum for new passwords).
    assert.match((await postReset(b, link, "elevenchars")).html, /Use at least 12 characters\./);
    const common = await postReset(b, link, "password1234");
    assert.equal(common.status, 400);
    assert.match(common.html, /This password is on lists of common passwords that attackers try first\./);
    const personal = await postReset(b, link, "dana@example.com 2024");
    assert.equal(personal.status, 400);
    assert.match(personal.html, /contains your email address or name/);
    const mismatch = await postReset(b, link, NEW_PASSWORD, "something else entirely");
    assert.equal(mismatch.status, 400);
    assert.match(mismatch.html, /The two passwords are not the same\./);
    assert.equal((await postReset(b, link, NEW_PASSWORD)).status, 303);
  } finally {
    await w.close();
  }
});

Deno.test("one link allows RESET_TRIES.max new passwords; then it refuses even a good one and changes nothing", async () => {
  const w = await world();
  try {
    await forgot(new Browser(w.app), w.user.email);
    await eventually("mail", () => w.smtp.received.length === 1);
    const link = linkIn(w.smtp.received[0]);
    const b = new Browser(w.app);
    const hash = await passwordHash(w);
    for (let i = 0; i < RESET_TRIES.max; i++) {
      assert.equal((await postReset(b, link, `short ${i}`)).status, 400);
    }
    const refused = await postReset(b, link, NEW_PASSWORD);
    assert.equal(refused.status, 400);
    assert.match(refused.html, /Too many tries with this link\. Ask for a new link\./);
    assert.equal(await passwordHash(w), hash);
  } finally {
    await w.close();
  }
});

Deno.test("CSRF: both forms refuse a post without the browser's token; nothing sent, nothing changed", async () => {
  const w = await world();
  try {
    const b = new Browser(w.app);
    await b.get("/signin/forgot");
    const res = await b.post("/signin/forgot", { csrf: "forged", email: w.user.email });
    assert.equal(res.status, 403);
    await w.mailer.idle();
    assert.equal(w.smtp.received.length, 0);
    const [{ n }] = await w.db.sql<{ n: number }[]>`select count(*)::int as n from password_resets`;
    assert.equal(n, 0);

    await forgot(b, w.user.email);
    await eventually("mail", () => w.smtp.received.length === 1);
    const link = linkIn(w.smtp.received[0]);
    const hash = await passwordHash(w);
    // a browser without the CSRF cookie, with the right token
    const other = new Browser(w.app, "192.0.2.9");
    const html = await (await b.get(link)).text();
    const post = await other.post("/signin/reset", {
      csrf: field(html, "csrf")!,
      token: link.split("=")[1],
      password: NEW_PASSWORD,
      confirm: NEW_PASSWORD,
    });
    assert.equal(post.status, 403);
    assert.equal(await passwordHash(w), hash);
    assert.equal((await b.get(link)).status, 200, "the link is still live");
  } finally {
    await w.close();
  }
});

Deno.test("limits per address and per network answer the same and send nothing more", async () => {
  const w = await world();
  try {
    // per address: from different networks, the known address gets perAddress mails, then no more
    const n = RESET_LIMITS.perAddress.max;
    for (let i = 0; i <= n; i++) {
      const a = await forgot(new Browser(w.app, `203.0.${i + 1}.7`), w.user.email);
      assert.deepEqual(a, { status: 303, location: "/signin/forgot/sent" });
    }
    await eventually("the allowed mails", () => w.smtp.received.length >= n);
    await w.mailer.idle();
    assert.equal(w.smtp.received.length, n);

    // per network: one /24 spends its allowance on unknown addresses; then a known one gets nothing from it
    const other = await createUser(w.db.sql, { email: "olly@example.com", password: PASSWORD }, {
      scrypt: TEST_SCRYPT,
    });
    for (let i = 0; i < RESET_LIMITS.perNetwork.max; i++) {
      await forgot(new Browser(w.app, `192.0.2.${i + 1}`), `nobody${i}@example.com`);
    }
    const refused = await forgot(new Browser(w.app, "192.0.2.200"), "olly@example.com");
    assert.deepEqual(refused, { status: 303, location: "/signin/forgot/sent" });
    await w.mailer.idle();
    assert.equal(w.smtp.received.length, n);
    // the same address from another network still gets its mail
    await forgot(new Browser(w.app, "198.18.0.1"), "olly@example.com");
    await eventually("olly's mail", () => w.smtp.received.length === n + 1);
    assert.deepEqual(w.smtp.received[n].to, ["olly@example.com"]);
    const [{ c }] = await w.db.sql<{ c: number }[]>`
      select count(*)::int as c from password_resets where user_id = ${other.id}`;
    assert.equal(c, 1);
  } finally {
    await w.close();
  }
});

Deno.test("without SMTP_URL: the dev mailbox (embedded database, loopback only), or only a log line", async () => {
  const db = await freshDatabase();
  try {
    await createUser(db.sql, { email: "dana@example.com", password: PASSWORD }, { scrypt: TEST_SCRYPT });
    const logs: string[] = [];
    const log = createLogger("debug", (l) => logs.push(l));
    const dev = parseConfig({ ISSUER, SECRET_KEY: TEST_SECRET, ...TEST_RATE_LIMITS });
    const app = createApp({ config: dev, sql: db.sql, log, secretKey: TEST_SECRET, scrypt: TEST_SCRYPT });
    const local = new Browser(app, "127.0.0.1");
    await forgot(local, "dana@example.com");
    const box = await local.get("/dev/mailbox");
    assert.equal(box.status, 200);
    const html = await box.text();
    const m = html.match(/\/signin\/reset\?token=([A-Za-z0-9_-]+)/);
    assert.ok(m, "the dev mailbox shows the link");
    assert.ok(logs.some((l) => l.includes(`${ISSUER}/dev/mailbox`)), "the log says where the mail is");
    assert.ok(!logs.some((l) => l.includes(m[1])), "the log does not carry the token");
    assert.equal((await local.get(`/signin/reset?token=${m[1]}`)).status, 200);
    assert.equal((await new Browser(app, "198.51.100.7").get("/dev/mailbox")).status, 404);

    // DATABASE_URL without SMTP_URL (production without mail): no mailbox; the log says no mail was sent
    const prodLogs: string[] = [];
    const prod = parseConfig({
      ISSUER,
      SECRET_KEY: TEST_SECRET,
      ...TEST_RATE_LIMITS,
      DATABASE_URL: "postgres://unused@127.0.0.1/unused",
    });
    const prodApp = createApp({
      config: prod,
      sql: db.sql,
      log: createLogger("debug", (l) => prodLogs.push(l)),
      secretKey: TEST_SECRET,
      scrypt: TEST_SCRYPT,
    });
    const p = new Browser(prodApp, "127.0.0.1");
    await forgot(p, "dana@example.com");
    assert.equal((await p.get("/dev/mailbox")).status, 404);
    assert.ok(prodLogs.some((l) => l.includes("mail not sent: SMTP_URL is not set")));
    assert.ok(!prodLogs.some((l) => l.includes("prt_")), "no token in production logs");
  } finally {
    await db.close();
  }
});

Deno.test("after a reset the second factor is still asked: the new password alone signs nobody in", async () => {
  const w = await world();
  try {
    const secret = newTotpSecret();
    const earlier = currentStep() - 10;
    await confirmTotp(w.db.sql, TEST_SECRET, w.user.id, secret, totpCode(secret, earlier), earlier * 30_000);
    await forgot(new Browser(w.app), w.user.email);
    await eventually("mail", () => w.smtp.received.length === 1);
    const b = new Browser(w.app, "198.51.100.9");
    const done = await postReset(b, linkIn(w.smtp.received[0]), NEW_PASSWORD);
    assert.equal(done.status, 303);
    assert.equal(done.location, "/signin?reset=done");
    assert.ok(!b.cookies.has("portico_session"), "the reset signs nobody in");

    const csrf = field(await (await b.get("/signin?reset=done")).text(), "csrf")!;
    const signin = await b.post("/signin", { csrf, email: w.user.email, password: NEW_PASSWORD });
    assert.equal(signin.status, 303);
    const verify = new URL(signin.headers.get("location")!, ISSUER);
    assert.equal(verify.pathname, "/signin/verify", "the new password leads to the second step");
    assert.ok(!b.cookies.has("portico_session"), "not signed in before the code");
    const page = await (await b.get(verify.pathname + verify.search)).text();
    const coded = await b.post("/signin/verify/totp", {
      csrf: field(page, "csrf")!,
      p: field(page, "p")!,
      code: totpCode(secret, currentStep()),
    });
    assert.equal(coded.status, 303);
    assert.equal(coded.headers.get("location"), "/account/apps");
    const [row] = await w.db.sql<{ amr: string[] }[]>`
      select amr from browser_session_accounts where user_id = ${w.user.id}`;
    assert.deepEqual(row.amr, ["pwd", "otp", "mfa"]);
  } finally {
    await w.close();
  }
});

// Every page of issue 29 (and the account home) in light and dark, at 1280×800 and 390×844: axe-clean (WCAG 2.2 AA, which includes
// colour contrast) and without sideways scrolling — the security overview, two-step, passkeys, sessions and
// workspaces pages with content in them, the second-factor page, the set-up walk's first page, and the
// sign-out question of RP-initiated logout. The flows themselves are tested elsewhere (pages_two_step,
// pages_passkeys, pages_sessions, pages_account_security, step_up_sdk).
import { createUser } from "../../lib/accounts.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { confirmTotp, currentStep, newTotpSecret, totpCode } from "../../lib/security/totp.ts";
import { addMember, createWorkspace } from "../../lib/workspace/workspaces.ts";
import {
  assertPageCleanEverywhere,
  haveChromium,
  launchChromium,
  signInWithPassword,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { serveAtIssuer } from "../helpers/serve.ts";

warnIfMissing("tests/e2e/pages_security_dark.test.ts");

const PASSWORD = "a long enough password";

Deno.test({
  name: "Chromium: the sign-in security pages in light and dark at 1280×800 and 390×844 are axe-clean",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const { issuer, server } = serveAtIssuer(db.sql);
    const browser = await launchChromium();
    const strictWorkspace = await createWorkspace(db.sql, "Strict Studio", ["projects"]);
    await db.sql`update workspaces set require_two_factor = true where id = ${strictWorkspace.id}`;
    const openWorkspace = await createWorkspace(db.sql, "Open Studio", ["projects"]);
    const app = await createClient(db.sql, {
      name: "Logout App",
      redirectUris: ["https://rp.example/cb"],
      confidential: false,
      scopes: ["openid"],
      grantTypes: ["authorization_code"],
      selfRegistered: false,
    });
    await db.sql`update oauth_clients set post_logout_redirect_uris = '{https://rp.example/bye}'
                  where client_id = ${app.clientId}`;
    try {
      // One walk, each page checked at both sizes in light and dark (assertPageCleanEverywhere).
      // An owner with an authenticator app, a passkey, events, and a member without a factor beside them.
      const email = "sana@example.com";
      const user = await createUser(db.sql, { email, password: PASSWORD, name: "Sana" }, {
        scrypt: TEST_SCRYPT,
      });
      await addMember(db.sql, openWorkspace.id, user.id, "owner", null);
      const secret = newTotpSecret();
      const earlier = currentStep() - 10;
      await confirmTotp(db.sql, TEST_SECRET, user.id, secret, totpCode(secret, earlier), earlier * 30_000);
      await db.sql`insert into user_passkeys (user_id, credential_id, public_key, name)
                   values (${user.id}, 'cred-1', '\\x00', 'Passkey on Chromium (Linux)')`;
      const walker = await createUser(db.sql, { email: "walt@example.com", password: PASSWORD }, {
        scrypt: TEST_SCRYPT,
      });
      await addMember(db.sql, strictWorkspace.id, walker.id, "member", null);

      await t.step("the owner's pages", async () => {
        const context = await browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
        try {
          const page = await context.newPage();
          await signInWithPassword(page, issuer, email, PASSWORD);
          await page.waitForURL((u) => u.pathname === "/signin/verify");
          await assertPageCleanEverywhere(page, "second factor");
          await page.getByLabel("Code", { exact: true }).fill(totpCode(secret, currentStep()));
          await page.getByRole("button", { name: "Verify" }).click();
          await page.waitForURL((u) => u.pathname === "/account/apps");
          for (
            const path of [
              "/account",
              "/account/security",
              "/account/security/two-step",
              "/account/security/passkeys",
              "/account/sessions",
              "/account/workspaces",
            ]
          ) {
            await page.goto(`${issuer}${path}`);
            await assertPageCleanEverywhere(page, path);
          }
          await page.goto(`${issuer}/oauth/logout?client_id=${app.clientId}`);
          await page.getByRole("heading", { name: /Sign out/ }).waitFor();
          await assertPageCleanEverywhere(page, "logout question");
        } finally {
          await context.close();
        }
      });

      await t.step("the set-up walk's first page", async () => {
        // The member of a workspace that requires two-step sign-in, without a factor: the walk's start.
        const context = await browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
        try {
          const walk = await context.newPage();
          await signInWithPassword(walk, issuer, "walt@example.com", PASSWORD);
          await walk.waitForURL((u) => u.pathname === "/signin/verify");
          await assertPageCleanEverywhere(walk, "policy walk");
        } finally {
          await context.close();
        }
      });
    } finally {
      await browser.close();
      await server.shutdown();
      await db.close();
    }
  },
});

// End to end: a real headless Chromium signs in, creates an API key on /account/keys, the key answers on /mcp
// (through the official SDK client), is shown only once, and stops working when revoked from the page (after
// its confirmation page).
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createUser } from "../../lib/accounts.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { freshDatabase } from "../helpers/db.ts";
import { haveChromium, launchChromium, warnIfMissing } from "../helpers/browser.ts";
import { serveAtIssuer } from "../helpers/serve.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

warnIfMissing("tests/e2e/account_keys.test.ts");

const EMAIL = "keys@example.com";
const PASSWORD = "browser studio secret 123"; // no "keys" in it: that is the email's name part

async function mcpStatus(mcpUrl: string, key: string): Promise<number> {
  const res = await fetch(mcpUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", "x-api-key": key },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test({
  name: "Chromium: sign in, create a key (shown once), use it with the SDK client, revoke it",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await freshDatabase();
    const userId = (await createUser(db.sql, { email: EMAIL, password: PASSWORD, name: "Kim Keys" }, {
      scrypt: TEST_SCRYPT,
    })).id;
    const workspaceId = (await createWorkspace(db.sql, "Browser Studio", [...MODULES])).id;
    await createCompany(db.sql, workspaceId, "Browser Co");
    await addMember(db.sql, workspaceId, userId, "admin", null);

    const { issuer, server } = serveAtIssuer(db.sql);
    const mcpUrl = `${issuer}/mcp`;

    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${issuer}/account/keys`);
      // not signed in: the sign-in page, which comes back here
      await page.getByLabel("Email").fill(EMAIL);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "API keys" }).waitFor();
      assert.equal(new URL(page.url()).pathname, "/account/keys");

      await page.getByLabel("Key name").fill("Browser key");
      await page.getByRole("button", { name: "Create key" }).click();
      await page.locator("#new-key").waitFor();
      const key = (await page.locator("#new-key").textContent())!.trim();
      assert.match(key, /^pak_[A-Za-z0-9_-]{43}$/);

      // the key works with the official SDK client
      const client = new Client({ name: "e2e", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(mcpUrl), {
          requestInit: { headers: { "x-api-key": key } },
        }),
      );
      const made = await client.callTool({
        name: "create_project",
        arguments: { name: "From the browser key" },
      });
      assert.equal((made.structuredContent as { createdBy: string }).createdBy, userId);
      await client.close();

      // shown once: a reload lists the key by its prefix only
      await page.reload();
      assert.equal(await page.locator("#new-key").count(), 0);
      assert.ok((await page.content()).includes(key.slice(0, 10)));
      assert.ok(!(await page.content()).includes(key));

      // revoke from the page: the next request is refused
      assert.equal(await mcpStatus(mcpUrl, key), 200);
      await page.getByRole("button", { name: "Revoke Browser key" }).first().click();
      // a confirmation page first: the key still works until it is confirmed
      await page.getByRole("heading", { name: "Revoke Browser key?" }).waitFor();
      assert.equal(await mcpStatus(mcpUrl, key), 200);
      await page.getByRole("button", { name: "Revoke Browser key" }).click();
      await page.getByRole("status").filter({ hasText: "revoked" }).waitFor();
      assert.equal(await mcpStatus(mcpUrl, key), 403);
    } finally {
      await browser.close();
      await server.shutdown();
      await db.close();
    }
  },
});

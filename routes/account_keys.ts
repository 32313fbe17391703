// /account/keys: the signed-in person's API keys for the MCP server — create (shown once), list, revoke (after a
// confirmation page).
import type { Context, Hono } from "hono";
import { z } from "zod";
import { createOwnKey, keysPageData, keyToRevoke, revokeKeyAs } from "../lib/account_keys.ts";
import { keepNewKey, takeNewKey } from "../lib/account/new_key.ts";
import { clientConfigs } from "../lib/client_configs.ts";
import type { Config } from "../lib/config.ts";
import type { Sql } from "../lib/db/client.ts";
import type { Logger } from "../lib/log.ts";
import { AppError } from "../lib/errors.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { readForm } from "../lib/http/form.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import type { Text } from "../lib/i18n/mod.ts";
import { limitsFromForm, TOOLSETS } from "../lib/mcp/toolsets.ts";
import { isOperator } from "../lib/oauth/approvals.ts";
import { requireAccount } from "../lib/oauth/sessions.ts";
import { workspaceName } from "../lib/workspace/workspaces.ts";
import { formExpired } from "../lib/page_errors.ts";
import { KeysPage, RevokeKeyConfirmPage } from "../views/keys.tsx";
import { SCRIPT_CSP } from "../views/script.ts";

export interface AccountKeysDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  secretKey: string;
}

const PATH = "/account/keys";

const CreateForm = z.object({
  csrf: z.string().max(200),
  workspace_id: z.string().max(100),
  name: z.string().max(1000),
  company_id: z.string().max(100).optional(),
  acts_for: z.enum(["me", "workspace"]).optional(),
  // the marker of a form that offered the toolset checkboxes (`toolset`, repeated), and the read-only box
  toolset_choice: z.string().max(10).optional(),
  read_only: z.string().max(10).optional(),
});
const RevokeForm = z.object({ csrf: z.string().max(200), key_id: z.string().max(100) });

// Fixed texts chosen by a code in the query, so a crafted link cannot put words on the page.
const ERRORS: Record<string, Text> = {
  invalid_input: (t) => t.account.keys.errors.invalid_input,
  not_found: (t) => t.account.keys.errors.not_found,
  access_denied: (t) => t.account.keys.errors.access_denied,
  no_key: (t) => t.account.keys.errors.no_key,
  unknown_toolset: (t) =>
    t.account.keys.errors.unknown_toolset(TOOLSETS.map((s) => t.account.toolsets.labels[s]).join(", ")),
  no_toolset: (t) => t.account.keys.errors.no_toolset,
  invalid_read_only: (t) => t.account.keys.errors.invalid_read_only,
};

export function createAccountKeysRoutes(deps: AccountKeysDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;
  const mcpUrl = `${issuer}/mcp`;
  const configs = clientConfigs(mcpUrl);
  // The new key is shown once, through a sealed cookie of this page (lib/account/new_key.ts).
  const newKeyCookie = { path: PATH, issuer, secretKey: deps.secretKey };

  // Account pages have no request to go back to.
  const expired = (c: Context<AppEnv>) => formExpired(c, (t) => t.common.reloadAndRetry);

  app.get(PATH, async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const created = await takeNewKey(c, newKeyCookie, who.account.userId);
    const notice: Text | undefined = c.req.query("revoked") === "1"
      ? (t) => t.account.keys.revoked
      : undefined;
    const code = c.req.query("error") ?? "";
    const error = Object.hasOwn(ERRORS, code) ? ERRORS[code] : undefined;
    // The one page with a script (copy buttons, /assets/pages.js): same-origin scripts only.
    c.header("Content-Security-Policy", SCRIPT_CSP);
    return renderPage(c, KeysPage, {
      csrf: csrfToken(c, deps),
      account: who.account,
      workspaces: await keysPageData(deps.sql, who.account.userId),
      created,
      notice,
      error,
      mcpUrl,
      configs,
      workspaceKeys: deps.config.mcpVariant === "B",
      operator: await isOperator(deps.sql, who.account.userId),
    });
  });

  app.post(PATH, async (c) => {
    const body = await readForm(c);
    const form = CreateForm.safeParse(body.one);
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) return expired(c);
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    // Checked here, before anything is stored: the page shows the form again with the reason.
    const limits = limitsFromForm(body.all("toolset"), form.data.toolset_choice === "1", form.data.read_only);
    if (!limits.ok) return c.redirect(`${PATH}?error=${limits.problem}`, 303);
    try {
      const { key } = await createOwnKey(deps.sql, who.account.userId, {
        workspaceId: form.data.workspace_id,
        name: form.data.name,
        companyId: form.data.company_id || undefined,
        // Workspace keys only exist in variant B; A refuses them at /mcp (legacy), so they are not offered there.
        forWorkspace: deps.config.mcpVariant === "B" && form.data.acts_for === "workspace",
        toolsets: limits.toolsets,
        readOnly: limits.readOnly,
      });
      await keepNewKey(c, newKeyCookie, {
        userId: who.account.userId,
        name: form.data.name.trim(),
        value: key,
        workspaceName: await workspaceName(deps.sql, form.data.workspace_id),
      });
      return c.redirect(PATH, 303);
    } catch (err) {
      if (err instanceof AppError) {
        const code = err.code === "invalid_input" || err.code === "access_denied" ? err.code : "not_found";
        return c.redirect(`${PATH}?error=${code}`, 303);
      }
      throw err;
    }
  });

  // Revoke's first step: a page naming the key; nothing changes on a GET.
  app.get(`${PATH}/revoke`, async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const key = await keyToRevoke(deps.sql, who.account.userId, c.req.query("key_id") ?? "");
    if (!key) return c.redirect(`${PATH}?error=no_key`, 303);
    return renderPage(c, RevokeKeyConfirmPage, { csrf: csrfToken(c, deps), apiKey: key });
  });

  app.post(`${PATH}/revoke`, async (c) => {
    const form = RevokeForm.safeParse(await c.req.parseBody());
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) return expired(c);
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const done = await revokeKeyAs(deps.sql, who.account.userId, form.data.key_id);
    return c.redirect(done ? `${PATH}?revoked=1` : `${PATH}?error=no_key`, 303);
  });

  return app;
}

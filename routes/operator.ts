// /operator/…: the operators' pages (issue 23) — pending approval requests (approve, deny) and the trusted apps and
// metadata-document prefixes (untrust, trust a prefix, remove one). Every page needs a signed-in account with the
// operator flag; every change is a POST with CSRF, decided through lib/oauth/approvals.ts (which audits it), and
// answered 303 back to its page.
import type { Context, Hono } from "hono";
import { z } from "zod";
import { isClientIdPrefix } from "../lib/config.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { render } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import {
  type Actor,
  decideRequest,
  isOperator,
  listPending,
  listTrustedClients,
  listTrustedPrefixes,
  recentDecisions,
  setTrust,
  trustPrefix,
  untrustPrefix,
} from "../lib/oauth/approvals.ts";
import { requireAccount, type SessionAccount } from "../lib/oauth/sessions.ts";
import { errorPage, formExpired } from "../lib/page_errors.ts";
import { RequestsPage } from "../views/operator.tsx";
import { ClientsPage, type ClientsPageProps } from "../views/operator_clients.tsx";
import type { OAuthRouteDeps } from "./oauth_deps.ts";

const REQUESTS = "/operator/requests";
const CLIENTS = "/operator/clients";
/** How many decisions /operator/clients shows. */
export const RECENT_DECISIONS_SHOWN = 20;

const RequestForm = z.object({ csrf: z.string().max(200), request_id: z.string().max(200) });
const ClientForm = z.object({ csrf: z.string().max(200), client_id: z.string().max(2000) });
const PrefixForm = z.object({ csrf: z.string().max(200), prefix: z.string().max(2000) });

// Fixed texts chosen by a code in the query, so a crafted link cannot put words on the page.
const REQUEST_NOTICES: Record<string, string> = {
  approved:
    "Approved. The app is now trusted for everyone on this server; every pending request for it was " +
    "approved with this one.",
  denied: "Denied. That person's request ended; the app stays untrusted.",
};
const CLIENT_NOTICES: Record<string, string> = {
  untrusted: "Untrusted. Its grants that carried workspace ended; people have to ask for approval again.",
  prefix_trusted: "Prefix trusted. Every metadata-document app under it may now use workspace tools.",
  prefix_known: "That prefix was already trusted. Nothing changed.",
  prefix_removed:
    "Prefix removed. Apps under it that are not trusted otherwise lost their grants that carried " +
    "workspace.",
};

export const BAD_PREFIX_REASON = "A prefix is an https URL with at least the host and a slash " +
  "(https://claude.ai/oauth/), or for development a loopback http one (http://127.0.0.1:3000/); no ? or #, no " +
  "spaces, at most 500 characters. Nothing was trusted.";

export function createOperatorRoutes(deps: OAuthRouteDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;
  const configPrefixes = deps.config.trustedClientIdPrefixes;

  /** The signed-in operator, a sign-in redirect, or the 403 page for an account without the operator flag. */
  async function requireOperator(c: Context<AppEnv>): Promise<SessionAccount | Response> {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    if (await isOperator(deps.sql, who.account.userId)) return who.account;
    return errorPage(
      c,
      "Operators only",
      `This page is for operators of this service, and ${who.account.email} is not one. Nothing was changed. ` +
        "An operator can make an account one with deno task admin user operator --email ….",
      403,
      "not_operator",
    );
  }

  const actorOf = (account: SessionAccount): Actor => ({ via: "page", operatorId: account.userId });
  const expired = (c: Context<AppEnv>) => formExpired(c, "Reload the page and try again.");

  app.get("/operator", (c) => c.redirect(REQUESTS, 303));

  app.get(REQUESTS, async (c) => {
    const account = await requireOperator(c);
    if (account instanceof Response) return account;
    const { requests, total } = await listPending(deps.sql);
    return render(
      c,
      RequestsPage({
        csrf: csrfToken(c, deps),
        account,
        requests,
        total,
        notice: REQUEST_NOTICES[c.req.query("done") ?? ""],
      }),
    );
  });

  for (const [path, approve] of [[`${REQUESTS}/approve`, true], [`${REQUESTS}/deny`, false]] as const) {
    app.post(path, async (c) => {
      const form = RequestForm.safeParse(await c.req.parseBody());
      if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) return expired(c);
      const account = await requireOperator(c);
      if (account instanceof Response) return account;
      const result = await decideRequest(deps.sql, form.data.request_id, approve, actorOf(account));
      if (result.kind === "unknown") {
        return errorPage(
          c,
          "No such request",
          "There is no approval request with that id. Nothing changed.",
          404,
          "not_found",
        );
      }
      if (result.kind === "already") {
        return errorPage(
          c,
          "Already decided",
          `This request was already ${result.status}. Nothing changed. Go back to the approval requests.`,
          409,
          "already_decided",
        );
      }
      return c.redirect(`${REQUESTS}?done=${result.status}`, 303);
    });
  }

  async function clientsPage(
    c: Context<AppEnv>,
    account: SessionAccount,
    extra: Pick<ClientsPageProps, "notice" | "prefixError"> = {},
    status = 200,
  ): Promise<Response> {
    const [{ clients, total }, prefixes, decisions] = await Promise.all([
      listTrustedClients(deps.sql),
      listTrustedPrefixes(deps.sql),
      recentDecisions(deps.sql, RECENT_DECISIONS_SHOWN),
    ]);
    const props = { csrf: csrfToken(c, deps), account, clients, total, configPrefixes, prefixes, decisions };
    return render(c, ClientsPage({ ...props, ...extra }), status);
  }

  app.get(CLIENTS, async (c) => {
    const account = await requireOperator(c);
    if (account instanceof Response) return account;
    return await clientsPage(c, account, { notice: CLIENT_NOTICES[c.req.query("done") ?? ""] });
  });

  app.post(`${CLIENTS}/untrust`, async (c) => {
    const form = ClientForm.safeParse(await c.req.parseBody());
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) return expired(c);
    const account = await requireOperator(c);
    if (account instanceof Response) return account;
    if (!(await setTrust(deps.sql, form.data.client_id, false, actorOf(account)))) {
      return errorPage(
        c,
        "No such app",
        "There is no app with that client id. Nothing changed.",
        404,
        "not_found",
      );
    }
    return c.redirect(`${CLIENTS}?done=untrusted`, 303);
  });

  app.post("/operator/prefixes/trust", async (c) => {
    const form = PrefixForm.safeParse(await c.req.parseBody());
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) return expired(c);
    const account = await requireOperator(c);
    if (account instanceof Response) return account;
    const prefix = form.data.prefix.trim();
    if (!isClientIdPrefix(prefix)) {
      return await clientsPage(c, account, {
        prefixError: { typed: form.data.prefix, reason: BAD_PREFIX_REASON },
      }, 400);
    }
    if (configPrefixes.includes(prefix)) return c.redirect(`${CLIENTS}?done=prefix_known`, 303);
    const added = await trustPrefix(deps.sql, prefix, actorOf(account));
    return c.redirect(`${CLIENTS}?done=${added ? "prefix_trusted" : "prefix_known"}`, 303);
  });

  app.post("/operator/prefixes/untrust", async (c) => {
    const form = PrefixForm.safeParse(await c.req.parseBody());
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) return expired(c);
    const account = await requireOperator(c);
    if (account instanceof Response) return account;
    if (await untrustPrefix(deps.sql, form.data.prefix, actorOf(account), configPrefixes)) {
      return c.redirect(`${CLIENTS}?done=prefix_removed`, 303);
    }
    if (configPrefixes.includes(form.data.prefix)) {
      return errorPage(
        c,
        "Set in the configuration",
        "That prefix is trusted by TRUSTED_CLIENT_ID_PREFIXES: remove it there and restart. Nothing changed.",
        409,
        "conflict",
      );
    }
    return errorPage(c, "No such prefix", "That prefix is not trusted. Nothing changed.", 404, "not_found");
  });

  return app;
}

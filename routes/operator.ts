// /operator/…: the operators' pages (issue 23) — pending approval requests (approve, deny) and the trusted apps and
// metadata-document prefixes (untrust, trust a prefix, remove one). Every page needs a signed-in account with the
// operator flag; every change is a POST with CSRF, decided through lib/oauth/approvals.ts (which audits it), and
// answered 303 back to its page. The pages, notices and refusals speak the operator's language (lib/i18n/*/operator.ts).
import type { Context, Hono } from "hono";
import { z } from "zod";
import { isClientIdPrefix } from "../lib/config.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import type { Messages, Text } from "../lib/i18n/mod.ts";
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
const REQUEST_NOTICES = ["approved", "denied"] as const;
const CLIENT_NOTICES = ["untrusted", "prefix_trusted", "prefix_known", "prefix_removed"] as const;

/** The notice a `?done=` code names among `known`, as a catalogue text; undefined for any other value. */
function noticeOf(
  known: readonly (keyof Messages["operator"]["notices"])[],
  done: string | undefined,
): Text | undefined {
  const code = known.find((k) => k === done);
  return code ? (t) => t.operator.notices[code] : undefined;
}

export function createOperatorRoutes(deps: OAuthRouteDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;
  const configPrefixes = deps.config.trustedClientIdPrefixes;

  /** The signed-in operator, a sign-in redirect, or the 403 page for an account without the operator flag. */
  async function requireOperator(c: Context<AppEnv>): Promise<SessionAccount | Response> {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    if (await isOperator(deps.sql, who.account.userId)) return who.account;
    const email = who.account.email;
    return errorPage(
      c,
      (t) => t.operator.operatorsOnlyTitle,
      (t) => t.operator.operatorsOnly(email),
      403,
      "not_operator",
    );
  }

  const actorOf = (account: SessionAccount): Actor => ({ via: "page", operatorId: account.userId });
  const expired = (c: Context<AppEnv>) => formExpired(c, (t) => t.common.reloadAndRetry);

  app.get("/operator", (c) => c.redirect(REQUESTS, 303));

  app.get(REQUESTS, async (c) => {
    const account = await requireOperator(c);
    if (account instanceof Response) return account;
    const { requests, total } = await listPending(deps.sql);
    return renderPage(c, RequestsPage, {
      csrf: csrfToken(c, deps),
      account,
      requests,
      total,
      notice: noticeOf(REQUEST_NOTICES, c.req.query("done")),
    });
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
          (t) => t.operator.noRequestTitle,
          (t) => t.operator.noRequest,
          404,
          "not_found",
        );
      }
      if (result.kind === "already") {
        const status = result.status;
        return errorPage(
          c,
          (t) => t.operator.alreadyDecidedTitle,
          (t) => t.operator.alreadyDecided(status),
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
    return renderPage(c, ClientsPage, { ...props, ...extra }, status);
  }

  app.get(CLIENTS, async (c) => {
    const account = await requireOperator(c);
    if (account instanceof Response) return account;
    return await clientsPage(c, account, { notice: noticeOf(CLIENT_NOTICES, c.req.query("done")) });
  });

  app.post(`${CLIENTS}/untrust`, async (c) => {
    const form = ClientForm.safeParse(await c.req.parseBody());
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) return expired(c);
    const account = await requireOperator(c);
    if (account instanceof Response) return account;
    if (!(await setTrust(deps.sql, form.data.client_id, false, actorOf(account)))) {
      return errorPage(c, (t) => t.operator.noAppTitle, (t) => t.operator.noApp, 404, "not_found");
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
        prefixError: { typed: form.data.prefix, reason: (t) => t.operator.badPrefix },
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
        (t) => t.operator.inConfigTitle,
        (t) => t.operator.inConfig,
        409,
        "conflict",
      );
    }
    return errorPage(c, (t) => t.operator.noPrefixTitle, (t) => t.operator.noPrefix, 404, "not_found");
  });

  return app;
}

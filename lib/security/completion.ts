// The end of a sign-in, whichever way it went: after the first factor, either a second factor is asked for
// (the person set one up, or a workspace requires one) or the sign-in completes; after the second factor, it
// completes. Completing adds the account to this browser's session with how it signed in (amr), records the
// event, and goes on: to the authorization request it belongs to, or to its return path.
//
// Exports: `afterFirstFactor(c, deps, first)` and `completeSignIn(c, deps, pending, amr)`; both answer a 303.
// Routes of every way in (password, passkey alone, the second-factor pages) end with one of them.
import type { Context } from "hono";
import type { Sql } from "../db/client.ts";
import type { Locale } from "../i18n/locale.ts";
import type { Logger } from "../log.ts";
import type { Ticket } from "../oauth/authorize.ts";
import { resumePath } from "../oauth/authorize_flow.ts";
import { addAccount, passwordChangePath, readBrowserSession, upgradeAccount } from "../oauth/sessions.ts";
import { readDevice, writeDevice } from "../oauth/sign_in.ts";
import { isMultiFactor } from "./amr.ts";
import { recordSecurityEvent, requestFacts } from "./events.ts";
import { factorsOf, hasSecondFactor, workspaceRequiringTwoFactor } from "./factors.ts";
import { clearPending, type PendingSignIn, startPending } from "./pending.ts";

export interface CompletionDeps {
  sql: Sql;
  log: Logger;
  secretKey: string;
  config: { issuer: string; trustedProxies: string[] };
}

/** Where the account pages send a person who signed in without a return path. */
export const DEFAULT_AFTER_SIGN_IN = "/account/apps";

/** A first factor proven: a password, or a passkey alone (whose amr may already be multi-factor). */
export interface FirstFactor {
  userId: string;
  email: string;
  amr: string[];
  ticket?: Ticket;
  returnTo?: string;
  /** the person's language setting (users.locale), when the way in read it: the second step's pages speak it */
  locale?: Locale | null;
}

/**
 * After the first factor: a person with a second factor set up is asked for it; so is one whose workspace
 * requires it (and who is walked through setting one up when they have none). A multi-factor first factor (a
 * user-verified passkey) completes at once.
 */
export async function afterFirstFactor(
  c: Context,
  deps: CompletionDeps,
  first: FirstFactor,
): Promise<Response> {
  if (!isMultiFactor(first.amr)) {
    const factors = await factorsOf(deps.sql, first.userId);
    const base = {
      userId: first.userId,
      email: first.email,
      amr: first.amr,
      ticket: first.ticket,
      returnTo: first.returnTo,
      locale: first.locale ?? undefined,
    };
    if (hasSecondFactor(factors)) {
      return c.redirect(await startPending(c, deps, { ...base, reason: "enrolled" }), 303);
    }
    const workspace = await workspaceRequiringTwoFactor(deps.sql, first.userId);
    if (workspace !== null) {
      return c.redirect(await startPending(c, deps, { ...base, reason: "policy", workspace }), 303);
    }
  }
  return await completeSignIn(c, deps, {
    userId: first.userId,
    email: first.email,
    amr: [],
    reason: "enrolled",
    ticket: first.ticket,
    returnTo: first.returnTo,
  }, first.amr);
}

/**
 * Completes a sign-in (or a step-up) with the methods `amr`: the account joins (or, on step-up, is upgraded in)
 * this browser's session, the event is recorded, and the browser goes on. A person whose password must change
 * (users.password_change_required) is sent to the change-password page first, which then goes on the same way.
 */
export async function completeSignIn(
  c: Context,
  deps: CompletionDeps,
  pending: PendingSignIn,
  amr: string[],
): Promise<Response> {
  clearPending(c, deps);
  const facts = requestFacts(c, deps.config.trustedProxies);
  let upgraded = false;
  if (pending.stepUp) {
    const session = await readBrowserSession(deps.sql, c, deps.config.issuer);
    upgraded = session !== null && await upgradeAccount(deps.sql, session.sessionId, pending.userId, amr);
    // Signed out (or timed out) while the step-up was under way: a second factor alone signs nobody in again;
    // the request starts over at sign-in.
    if (!upgraded) {
      const back = pending.ticket ? await resumePath(deps.secretKey, { req: pending.ticket.req }) : "/signin";
      return c.redirect(back, 303);
    }
  }
  if (!upgraded) {
    await addAccount(deps.sql, c, deps.config.issuer, pending.userId, amr);
    writeDevice(c, deps, readDevice(c, deps), pending.email);
  }
  await recordSecurityEvent(deps.sql, deps.log, {
    kind: upgraded ? "step_up" : "sign_in",
    userId: pending.userId,
    ...facts,
    detail: { amr: amr.join(" ") },
  });
  const next = pending.ticket
    ? await resumePath(deps.secretKey, {
      req: pending.ticket.req,
      userId: pending.userId,
      freshLogin: upgraded ? pending.ticket.freshLogin : true,
    })
    : (pending.returnTo ?? DEFAULT_AFTER_SIGN_IN);
  const [user] = await deps.sql<{ required: boolean }[]>`
    select password_change_required as required from users where id = ${pending.userId}`;
  if (user?.required) return c.redirect(passwordChangePath(next), 303);
  return c.redirect(next, 303);
}

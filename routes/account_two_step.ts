// /account/security/two-step: the signed-in person's authenticator app and recovery codes.
// - GET: status (app on or off, recovery codes left), the codes just created (shown once), Turn off, New codes.
// - GET/POST /account/security/two-step/setup: a fresh secret as QR code and manual key; a first code confirms
//   it (not active before), and a first set of recovery codes is made.
// - POST /account/security/two-step/off (csrf, password) and /account/security/two-step/recovery-codes (csrf,
//   password): both ask for the password again, so a borrowed or stolen session alone cannot weaken the account
//   or take its recovery codes; wrong passwords count in the second-factor brake.
import type { Context, Hono } from "hono";
import { z } from "zod";
import type { Config } from "../lib/config.ts";
import { SCRYPT_PARAMS, type ScryptParams, verifyPassword } from "../lib/crypto.ts";
import type { Sql } from "../lib/db/client.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { readForm } from "../lib/http/form.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { type Text, textNamed } from "../lib/i18n/mod.ts";
import type { Logger } from "../lib/log.ts";
import { requireAccount, type SessionAccount } from "../lib/oauth/sessions.ts";
import { formExpired } from "../lib/page_errors.ts";
import { securityEvents } from "../lib/security/events.ts";
import { factorsOf, hasSecondFactor } from "../lib/security/factors.ts";
import { createRecoveryCodes } from "../lib/security/recovery_codes.ts";
import { secondFactorBrake } from "../lib/security/second_factor_brake.ts";
import { keepCodes, takeCodes } from "../lib/security/shown_once.ts";
import { confirmTotp, openSetup, removeTotp } from "../lib/security/totp.ts";
import { SecondFactorThrottledPage } from "../views/second_factor.tsx";
import { TotpSetupPage, TwoStepPage } from "../views/two_step.tsx";
import { CODE_MESSAGES, totpSetupFor } from "./second_factor_pages.ts";

export interface AccountTwoStepDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  secretKey: string;
  /** Test-only: the scrypt cost of test password hashes */
  scrypt?: ScryptParams;
}

const PATH = "/account/security/two-step";
const str = (max: number) => z.string().max(max).optional();
const Form = z.object({ csrf: str(200), code: str(40), setup: str(1000), password: str(1024) });

// Fixed texts chosen by a word in the query, so a crafted link cannot put words on the page.
const NOTICES: Record<string, Text> = {
  on: (t) => t.security.twoStepNotices.on,
  off: (t) => t.security.twoStepNotices.off,
  codes: (t) => t.security.twoStepNotices.codes,
};
const ERRORS: Record<string, Text> = {
  password: (t) => t.security.twoStepErrors.password,
  no_factor: (t) => t.security.twoStepErrors.noFactor,
};

export function createAccountTwoStepRoutes(deps: AccountTwoStepDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const sql = deps.sql;
  const issuer = deps.config.issuer;
  const codesCookie = { path: PATH, issuer, secretKey: deps.secretKey };

  const event = securityEvents(deps);

  /** The signed-in account and the posted form with a valid CSRF token, or the answer that refuses it. */
  async function posted(c: Context<AppEnv>) {
    const who = await requireAccount(sql, c, issuer);
    if (who instanceof Response) return who;
    const r = Form.safeParse((await readForm(c)).one);
    if (!r.success || !verifyCsrf(c, deps, r.data.csrf)) {
      return formExpired(c, (t) => t.common.reloadAndRetry);
    }
    return { account: who.account, f: r.data };
  }

  async function brake(c: Context<AppEnv>, account: SessionAccount, factor: string) {
    const slot = await secondFactorBrake(sql, account.userId);
    if (slot.ok) return slot;
    await event(c, "second_factor_throttled", account.userId, { factor });
    c.header("Retry-After", String(slot.retryAfter));
    return renderPage(c, SecondFactorThrottledPage, { retryAfter: slot.retryAfter, back: PATH }, 429);
  }

  /** The password check of a sensitive change, braked; true when right (its slot given back). */
  async function passwordRight(
    c: Context<AppEnv>,
    account: SessionAccount,
    password: string,
    action: string,
  ) {
    const slot = await brake(c, account, "password");
    if (slot instanceof Response) return slot;
    const [user] = await sql<
      { hash: string }[]
    >`select password_hash as hash from users where id = ${account.userId}`;
    if (await verifyPassword(password.slice(0, 1024), user?.hash, deps.scrypt ?? SCRYPT_PARAMS)) {
      await slot.release();
      return true;
    }
    await event(c, "second_factor_failed", account.userId, { factor: "password", action });
    return false;
  }

  app.get(PATH, async (c) => {
    const who = await requireAccount(sql, c, issuer);
    if (who instanceof Response) return who;
    const factors = await factorsOf(sql, who.account.userId);
    const codes = await takeCodes(c, codesCookie, who.account.userId);
    return renderPage(c, TwoStepPage, {
      csrf: csrfToken(c, deps),
      email: who.account.email,
      totp: factors.totp,
      passkeys: factors.passkeys,
      recoveryCodesLeft: factors.recoveryCodesLeft,
      codes,
      notice: textNamed(NOTICES, c.req.query("done")),
      error: textNamed(ERRORS, c.req.query("error")),
    });
  });

  app.get(`${PATH}/setup`, async (c) => {
    const who = await requireAccount(sql, c, issuer);
    if (who instanceof Response) return who;
    if ((await factorsOf(sql, who.account.userId)).totp) return c.redirect(PATH, 303);
    const totp = await totpSetupFor(c, deps.secretKey, who.account.userId, who.account.email);
    return renderPage(c, TotpSetupPage, { csrf: csrfToken(c, deps), totp });
  });

  app.post(`${PATH}/setup`, async (c) => {
    const form = await posted(c);
    if (form instanceof Response) return form;
    const { account, f } = form;
    const page = async (problem: Text, secret?: string) => {
      const totp = await totpSetupFor(c, deps.secretKey, account.userId, account.email, secret);
      return renderPage(c, TotpSetupPage, { csrf: csrfToken(c, deps), totp, problem }, 400);
    };
    const secret = await openSetup(deps.secretKey, account.userId, f.setup ?? "");
    if (!secret) return await page(CODE_MESSAGES.setup_expired);
    const slot = await brake(c, account, "totp");
    if (slot instanceof Response) return slot;
    const result = await confirmTotp(sql, deps.secretKey, account.userId, secret, f.code ?? "");
    if (!result.ok && result.reason === "already_set_up") {
      await slot.release();
      return c.redirect(PATH, 303);
    }
    if (!result.ok) {
      await event(c, "second_factor_failed", account.userId, { factor: "totp", reason: "setup" });
      return await page(CODE_MESSAGES.wrong_code, secret);
    }
    await slot.release();
    await event(c, "factor_added", account.userId, { factor: "totp" });
    const codes = await createRecoveryCodes(sql, account.userId);
    await event(c, "recovery_codes_created", account.userId, { count: String(codes.length) });
    await keepCodes(c, codesCookie, account.userId, codes);
    return c.redirect(`${PATH}?done=on`, 303);
  });

  app.post(`${PATH}/off`, async (c) => {
    const form = await posted(c);
    if (form instanceof Response) return form;
    const { account, f } = form;
    const right = await passwordRight(c, account, f.password ?? "", "turn_off");
    if (right instanceof Response) return right;
    if (!right) return c.redirect(`${PATH}?error=password`, 303);
    if (await removeTotp(sql, account.userId)) {
      await event(c, "factor_removed", account.userId, { factor: "totp" });
    }
    return c.redirect(`${PATH}?done=off`, 303);
  });

  app.post(`${PATH}/recovery-codes`, async (c) => {
    const form = await posted(c);
    if (form instanceof Response) return form;
    const { account, f } = form;
    if (!hasSecondFactor(await factorsOf(sql, account.userId))) {
      return c.redirect(`${PATH}?error=no_factor`, 303);
    }
    const right = await passwordRight(c, account, f.password ?? "", "recovery_codes");
    if (right instanceof Response) return right;
    if (!right) return c.redirect(`${PATH}?error=password`, 303);
    const codes = await createRecoveryCodes(sql, account.userId);
    await event(c, "recovery_codes_created", account.userId, { count: String(codes.length) });
    await keepCodes(c, codesCookie, account.userId, codes);
    return c.redirect(`${PATH}?done=codes`, 303);
  });

  return app;
}

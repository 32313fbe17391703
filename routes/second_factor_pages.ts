// The second step of a sign-in, after the password (lib/security/completion.ts `afterFirstFactor` sends the
// browser here with the pending sign-in sealed in `p`, lib/security/pending.ts):
// - GET /signin/verify?p=: a code from the authenticator app, a recovery code, or "Use a passkey instead"
//   (/signin/verify/passkey, the passkey pages); a person with no second factor yet (a workspace requires one)
//   is walked through setting up an app instead: GET/POST /signin/setup?p=, then the recovery codes once
//   (GET /signin/setup/codes?p=), then Continue.
// - POST /signin/verify/totp and /signin/verify/recovery (csrf, p, code); POST /signin/verify/continue (csrf, p,
//   done) after a page shown between the code and the end of the sign-in (the new recovery codes; few left).
// Every code goes through the second-factor brake (lib/security/second_factor_brake.ts) and the security log;
// a correct one ends in `completeSignIn` with amr pwd+otp+mfa.
import type { Context, Hono } from "hono";
import { z } from "zod";
import { renderSVG } from "uqr";
import type { Config } from "../lib/config.ts";
import type { Sql } from "../lib/db/client.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { readForm } from "../lib/http/form.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import type { Messages, Text } from "../lib/i18n/mod.ts";
import type { Logger } from "../lib/log.ts";
import { formExpired } from "../lib/page_errors.ts";
import { open, seal } from "../lib/secret_box.ts";
import { withSecondFactor } from "../lib/security/amr.ts";
import { completeSignIn } from "../lib/security/completion.ts";
import { securityEvents } from "../lib/security/events.ts";
import { factorsOf, hasSecondFactor } from "../lib/security/factors.ts";
import { type PendingSignIn, readPending } from "../lib/security/pending.ts";
import { createRecoveryCodes, RECOVERY_CODES_LOW, useRecoveryCode } from "../lib/security/recovery_codes.ts";
import { secondFactorBrake } from "../lib/security/second_factor_brake.ts";
import { keepCodes, takeCodes } from "../lib/security/shown_once.ts";
import {
  confirmTotp,
  groupKey,
  newTotpSecret,
  openSetup,
  otpauthUri,
  sealSetup,
  verifyTotp,
} from "../lib/security/totp.ts";
import {
  LowRecoveryCodesPage,
  PendingExpiredPage,
  PolicySetupIntroPage,
  SecondFactorThrottledPage,
  SignInCodesPage,
  SignInSetupPage,
  VerifyPage,
  type VerifyPageProps,
} from "../views/second_factor.tsx";
import type { TotpSetup } from "../views/two_step.tsx";

export interface SecondFactorDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  secretKey: string;
}

const str = (max: number) => z.string().max(max).optional();
const Form = z.object({ csrf: str(200), p: str(12000), code: str(40), setup: str(1000), done: str(1000) });
type SecondFactorForm = z.infer<typeof Form>;

/** What went wrong with a code, in the page's language (t.security.codeProblems). */
export const CODE_MESSAGES = {
  wrong_code: (t: Messages) => t.security.codeProblems.wrongCode,
  used: (t: Messages) => t.security.codeProblems.used,
  not_set_up: (t: Messages) => t.security.codeProblems.notSetUp,
  recovery: (t: Messages) => t.security.codeProblems.recovery,
  setup_expired: (t: Messages) => t.security.codeProblems.setupExpired,
} as const;

/** Purpose of the proof that a second factor passed, carried by a form shown before the sign-in completes. */
const DONE_PURPOSE = "second-factor-done";
const DONE_TTL_SECONDS = 10 * 60;

/** The QR code and manual key of a new secret, and the secret sealed for the confirm form. */
export async function totpSetupFor(
  c: Context<AppEnv>,
  secretKey: string,
  userId: string,
  email: string,
  secret = newTotpSecret(),
): Promise<TotpSetup> {
  const issuer = c.get("branding")?.name ?? "Portico";
  return {
    qrSvg: renderSVG(otpauthUri(secret, email, issuer), { border: 2 }),
    manualKey: groupKey(secret),
    setup: await sealSetup(secretKey, userId, secret),
  };
}

export function createSecondFactorRoutes(deps: SecondFactorDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const sql = deps.sql;
  const codesCookie = { path: "/signin/setup", issuer: deps.config.issuer, secretKey: deps.secretKey };

  const event = securityEvents(deps);

  const expired = (c: Context<AppEnv>) => renderPage(c, PendingExpiredPage, {}, 400);

  /** The posted form with a valid CSRF token and pending sign-in, or the answer that refuses it. */
  async function posted(
    c: Context<AppEnv>,
  ): Promise<{ f: SecondFactorForm; pending: PendingSignIn } | Response> {
    const r = Form.safeParse((await readForm(c)).one);
    if (!r.success || !verifyCsrf(c, deps, r.data.csrf)) {
      return formExpired(c, (t) => t.security.signInAgainThen);
    }
    const pending = await readPending(c, deps, r.data.p);
    if (!pending) return expired(c);
    return { f: r.data, pending };
  }

  /** Counts the attempt; a braked one is answered 429 with when to try again. */
  async function brake(c: Context<AppEnv>, pending: PendingSignIn, factor: string, back?: string) {
    const slot = await secondFactorBrake(sql, pending.userId);
    if (slot.ok) return slot;
    await event(c, "second_factor_throttled", pending.userId, { factor });
    c.header("Retry-After", String(slot.retryAfter));
    return renderPage(c, SecondFactorThrottledPage, { retryAfter: slot.retryAfter, back }, 429);
  }

  async function verifyPage(
    c: Context<AppEnv>,
    p: string,
    pending: PendingSignIn,
    problem?: VerifyPageProps["problem"],
  ) {
    const factors = await factorsOf(sql, pending.userId);
    return renderPage(c, VerifyPage, {
      csrf: csrfToken(c, deps),
      p,
      email: pending.email,
      totp: factors.totp,
      passkeys: factors.passkeys > 0,
      recoveryCodesLeft: factors.recoveryCodesLeft,
      stepUp: pending.stepUp,
      problem,
    }, problem ? 400 : 200);
  }

  const done = (pending: PendingSignIn) =>
    seal(
      deps.secretKey,
      DONE_PURPOSE,
      JSON.stringify({
        userId: pending.userId,
        bind: pending.bind,
        exp: Date.now() / 1000 + DONE_TTL_SECONDS,
      }),
    );

  async function provedDone(pending: PendingSignIn, sealed: string | undefined): Promise<boolean> {
    if (!sealed) return false;
    try {
      const d = JSON.parse(await open(deps.secretKey, DONE_PURPOSE, sealed));
      return d.userId === pending.userId && d.bind === pending.bind && d.exp > Date.now() / 1000;
    } catch {
      return false;
    }
  }

  const complete = (c: Context<AppEnv>, pending: PendingSignIn) =>
    completeSignIn(c, deps, pending, withSecondFactor(pending.amr, "otp"));

  app.get("/signin/verify", async (c) => {
    const p = c.req.query("p") ?? "";
    const pending = await readPending(c, deps, p);
    if (!pending) return expired(c);
    if (!hasSecondFactor(await factorsOf(sql, pending.userId))) {
      return renderPage(c, PolicySetupIntroPage, { p, email: pending.email, workspace: pending.workspace });
    }
    return await verifyPage(c, p, pending);
  });

  app.post("/signin/verify/totp", async (c) => {
    const form = await posted(c);
    if (form instanceof Response) return form;
    const { f, pending } = form;
    const slot = await brake(c, pending, "totp");
    if (slot instanceof Response) return slot;
    const result = await verifyTotp(sql, deps.secretKey, pending.userId, f.code ?? "");
    if (!result.ok) {
      await event(c, "second_factor_failed", pending.userId, { factor: "totp", reason: result.reason });
      return await verifyPage(c, f.p!, pending, { form: "totp", message: CODE_MESSAGES[result.reason] });
    }
    await slot.release();
    return await complete(c, pending);
  });

  app.post("/signin/verify/recovery", async (c) => {
    const form = await posted(c);
    if (form instanceof Response) return form;
    const { f, pending } = form;
    const slot = await brake(c, pending, "recovery_code");
    if (slot instanceof Response) return slot;
    const left = await useRecoveryCode(sql, pending.userId, f.code ?? "");
    if (left === null) {
      await event(c, "second_factor_failed", pending.userId, { factor: "recovery_code" });
      return await verifyPage(c, f.p!, pending, { form: "recovery", message: CODE_MESSAGES.recovery });
    }
    await slot.release();
    await event(c, "recovery_code_used", pending.userId, { left: String(left) });
    if (left > RECOVERY_CODES_LOW) return await complete(c, pending);
    // Said before the sign-in goes on (to an application, perhaps): Continue completes it.
    return renderPage(c, LowRecoveryCodesPage, {
      csrf: csrfToken(c, deps),
      p: f.p!,
      done: await done(pending),
      left,
    });
  });

  app.post("/signin/verify/continue", async (c) => {
    const form = await posted(c);
    if (form instanceof Response) return form;
    if (!await provedDone(form.pending, form.f.done)) return expired(c);
    return await complete(c, form.pending);
  });

  // The set-up walk: only for a person with no second factor yet (else the code is asked for as usual).
  app.get("/signin/setup", async (c) => {
    const p = c.req.query("p") ?? "";
    const pending = await readPending(c, deps, p);
    if (!pending) return expired(c);
    if (hasSecondFactor(await factorsOf(sql, pending.userId))) {
      return c.redirect(`/signin/verify?p=${encodeURIComponent(p)}`, 303);
    }
    const totp = await totpSetupFor(c, deps.secretKey, pending.userId, pending.email);
    return renderPage(c, SignInSetupPage, { csrf: csrfToken(c, deps), p, email: pending.email, totp });
  });

  app.post("/signin/setup", async (c) => {
    const form = await posted(c);
    if (form instanceof Response) return form;
    const { f, pending } = form;
    const p = f.p!;
    if (hasSecondFactor(await factorsOf(sql, pending.userId))) {
      return c.redirect(`/signin/verify?p=${encodeURIComponent(p)}`, 303);
    }
    const page = async (problem: Text, secret?: string) => {
      const totp = await totpSetupFor(c, deps.secretKey, pending.userId, pending.email, secret);
      const props = { csrf: csrfToken(c, deps), p, email: pending.email, totp, problem };
      return renderPage(c, SignInSetupPage, props, 400);
    };
    const secret = await openSetup(deps.secretKey, pending.userId, f.setup ?? "");
    if (!secret) return await page(CODE_MESSAGES.setup_expired);
    const slot = await brake(c, pending, "totp", `/signin/setup?p=${encodeURIComponent(p)}`);
    if (slot instanceof Response) return slot;
    const result = await confirmTotp(sql, deps.secretKey, pending.userId, secret, f.code ?? "");
    if (!result.ok && result.reason === "already_set_up") {
      return c.redirect(`/signin/verify?p=${encodeURIComponent(p)}`, 303);
    }
    if (!result.ok) {
      await event(c, "second_factor_failed", pending.userId, { factor: "totp", reason: "setup" });
      return await page(CODE_MESSAGES.wrong_code, secret);
    }
    await slot.release();
    await event(c, "factor_added", pending.userId, { factor: "totp" });
    const codes = await createRecoveryCodes(sql, pending.userId);
    await event(c, "recovery_codes_created", pending.userId, { count: String(codes.length) });
    await keepCodes(c, codesCookie, pending.userId, codes);
    return c.redirect(`/signin/setup/codes?p=${encodeURIComponent(p)}`, 303);
  });

  app.get("/signin/setup/codes", async (c) => {
    const p = c.req.query("p") ?? "";
    const pending = await readPending(c, deps, p);
    if (!pending) return expired(c);
    const codes = await takeCodes(c, codesCookie, pending.userId);
    // Shown once: a reload asks for a code from the app, which is set up now.
    if (!codes) return c.redirect(`/signin/verify?p=${encodeURIComponent(p)}`, 303);
    return renderPage(c, SignInCodesPage, { csrf: csrfToken(c, deps), p, done: await done(pending), codes });
  });

  return app;
}

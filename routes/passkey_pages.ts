// Signing in with a passkey: alone, from the sign-in page (also inside an authorization request: the sign-in
// form's `ticket`), and as the second factor of a pending sign-in (/signin/verify/passkey?p=); plus the pages'
// script, /assets/passkeys.js. The ceremony endpoints speak JSON to that script: the options, then the
// authenticator's answer, which is answered `{ redirect }` (the script navigates) or an error:
// 403 invalid_csrf, 400 invalid_request, 400 challenge_expired (none, spent or old: ask for options again),
// 400 pending_expired (second factor: the sign-in is gone), 401 passkey_refused (unknown credential, another
// person's, wrong signature, challenge, origin or RP ID, a counter gone backwards, no user verification).
import type { Context, Hono } from "hono";
import { z } from "zod";
import type { Config } from "../lib/config.ts";
import type { Sql } from "../lib/db/client.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { isLocale, messages, type Text, textOf } from "../lib/i18n/mod.ts";
import type { Logger } from "../lib/log.ts";
import { clientIp } from "../lib/http/client_ip.ts";
import { openTicket, type Ticket } from "../lib/oauth/authorize.ts";
import { ADDRESS_BRAKE, brakeBucket } from "../lib/oauth/sign_in.ts";
import { release, reserve } from "../lib/rate_limit/mod.ts";
import { safeReturnPath } from "../lib/oauth/sessions.ts";
import { errorPage } from "../lib/page_errors.ts";
import { passkeyAmr, withSecondFactor } from "../lib/security/amr.ts";
import { afterFirstFactor, completeSignIn, DEFAULT_AFTER_SIGN_IN } from "../lib/security/completion.ts";
import { recordSecurityEvent, requestFacts } from "../lib/security/events.ts";
import { keepChallenge, takeChallenge } from "../lib/security/passkey_challenge.ts";
import { authenticationOptions, relyingParty, verifyAuthentication } from "../lib/security/passkeys.ts";
import { type PendingSignIn, readPending } from "../lib/security/pending.ts";
import { secondFactorBrake } from "../lib/security/second_factor_brake.ts";
import { PASSKEY_CSP, PASSKEYS_SCRIPT_PATH, SecondFactorPasskeyPage } from "../views/passkeys.tsx";
import { PASSKEYS_SCRIPT } from "../views/passkeys_script.generated.ts";

export interface PasskeyPageDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  secretKey: string;
}

const b64 = (max: number) => z.string().max(max).regex(/^[A-Za-z0-9_-]*$/);

/** What navigator.credentials.get() answered, as @simplewebauthn/browser sends it; every field bounded. */
export const AssertionJson = z.object({
  id: b64(1400),
  rawId: b64(1400),
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: b64(4000),
    authenticatorData: b64(4000),
    signature: b64(2000),
    userHandle: b64(200).optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
});

const SignInBody = z.object({
  csrf: z.string().max(200),
  ticket: z.string().max(8000).optional(),
  return_to: z.string().max(2000).optional(),
});
const PendingBody = z.object({ csrf: z.string().max(200), p: z.string().max(12000) });

/**
 * A JSON error answer of the ceremony endpoints; the script shows `error_description`, so it speaks the page's
 * language (the request's: the browser sends the same Accept-Language, and a sign-in's ui_locales is read first).
 */
export function refuse(
  c: Context<AppEnv>,
  status: 400 | 401 | 403 | 409 | 429,
  error: string,
  description: Text,
  headers: Record<string, string> = {},
) {
  return c.json(
    { error, error_description: textOf(messages(c), description) },
    status,
    { "Cache-Control": "no-store", ...headers },
  );
}

export const invalidCsrf = (c: Context<AppEnv>) =>
  refuse(c, 403, "invalid_csrf", (t) => t.security.passkeys.errors.pageExpired);
export const challengeExpired = (c: Context<AppEnv>) =>
  refuse(c, 400, "challenge_expired", (t) => t.security.passkeys.errors.challengeExpired);
export const malformedAnswer = (c: Context<AppEnv>) =>
  refuse(c, 400, "invalid_request", (t) => t.security.passkeys.errors.malformed);
/** Too many attempts: 429 with Retry-After. */
export const throttled = (c: Context<AppEnv>, retryAfter: number) =>
  refuse(
    c,
    429,
    "throttled",
    (t) => t.security.passkeys.errors.throttled(Math.ceil(retryAfter / 60)),
    { "Retry-After": String(retryAfter) },
  );
const passkeyRefused = (c: Context<AppEnv>) =>
  refuse(c, 401, "passkey_refused", (t) => t.security.passkeys.errors.refused);
const pendingExpired = (c: Context<AppEnv>) =>
  refuse(c, 400, "pending_expired", (t) => t.security.passkeys.errors.pendingExpired);

/** The JSON body, or null when it is not a JSON object. */
export async function readJson(c: Context<AppEnv>): Promise<Record<string, unknown> | null> {
  try {
    const body = await c.req.json();
    return typeof body === "object" && body !== null && !Array.isArray(body) ? body : null;
  } catch {
    return null;
  }
}

/** A 303 from the sign-in completion, as the script's `{ redirect }` (its cookies kept). */
export function asJsonRedirect(res: Response): Response {
  const headers = new Headers(res.headers);
  const location = headers.get("location");
  headers.delete("location");
  headers.set("content-type", "application/json");
  headers.set("cache-control", "no-store");
  return new Response(JSON.stringify({ redirect: location }), { status: 200, headers });
}

export function createPasskeyPageRoutes(deps: PasskeyPageDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const rp = relyingParty(deps.config);
  const facts = (c: Context<AppEnv>) => requestFacts(c, deps.config.trustedProxies);

  app.get(PASSKEYS_SCRIPT_PATH, (c) => {
    c.header("Content-Type", "text/javascript; charset=utf-8");
    c.header("Cache-Control", "public, max-age=3600");
    return c.body(PASSKEYS_SCRIPT);
  });

  // Sign-in with a passkey alone: any discoverable passkey of this site, with user verification.
  app.post("/signin/passkey/options", async (c) => {
    const body = SignInBody.safeParse(await readJson(c));
    if (!body.success || !verifyCsrf(c, deps, body.data.csrf)) return invalidCsrf(c);
    const options = await authenticationOptions(deps.sql, rp);
    await keepChallenge(c, deps, { challenge: options.challenge, purpose: "sign-in" });
    return c.json(options, 200, { "Cache-Control": "no-store" });
  });

  app.post("/signin/passkey", async (c) => {
    const raw = await readJson(c);
    const body = SignInBody.safeParse(raw);
    if (!body.success || !verifyCsrf(c, deps, body.data.csrf)) return invalidCsrf(c);
    const response = AssertionJson.safeParse(raw?.response);
    if (!response.success) return malformedAnswer(c);
    let ticket: Ticket | undefined;
    if (body.data.ticket !== undefined) {
      const opened = await openTicket(deps.secretKey, body.data.ticket, c);
      if (!opened) {
        return refuse(c, 400, "request_expired", (t) => t.security.passkeys.errors.requestExpired);
      }
      ticket = { req: opened.req };
    }
    // The password form's per-address brake covers passkey attempts too: each costs a spent challenge and a
    // lookup, and a refused one is counted; a signed-in one gives its slot back.
    const slot = await reserve(
      deps.sql,
      brakeBucket.address(clientIp(c, deps.config.trustedProxies)),
      ADDRESS_BRAKE,
    );
    if (!slot.ok) {
      await recordSecurityEvent(deps.sql, deps.log, {
        kind: "sign_in_throttled",
        ...facts(c),
        detail: { method: "passkey", brake: "address" },
      });
      return throttled(c, slot.retryAfter);
    }
    const challenge = await takeChallenge(c, deps, "sign-in");
    if (!challenge) return challengeExpired(c);
    const result = await verifyAuthentication(deps.sql, rp, {
      challenge,
      response: response.data,
      requireUserVerification: true,
    });
    if (result.ok) await release(deps.sql, slot);
    if (!result.ok) {
      await recordSecurityEvent(deps.sql, deps.log, {
        kind: "sign_in_failed",
        userId: result.userId,
        ...facts(c),
        detail: { method: "passkey", reason: result.reason },
      });
      return passkeyRefused(c);
    }
    const [user] = await deps.sql<{ email: string; locale: string | null }[]>`
      select email, locale from users where id = ${result.userId}`;
    return asJsonRedirect(
      await afterFirstFactor(c, deps, {
        userId: result.userId,
        email: user.email,
        locale: isLocale(user.locale) ? user.locale : null,
        amr: passkeyAmr(result.userVerified),
        ticket,
        returnTo: ticket ? undefined : (safeReturnPath(body.data.return_to) ?? DEFAULT_AFTER_SIGN_IN),
      }),
    );
  });

  // A passkey as the second factor of a pending sign-in (or step-up): only the pending person's passkeys.
  const expiredPage = (c: Context<AppEnv>) =>
    errorPage(
      c,
      (t) => t.security.expiredHeading,
      (t) => t.security.passkeys.startAgain,
      400,
      "pending_expired",
    );

  app.get("/signin/verify/passkey", async (c) => {
    const p = c.req.query("p");
    const pending = await readPending(c, deps, p);
    if (!pending) return expiredPage(c);
    c.header("Content-Security-Policy", PASSKEY_CSP);
    return renderPage(c, SecondFactorPasskeyPage, { csrf: csrfToken(c, deps), p: p!, email: pending.email });
  });

  const readPendingBody = async (c: Context<AppEnv>) => {
    const raw = await readJson(c);
    const body = PendingBody.safeParse(raw);
    if (!body.success || !verifyCsrf(c, deps, body.data.csrf)) return { answer: invalidCsrf(c) };
    const pending = await readPending(c, deps, body.data.p);
    if (!pending) return { answer: pendingExpired(c) };
    return { pending, raw };
  };

  app.post("/signin/verify/passkey/options", async (c) => {
    const read = await readPendingBody(c);
    if (!read.pending) return read.answer;
    const options = await authenticationOptions(deps.sql, rp, read.pending.userId);
    await keepChallenge(c, deps, {
      challenge: options.challenge,
      purpose: "second-factor",
      userId: read.pending.userId,
    });
    return c.json(options, 200, { "Cache-Control": "no-store" });
  });

  const secondFactorFailed = async (c: Context<AppEnv>, pending: PendingSignIn, reason: string) => {
    await recordSecurityEvent(deps.sql, deps.log, {
      kind: "second_factor_failed",
      userId: pending.userId,
      ...facts(c),
      detail: { factor: "passkey", reason },
    });
  };

  app.post("/signin/verify/passkey", async (c) => {
    const read = await readPendingBody(c);
    if (!read.pending) return read.answer;
    const pending = read.pending;
    const response = AssertionJson.safeParse(read.raw?.response);
    if (!response.success) return malformedAnswer(c);
    const challenge = await takeChallenge(c, deps, "second-factor", pending.userId);
    if (!challenge) return challengeExpired(c);
    // The same brake as one-time codes (lib/security/second_factor_brake.ts): counted before the check, a
    // verified passkey gives its slot back.
    const slot = await secondFactorBrake(deps.sql, pending.userId);
    if (!slot.ok) {
      await recordSecurityEvent(deps.sql, deps.log, {
        kind: "second_factor_throttled",
        userId: pending.userId,
        ...facts(c),
        detail: { factor: "passkey" },
      });
      return throttled(c, slot.retryAfter);
    }
    const result = await verifyAuthentication(deps.sql, rp, {
      challenge,
      response: response.data,
      forUser: pending.userId,
      requireUserVerification: false,
    });
    if (!result.ok) {
      await secondFactorFailed(c, pending, result.reason);
      return passkeyRefused(c);
    }
    await slot.release();
    return asJsonRedirect(await completeSignIn(c, deps, pending, withSecondFactor(pending.amr, "hwk")));
  });

  return app;
}

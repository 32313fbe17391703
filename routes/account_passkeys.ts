// /account/security/passkeys: the signed-in person's passkeys — list, add (a WebAuthn registration through
// /assets/passkeys.js: options, then the authenticator's answer, JSON as in routes/passkey_pages.ts), rename, and
// remove after a confirmation page (GET, then a POST with CSRF). Adding and removing are security events
// (factor_added / factor_removed with { factor: "passkey" }).
import type { Context, Hono } from "hono";
import { z } from "zod";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { type Text, textNamed } from "../lib/i18n/mod.ts";
import { currentAccount, readBrowserSession, requireAccount } from "../lib/oauth/sessions.ts";
import { formExpired } from "../lib/page_errors.ts";
import { recordSecurityEvent, requestFacts } from "../lib/security/events.ts";
import { keepChallenge, takeChallenge } from "../lib/security/passkey_challenge.ts";
import {
  cleanName,
  defaultPasskeyName,
  findPasskey,
  listPasskeys,
  MAX_PASSKEYS,
  registrationOptions,
  relyingParty,
  removePasskey,
  renamePasskey,
  verifyRegistration,
} from "../lib/security/passkeys.ts";
import {
  PASSKEY_CSP,
  PASSKEYS_PATH,
  PasskeysPage,
  RemovePasskeyConfirmPage,
  RenamePasskeyPage,
} from "../views/passkeys.tsx";
import {
  asJsonRedirect,
  challengeExpired,
  invalidCsrf,
  malformedAnswer,
  type PasskeyPageDeps,
  readJson,
  refuse,
} from "./passkey_pages.ts";

const b64 = (max: number) => z.string().max(max).regex(/^[A-Za-z0-9_-]*$/);

/** What navigator.credentials.create() answered, as @simplewebauthn/browser sends it; every field bounded. */
const AttestationJson = z.object({
  id: b64(1400),
  rawId: b64(1400),
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: b64(4000),
    attestationObject: b64(64_000),
    authenticatorData: b64(64_000).optional(),
    transports: z.array(z.string().max(20)).max(10).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64(4000).optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
});

const AddBody = z.object({ csrf: z.string().max(200), name: z.string().max(1000) });
const IdForm = z.object({ csrf: z.string().max(200), id: z.string().max(100) });
const RenameForm = IdForm.extend({ name: z.string().max(1000) });

// Fixed texts chosen by a code in the query, so a crafted link cannot put words on the page.
const NOTICES: Record<string, Text> = {
  added: (t) => t.security.passkeys.notices.added,
  renamed: (t) => t.security.passkeys.notices.renamed,
  removed: (t) => t.security.passkeys.notices.removed,
};
const ERRORS: Record<string, Text> = {
  no_passkey: (t) => t.security.passkeys.noSuchPasskey,
};
const NAME_PROBLEM: Text = (t) => t.security.passkeys.nameProblem;

export function createAccountPasskeyRoutes(deps: PasskeyPageDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;
  const rp = relyingParty(deps.config);
  const expired = (c: Context<AppEnv>) => formExpired(c, (t) => t.common.reloadAndRetry);
  const facts = (c: Context<AppEnv>) => requestFacts(c, deps.config.trustedProxies);

  app.get(PASSKEYS_PATH, async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const passkeys = await listPasskeys(deps.sql, who.account.userId);
    c.header("Content-Security-Policy", PASSKEY_CSP);
    return renderPage(c, PasskeysPage, {
      csrf: csrfToken(c, deps),
      account: who.account,
      passkeys,
      notice: textNamed(NOTICES, c.req.query("done")),
      error: textNamed(ERRORS, c.req.query("error")),
      defaultName: defaultPasskeyName(c.req.header("user-agent")),
      full: passkeys.length >= MAX_PASSKEYS,
    });
  });

  /** The signed-in account for a JSON request (no redirect to the sign-in page: the script shows the text). */
  const jsonAccount = async (c: Context<AppEnv>) =>
    currentAccount(await readBrowserSession(deps.sql, c, issuer));
  const signedOut = (c: Context<AppEnv>) =>
    refuse(c, 401, "signed_out", (t) => t.security.passkeys.errors.signedOut);

  app.post(`${PASSKEYS_PATH}/options`, async (c) => {
    const body = AddBody.safeParse(await readJson(c));
    if (!body.success || !verifyCsrf(c, deps, body.data.csrf)) return invalidCsrf(c);
    const account = await jsonAccount(c);
    if (!account) return signedOut(c);
    if (!cleanName(body.data.name)) return refuse(c, 400, "invalid_name", NAME_PROBLEM);
    const options = await registrationOptions(deps.sql, rp, {
      id: account.userId,
      email: account.email,
      name: account.name,
    });
    await keepChallenge(c, deps, {
      challenge: options.challenge,
      purpose: "register",
      userId: account.userId,
    });
    return c.json(options, 200, { "Cache-Control": "no-store" });
  });

  app.post(PASSKEYS_PATH, async (c) => {
    const raw = await readJson(c);
    const body = AddBody.safeParse(raw);
    if (!body.success || !verifyCsrf(c, deps, body.data.csrf)) return invalidCsrf(c);
    const account = await jsonAccount(c);
    if (!account) return signedOut(c);
    const name = cleanName(body.data.name);
    if (!name) return refuse(c, 400, "invalid_name", NAME_PROBLEM);
    const response = AttestationJson.safeParse(raw?.response);
    if (!response.success) return malformedAnswer(c);
    const challenge = await takeChallenge(c, deps, "register", account.userId);
    if (!challenge) return challengeExpired(c);
    const result = await verifyRegistration(deps.sql, rp, {
      userId: account.userId,
      challenge,
      response: response.data,
      name,
    });
    if (!result.ok) {
      if (result.reason === "duplicate") {
        return refuse(c, 409, "already_registered", (t) => t.security.passkeys.errors.alreadyRegistered);
      }
      if (result.reason === "too_many") {
        return refuse(c, 409, "too_many", (t) => t.security.passkeys.errors.tooMany);
      }
      return refuse(c, 401, "passkey_refused", (t) => t.security.passkeys.errors.notVerified);
    }
    await recordSecurityEvent(deps.sql, deps.log, {
      kind: "factor_added",
      userId: account.userId,
      ...facts(c),
      detail: { factor: "passkey" },
    });
    return asJsonRedirect(c.redirect(`${PASSKEYS_PATH}?done=added`, 303));
  });

  app.get(`${PASSKEYS_PATH}/rename`, async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const passkey = await findPasskey(deps.sql, who.account.userId, c.req.query("id"));
    if (!passkey) return c.redirect(`${PASSKEYS_PATH}?error=no_passkey`, 303);
    return renderPage(c, RenamePasskeyPage, { csrf: csrfToken(c, deps), passkey });
  });

  app.post(`${PASSKEYS_PATH}/rename`, async (c) => {
    const form = RenameForm.safeParse(await c.req.parseBody());
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) return expired(c);
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const passkey = await findPasskey(deps.sql, who.account.userId, form.data.id);
    if (!passkey) return c.redirect(`${PASSKEYS_PATH}?error=no_passkey`, 303);
    const name = cleanName(form.data.name);
    if (!name) {
      return renderPage(
        c,
        RenamePasskeyPage,
        { csrf: csrfToken(c, deps), passkey, problem: NAME_PROBLEM },
        400,
      );
    }
    await renamePasskey(deps.sql, who.account.userId, passkey.id, name);
    return c.redirect(`${PASSKEYS_PATH}?done=renamed`, 303);
  });

  // Remove's first step: a page naming the passkey; nothing changes on a GET.
  app.get(`${PASSKEYS_PATH}/remove`, async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const passkey = await findPasskey(deps.sql, who.account.userId, c.req.query("id"));
    if (!passkey) return c.redirect(`${PASSKEYS_PATH}?error=no_passkey`, 303);
    const all = await listPasskeys(deps.sql, who.account.userId);
    return renderPage(c, RemovePasskeyConfirmPage, {
      csrf: csrfToken(c, deps),
      passkey,
      last: all.length === 1,
    });
  });

  app.post(`${PASSKEYS_PATH}/remove`, async (c) => {
    const form = IdForm.safeParse(await c.req.parseBody());
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) return expired(c);
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const passkey = await findPasskey(deps.sql, who.account.userId, form.data.id);
    if (!passkey || !await removePasskey(deps.sql, who.account.userId, passkey.id)) {
      return c.redirect(`${PASSKEYS_PATH}?error=no_passkey`, 303);
    }
    await recordSecurityEvent(deps.sql, deps.log, {
      kind: "factor_removed",
      userId: who.account.userId,
      ...facts(c),
      detail: { factor: "passkey" },
    });
    return c.redirect(`${PASSKEYS_PATH}?done=removed`, 303);
  });

  return app;
}

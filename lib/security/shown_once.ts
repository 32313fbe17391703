// Recovery codes just created are shown once: they travel from the POST that made them to the page after the 303
// in a short-lived cookie sealed with SECRET_KEY, bound to the person and to one page's path; the page deletes
// the cookie as it shows them (as lib/account/new_key.ts does for a new API key).
//
// Exports: `ShownOnceCookie`, `keepCodes(c, where, userId, codes)`, `takeCodes(c, where, userId)`.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { isHttps } from "../http/cookies.ts";
import { open, seal } from "../secret_box.ts";

const COOKIE = "portico_recovery_codes";
const SECONDS = 120;
const PURPOSE = "recovery-codes:shown-once";

/** The page that shows the codes (the cookie's path), the issuer (https: Secure) and the sealing key. */
export interface ShownOnceCookie {
  path: string;
  issuer: string;
  secretKey: string;
}

export async function keepCodes(
  c: Context,
  where: ShownOnceCookie,
  userId: string,
  codes: string[],
): Promise<void> {
  setCookie(c, COOKIE, await seal(where.secretKey, PURPOSE, JSON.stringify({ userId, codes })), {
    path: where.path,
    httpOnly: true,
    sameSite: "Lax",
    secure: isHttps(where.issuer),
    maxAge: SECONDS,
  });
}

/** The codes kept for `userId`, deleting the cookie; undefined when there are none, they are another's or altered. */
export async function takeCodes(
  c: Context,
  where: ShownOnceCookie,
  userId: string,
): Promise<string[] | undefined> {
  const sealed = getCookie(c, COOKIE);
  if (!sealed) return undefined;
  deleteCookie(c, COOKIE, { path: where.path, secure: isHttps(where.issuer) });
  if (sealed.length > 2000) return undefined;
  try {
    const data = JSON.parse(await open(where.secretKey, PURPOSE, sealed));
    if (data.userId !== userId || !Array.isArray(data.codes)) return undefined;
    return data.codes.filter((code: unknown): code is string => typeof code === "string").slice(0, 20);
  } catch {
    return undefined;
  }
}

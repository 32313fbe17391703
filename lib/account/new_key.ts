// A new API key is shown once: it travels from the create POST to the page after the 303 in a cookie sealed with
// SECRET_KEY and bound to the person, and the page deletes the cookie when it shows the key.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { isHttps } from "../http/cookies.ts";
import { open, seal } from "../secret_box.ts";

const NEW_KEY_COOKIE = "portico_new_key";
const NEW_KEY_SECONDS = 120;
const SEAL_PURPOSE = "account-keys:new-key";

/** What the page shows of a key just created. */
export interface NewKey {
  userId: string;
  name: string;
  value: string;
  workspaceName: string;
}

/** Where the cookie lives (the keys page's path), the issuer (https: Secure) and the sealing key. */
export interface NewKeyCookie {
  path: string;
  issuer: string;
  secretKey: string;
}

/** Puts the new key in the cookie the next page load takes. */
export async function keepNewKey(c: Context, where: NewKeyCookie, key: NewKey): Promise<void> {
  setCookie(c, NEW_KEY_COOKIE, await seal(where.secretKey, SEAL_PURPOSE, JSON.stringify(key)), {
    path: where.path,
    httpOnly: true,
    sameSite: "Lax",
    secure: isHttps(where.issuer),
    maxAge: NEW_KEY_SECONDS,
  });
}

/** The key kept for `userId`, deleting the cookie; undefined when there is none, it is another's or altered. */
export async function takeNewKey(
  c: Context,
  where: NewKeyCookie,
  userId: string,
): Promise<NewKey | undefined> {
  const sealed = getCookie(c, NEW_KEY_COOKIE);
  if (!sealed) return undefined;
  deleteCookie(c, NEW_KEY_COOKIE, { path: where.path, secure: isHttps(where.issuer) });
  try {
    const data = JSON.parse(await open(where.secretKey, SEAL_PURPOSE, sealed)) as NewKey;
    return data.userId === userId ? data : undefined;
  } catch {
    return undefined;
  }
}

// Shared helpers for the OAuth tests: a fresh app and database, a cookie-keeping "browser", PKCE, flows.
import assert from "node:assert/strict";
import type { Hono } from "hono";
import { createAgent, createUser } from "../../lib/accounts.ts";
import { randomToken } from "../../lib/crypto.ts";
import type { AppEnv } from "../../lib/http/types.ts";
import { s256 } from "../../lib/oauth/pkce.ts";
import { decodeJwt } from "jose";
import { freshDatabase, type TestDb } from "../helpers/db.ts";
import { TEST_SCRYPT, TEST_SECRET, testApp } from "../helpers/app.ts";
import type { Sql } from "../../lib/db/client.ts";
import { createClientDirectory } from "../../lib/oauth/client_directory.ts";
import type { TokenDeps } from "../../lib/oauth/grants/shared.ts";
import { createKeyStore } from "../../lib/oauth/keys.ts";

export const ISSUER = "http://localhost:8000";
export const REDIRECT = "http://127.0.0.1:8976/callback";
export const PASSWORD = "correct horse battery";

export interface Ctx {
  db: TestDb;
  app: Hono<AppEnv>;
  user: { id: string; email: string };
  other: { id: string; email: string };
  agentId: string;
  close(): Promise<void>;
}

export async function setup(env: Record<string, string> = {}): Promise<Ctx> {
  const db = await freshDatabase();
  const app = testApp(db.sql, env);
  const user = await createUser(db.sql, { email: "dana@example.com", password: PASSWORD, name: "Dana" }, {
    scrypt: TEST_SCRYPT,
  });
  const other = await createUser(db.sql, { email: "olly@example.com", password: PASSWORD, name: "Olly" }, {
    scrypt: TEST_SCRYPT,
  });
  const agentId = (await createAgent(db.sql, "Research Assistant")).id;
  return {
    db,
    app,
    user: { id: user.id, email: "dana@example.com" },
    other: { id: other.id, email: "olly@example.com" },
    agentId,
    close: () => db.close(),
  };
}

/** An app.request() wrapper that keeps cookies like a browser and never follows redirects. */
export class Browser {
  cookies = new Map<string, string>();
  constructor(readonly app: Hono<AppEnv>, readonly ip = "198.51.100.7") {}

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    const res = await this.app.request(path, { ...init, headers, redirect: "manual" }, {
      remoteAddr: { hostname: this.ip, port: 40000 },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      const gone = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  get(path: string): Promise<Response> {
    return this.request(path);
  }

  post(path: string, fields: Record<string, string>): Promise<Response> {
    return this.request(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

/** The value of a hidden input in a rendered page. */
export function field(html: string, name: string): string | undefined {
  const m = html.match(new RegExp(`name="${name}" value="([^"]*)"`));
  return m?.[1]?.replaceAll("&amp;", "&");
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomToken("", 48);
  return { verifier, challenge: s256(verifier) };
}

export async function register(
  app: Hono<AppEnv>,
  body: Record<string, unknown> = {},
  ip = "192.0.2.1",
): Promise<Response> {
  return await app.request("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Test App", redirect_uris: [REDIRECT], ...body }),
  }, { remoteAddr: { hostname: ip, port: 1 } });
}

export interface Registered {
  client_id: string;
  client_secret?: string;
}

let sources = 0;
/**
 * Each call registers from an address of its own: a test that asks for a client wants a new one, while identical
 * public registrations from one source get the existing client (docs/oauth.md).
 */
export async function registerPublic(
  app: Hono<AppEnv>,
  body: Record<string, unknown> = {},
): Promise<Registered> {
  const source = `2001:db8::${(++sources).toString(16)}`;
  const res = await register(app, { grant_types: ["authorization_code", "refresh_token"], ...body }, source);
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return await res.json();
}

export async function registerConfidential(
  app: Hono<AppEnv>,
  body: Record<string, unknown> = {},
): Promise<Registered> {
  return await registerPublic(app, { token_endpoint_auth_method: "client_secret_post", ...body });
}

export function authorizeUrl(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return `/oauth/authorize?${q}`;
}

/** Follows a 302/303 Location inside the app; returns the URL if it leaves the app (the client's redirect). */
export function location(res: Response): URL {
  const loc = res.headers.get("location");
  if (!loc) throw new Error(`no Location on ${res.status}`);
  return new URL(loc, ISSUER);
}

export async function signInOnPage(browser: Browser, page: Response, email: string, password = PASSWORD) {
  const html = await page.text();
  const fields: Record<string, string> = { csrf: field(html, "csrf")!, email, password };
  const ticket = field(html, "ticket");
  if (ticket) fields.ticket = ticket;
  const returnTo = field(html, "return_to");
  if (returnTo) fields.return_to = returnTo;
  return await browser.post("/signin", fields);
}

/** Opens an authorization URL in a signed-out browser, signs in, and returns the next page's HTML (consent). */
export async function consentPageFor(browser: Browser, url: string, email: string, password = PASSWORD) {
  const signedIn = await signInOnPage(browser, await browser.get(url), email, password);
  return await (await browser.get(location(signedIn).pathname + location(signedIn).search)).text();
}

/**
 * Runs authorize → sign in (if asked) → consent (allow) and returns the client's redirect URL.
 * Pages met along the way are answered: sign-in with `email`, chooser picks `email`, consent allows.
 */
export async function authorizeThrough(
  browser: Browser,
  url: string,
  email: string,
  decision: "allow" | "deny" = "allow",
  opts: { place?: string; password?: string } = {},
): Promise<URL> {
  let res = await browser.get(url);
  for (let i = 0; i < 10; i++) {
    if (res.status === 302 || res.status === 303) {
      const next = location(res);
      if (next.origin !== ISSUER) return next;
      res = await browser.get(next.pathname + next.search);
      continue;
    }
    if (res.status !== 200) throw new Error(`unexpected ${res.status}: ${await res.text()}`);
    const html = await res.text();
    const csrf = field(html, "csrf")!;
    const ticket = field(html, "ticket")!;
    if (html.includes('action="/oauth/authorize/consent"')) {
      // A browser submits the checked place (the first, unless the test picks one).
      const place = opts.place ?? html.match(/name="place" value="([^"]+)"/)?.[1];
      const fields: Record<string, string> = { csrf, ticket, decision };
      if (place) fields.place = place;
      res = await browser.post("/oauth/authorize/consent", fields);
    } else if (html.includes('action="/oauth/authorize/select"')) {
      const m = html.match(new RegExp(`name="user_id" value="([^"]+)"[^]*?${email.replace(".", "\\.")}`));
      if (!m) throw new Error(`chooser lacks ${email}`);
      res = await browser.post("/oauth/authorize/select", { csrf, ticket, user_id: m[1] });
    } else if (html.includes('action="/signin"')) {
      res = await browser.post("/signin", { csrf, ticket, email, password: opts.password ?? PASSWORD });
    } else {
      throw new Error(`unexpected page: ${html.slice(0, 500)}`);
    }
  }
  throw new Error("too many steps");
}

export async function token(
  app: Hono<AppEnv>,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return await app.request("/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Registers nothing: runs a full authorization for `client` and returns the code and verifier. */
export async function getCode(
  ctx: Ctx,
  browser: Browser,
  client: Registered,
  extra: Record<string, string> = {},
): Promise<{ code: string; verifier: string; redirect: URL }> {
  const { verifier, challenge } = pkce();
  const redirect = await authorizeThrough(
    browser,
    authorizeUrl({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "st-1",
      ...extra,
    }),
    ctx.user.email,
  );
  const code = redirect.searchParams.get("code");
  if (!code) throw new Error(`no code: ${redirect}`);
  return { code, verifier, redirect };
}

export function exchange(ctx: Ctx, client: Registered, code: string, verifier: string, extra = {}) {
  return token(ctx.app, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: client.client_id,
    ...(client.client_secret ? { client_secret: client.client_secret } : {}),
    ...extra,
  });
}

/** A token-endpoint refusal: the status, the OAuth `error`, and `Cache-Control: no-store`; returns the body. */
export async function expectError(res: Response, status: number, error: string) {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.error, error, JSON.stringify(body));
  assert.equal(res.headers.get("cache-control"), "no-store");
  return body;
}

/** A public client's refresh request (grant_type=refresh_token) at the token endpoint, with any extra fields. */
export async function refreshWith(
  app: Hono<AppEnv>,
  client: { client_id: string },
  refreshToken: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  return await token(app, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: client.client_id,
    ...extra,
  });
}

/** A code obtained in the browser and exchanged: the first token response, and the grant its tokens name. */
// deno-lint-ignore no-explicit-any
export async function startGrant(ctx: Ctx, client: Registered): Promise<{ first: any; grantId: string }> {
  const { code, verifier } = await getCode(ctx, new Browser(ctx.app), client);
  const res = await exchange(ctx, client, code, verifier);
  assert.equal(res.status, 200);
  const first = await res.json();
  return { first, grantId: decodeJwt(first.access_token).grant_id as string };
}

/**
 * The token endpoint's dependencies as routes/oauth_api.ts builds them (grace 60 s, families 90 days), on `sql`,
 * for tests that call a grant directly; `extra` replaces or adds (hints, a batcher, another key store or secret).
 */
export function tokenDepsFor(sql: Sql, extra: Partial<TokenDeps> = {}): TokenDeps {
  return {
    sql,
    keys: createKeyStore(sql, TEST_SECRET),
    issuer: ISSUER,
    refreshGraceSeconds: 60,
    familyMaxDays: 90,
    secretKey: TEST_SECRET,
    findClient: createClientDirectory(sql).find,
    ...extra,
  };
}

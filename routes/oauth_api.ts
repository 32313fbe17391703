// The OAuth/OIDC JSON endpoints: discovery, JWKS, registration, token, revocation, introspection and UserInfo.
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { z } from "zod";
import { isDatabaseUnavailable } from "../lib/db/errors.ts";
import { addressKey, clientIp } from "../lib/http/client_ip.ts";
import { builtComplete, completeResponse } from "../lib/http/middleware.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { authenticateClient, readClientCredentials, usedBasic } from "../lib/oauth/clients.ts";
import { OAuthError } from "../lib/oauth/errors.ts";
import { grantTokens } from "../lib/oauth/grants/mod.ts";
import { batchRefreshes } from "../lib/oauth/grants/refresh_batch.ts";
import { RefreshHints } from "../lib/oauth/grants/refresh_hints.ts";
import { grantActive, revokeToken } from "../lib/oauth/grants/revocation.ts";
import { type TokenDeps, TokenParams } from "../lib/oauth/grants/shared.ts";
import { JWKS_MAX_AGE_SECONDS } from "../lib/oauth/keys.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "../lib/oauth/metadata.ts";
import { createMemoryLimiter, createSharedLimiter, type Refused, take } from "../lib/rate_limit/mod.ts";
import { registerClient } from "../lib/oauth/registration.ts";

import { introspectToken, requireIntrospector } from "../lib/oauth/introspection.ts";
import { severalResources } from "../lib/oauth/resource.ts";
import { verifyAccessToken } from "../lib/oauth/tokens.ts";
import { isForUserInfo, userInfoClaims } from "../lib/oauth/userinfo.ts";
import type { OAuthRouteDeps } from "./oauth_deps.ts";

function oauthErrorResponse(c: Context<AppEnv>, err: OAuthError): Response {
  if (err.error === "invalid_client" && usedBasic(err)) {
    c.header("WWW-Authenticate", 'Basic realm="portico", charset="UTF-8"');
  }
  return c.json(err.toJSON(), err.status);
}

/** Reads an application/x-www-form-urlencoded body; repeated parameters are refused (RFC 6749 §3.2). */
async function readForm(c: Context<AppEnv>): Promise<Record<string, string>> {
  const type = c.req.header("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    throw new OAuthError("invalid_request", "the body must be application/x-www-form-urlencoded");
  }
  const params = new URLSearchParams(await c.req.text());
  const out: Record<string, string> = {};
  for (const [k, v] of params) {
    // Several `resource` values are allowed by RFC 8707 but not supported: its own error, before any lookup.
    if (k in out) {
      throw k === "resource"
        ? severalResources()
        : new OAuthError("invalid_request", `parameter ${k} is repeated`);
    }
    out[k] = v;
  }
  return out;
}

const opt = z.string().max(4000).optional();
const RevokeForm = z.object({ token: opt, token_type_hint: opt, client_id: opt, client_secret: opt });
const IntrospectForm = RevokeForm;

function parseWith<T>(schema: z.ZodType<T>, form: Record<string, string>): T {
  const r = schema.safeParse(form);
  if (!r.success) {
    throw new OAuthError("invalid_request", `${r.error.issues[0].path.join(".")} is too long or malformed`);
  }
  return r.data;
}

/** The endpoints public JSON clients may call from a browser (MCP inspectors, SPAs); none uses cookies. */
const OPEN_PATHS = [
  "/.well-known/*",
  "/oauth/jwks",
  "/oauth/register",
  "/oauth/token",
  "/oauth/revoke",
  "/oauth/userinfo",
];

/**
 * `Access-Control-Allow-Origin: *` on every answer of the open paths, and their preflights (Hono's cors). The
 * header is set after the handler, and not at all on an answer built complete (the token endpoint's: it
 * carries the header already). Hono's cors sets it on the context's answer before the handler
 * runs, and Hono then copies that answer's headers into a new Response around the handler's: a second
 * Response, and Deno's prepared answer dropped, on every refresh (BENCHMARKS.md "The token answer built
 * complete").
 */
function publicCors(): MiddlewareHandler<AppEnv> {
  const preflight = cors({
    origin: "*",
    allowMethods: ["GET", "POST"],
    // MCP clients send MCP-Protocol-Version on every discovery request, so browsers preflight it.
    allowHeaders: ["Authorization", "Content-Type", "MCP-Protocol-Version"],
    maxAge: 600,
  });
  return async (c, next) => {
    if (c.req.method === "OPTIONS") return await preflight(c, next);
    // Errors are answered within next() (Hono's compose calls the error handler there): a refusal, a 503.
    await next();
    if (!builtComplete(c.res)) c.res.headers.set("Access-Control-Allow-Origin", "*");
  };
}

/** The token endpoint's success answer's own headers (RFC 6749 §5.1: no-store; and the open paths' CORS). */
const TOKEN_HEADERS = [
  ["Content-Type", "application/json"],
  ["Cache-Control", "no-store"],
  ["Pragma", "no-cache"],
  ["Access-Control-Allow-Origin", "*"],
] as const;

/**
 * Refused token and revocation requests (a wrong client secret, a guessed code or token, malformed input) are
 * bounded per client address: each one costs a client lookup, a secret check or a token lookup. Counted in the
 * database (rate_buckets, shared by every instance) only when a request is refused, so successful refreshes
 * cost no statement and clients refreshing from one address (a NAT, a benchmark) are never slowed. The refusal
 * that finds the budget spent is answered 429 instead, and this instance then refuses the address before any
 * lookup until a unit is free; another instance learns it from its own next refusal (docs/operations.md "Rate
 * limits"). In memory, each instance also holds requests in flight to the same budget (taken up front, given
 * back unless refused), so one instance never works on more than the budget at once.
 */
function refusalLimit(deps: OAuthRouteDeps): MiddlewareHandler<AppEnv> {
  const local = createMemoryLimiter(deps.config.tokenFailureRateLimit);
  const shared = createSharedLimiter(deps.sql, deps.config.tokenFailureRateLimit);
  const tooMany = (taken: Refused) =>
    new Response(
      JSON.stringify({
        error: "too_many_requests",
        error_description: "too many refused requests from this address, retry later",
      }),
      {
        status: 429,
        headers: {
          "Content-Type": "application/json",
          "Cache-Control": "no-store",
          "Retry-After": String(taken.retryAfter),
        },
      },
    );
  return async (c, next) => {
    if (c.req.method !== "POST") return await next();
    const address = addressKey(clientIp(c, deps.config.trustedProxies));
    const bucket = `token_refused:${address}`;
    const known = shared.blocked(bucket);
    if (known) return tooMany(known);
    const taken = local.take(address);
    if (!taken.ok) return tooMany(taken);
    try {
      await next();
    } catch (err) {
      // Not an OAuth refusal (the database, a bug): the app's handler answers it and the unit goes back.
      local.give(address);
      throw err;
    }
    if (c.res.status < 400 || c.res.status >= 500) {
      local.give(address);
      return;
    }
    let counted;
    try {
      counted = await shared.take(bucket);
    } catch (err) {
      // The refusal stands; only its count is lost (the database went away after answering it).
      if (!isDatabaseUnavailable(err)) throw err;
      return;
    }
    if (counted.ok) return;
    // A new answer, not the refusal's headers (its WWW-Authenticate, its length) on another body.
    c.res = undefined;
    c.res = tooMany(counted);
  };
}

/** OIDC UserInfo (GET and POST): a Bearer access token for this issuer, of a live grant, with `openid`. */
function userinfoHandler(deps: OAuthRouteDeps): (c: Context<AppEnv>) => Promise<Response> {
  const issuer = deps.config.issuer;
  return async (c) => {
    c.header("Cache-Control", "no-store");
    const realm = `Bearer realm="portico"`;
    const auth = c.req.header("authorization");
    let token: string | undefined;
    if (auth && /^bearer /i.test(auth)) token = auth.slice(7).trim();
    else if (auth) {
      c.header("WWW-Authenticate", `${realm}, error="invalid_request"`);
      return c.json({ error: "invalid_request", error_description: "use the Bearer scheme" }, 400);
    }
    if (!token && c.req.method === "POST") {
      // RFC 6750 §2.2: the token may come in a form body instead.
      const type = c.req.header("content-type") ?? "";
      if (type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
        token = new URLSearchParams(await c.req.text()).get("access_token") ?? undefined;
      }
    }
    if (!token) {
      c.header("WWW-Authenticate", realm);
      return c.json({ error: "invalid_token", error_description: "an access token is required" }, 401);
    }
    const invalid = (description: string) => {
      c.header("WWW-Authenticate", `${realm}, error="invalid_token", error_description="${description}"`);
      return c.json({ error: "invalid_token", error_description: description }, 401);
    };
    let claims;
    try {
      claims = await verifyAccessToken(deps.keys, issuer, token);
    } catch (err) {
      // Loading the keys may need the database: its absence is an outage (503), not a bad token.
      if (isDatabaseUnavailable(err)) throw err;
      return invalid("the access token is invalid or expired");
    }
    if (!isForUserInfo(claims.aud, issuer)) {
      return invalid("the access token is not for UserInfo (its audience)");
    }
    if (!(await grantActive(deps.sql, claims.grant_id))) return invalid("the access token was revoked");
    const scopes = claims.scope.split(" ");
    if (!scopes.includes("openid")) {
      c.header("WWW-Authenticate", `${realm}, error="insufficient_scope", scope="openid"`);
      return c.json(
        { error: "insufficient_scope", error_description: "the token lacks the openid scope" },
        403,
      );
    }
    const info = await userInfoClaims(deps.sql, claims.sub, scopes);
    if (!info) return invalid("the account no longer exists");
    return c.json(info);
  };
}

export function createOAuthApiRoutes(deps: OAuthRouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // One place maps an OAuthError to its JSON answer (status, error, description, and the Basic challenge);
  // anything else goes on to the app's handler (a database outage becomes temporarily_unavailable there).
  app.onError((err, c) => {
    if (err instanceof OAuthError) return oauthErrorResponse(c, err);
    throw err;
  });
  const issuer = deps.config.issuer;
  const https = issuer.startsWith("https:");
  const tokenDeps: TokenDeps = {
    sql: deps.sql,
    keys: deps.keys,
    issuer,
    refreshGraceSeconds: deps.config.refreshReuseGraceSeconds,
    familyMaxDays: deps.config.refreshFamilyMaxDays,
    secretKey: deps.secretKey,
    findClient: deps.clients.find,
    refreshHints: new RefreshHints(),
  };
  batchRefreshes(tokenDeps);
  const open = publicCors();
  for (const path of OPEN_PATHS) app.use(path, open);
  const refusals = refusalLimit(deps);
  for (const path of ["/oauth/token", "/oauth/revoke"]) app.use(path, refusals);

  const metadata = authorizationServerMetadata(issuer);
  // RFC 9728: the tool server's metadata at its path-suffixed location only. The root document would describe
  // the origin (§3.3), which is no resource /mcp's tokens are for, so it is absent (404) and clients fall back
  // to the authorization server at the origin (README "Decisions where the spec was silent").
  const documents: [string, unknown][] = [
    ["/.well-known/oauth-authorization-server", metadata],
    ["/.well-known/openid-configuration", metadata],
    ["/.well-known/oauth-protected-resource/mcp", protectedResourceMetadata(issuer)],
  ];
  for (const [path, document] of documents) {
    app.get(path, (c) => {
      c.header("Cache-Control", "public, max-age=3600");
      return c.json(document);
    });
  }

  app.get("/oauth/jwks", async (c) => {
    // A new key is published KEY_PUBLISH_DELAY_SECONDS before it signs, which covers this cache lifetime.
    c.header("Cache-Control", `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    return c.json(await deps.keys.jwks());
  });

  app.post("/oauth/register", async (c) => {
    c.header("Cache-Control", "no-store");
    const source = clientIp(c, deps.config.trustedProxies);
    const taken = await take(deps.sql, `register:${source}`, deps.config.registrationRateLimit);
    if (!taken.ok) {
      c.header("Retry-After", String(taken.retryAfter));
      return c.json(
        { error: "too_many_requests", error_description: "too many registrations, retry later" },
        429,
      );
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ error: "invalid_client_metadata", error_description: "the body must be JSON" }, 400);
    }
    return c.json(await registerClient(deps.sql, body, { source }), 201);
  });

  app.post("/oauth/token", async (c) => {
    // For a refusal's answer (built by onError); the success answer is built complete, headers and all.
    c.header("Cache-Control", "no-store");
    c.header("Pragma", "no-cache");
    const form = parseWith(TokenParams, await readForm(c));
    const creds = readClientCredentials(c.req.header("authorization"), form);
    const tokens = await grantTokens(tokenDeps, creds, form);
    return completeResponse(c, https, 200, JSON.stringify(tokens), TOKEN_HEADERS);
  });

  app.post("/oauth/revoke", async (c) => {
    c.header("Cache-Control", "no-store");
    const form = parseWith(RevokeForm, await readForm(c));
    const client = await authenticateClient(
      deps.clients.find,
      readClientCredentials(c.req.header("authorization"), form),
    );
    if (!form.token) throw new OAuthError("invalid_request", "token is required");
    await revokeToken(tokenDeps, client, form.token, form.token_type_hint);
    return c.body(null, 200);
  });

  // RFC 7662, server to server (no CORS: callers hold a client secret). See lib/oauth/introspection.ts.
  const introspectionDeps = {
    db: deps.sql,
    keys: deps.keys,
    issuer,
    resourceServers: deps.config.resourceServers,
  };
  // An open POST that costs a client lookup and a secret check: bounded per client address, in the database
  // (shared by every instance; an address this instance knows to be over is refused without a query).
  const introspectLimiter = createSharedLimiter(deps.sql, deps.config.introspectionRateLimit);
  app.post("/oauth/introspect", async (c) => {
    c.header("Cache-Control", "no-store");
    const bucket = `introspect:${addressKey(clientIp(c, deps.config.trustedProxies))}`;
    const taken = introspectLimiter.blocked(bucket) ?? await introspectLimiter.take(bucket);
    if (!taken.ok) {
      c.header("Retry-After", String(taken.retryAfter));
      return c.json(
        { error: "too_many_requests", error_description: "too many introspection requests, retry later" },
        429,
      );
    }
    const form = parseWith(IntrospectForm, await readForm(c));
    const creds = readClientCredentials(c.req.header("authorization"), form);
    const client = await authenticateClient(deps.clients.find, creds);
    requireIntrospector(client, creds.via === "basic");
    if (!form.token) throw new OAuthError("invalid_request", "token is required");
    return c.json(await introspectToken(introspectionDeps, client, form.token));
  });

  const userinfo = userinfoHandler(deps);
  app.get("/oauth/userinfo", userinfo);
  app.post("/oauth/userinfo", userinfo);

  return app;
}

// The authorization server's routes: JSON endpoints, browser pages and /account/apps, sharing one key cache.
import { Hono } from "hono";
import type { AppEnv } from "../lib/http/types.ts";
import { createKeyStore, type KeyStore } from "../lib/oauth/keys.ts";
import type { AppDeps } from "./mod.ts";
import { createAccountRoutes } from "./account.ts";
import { createOAuthApiRoutes } from "./oauth_api.ts";
import { createOAuthPageRoutes } from "./oauth_pages.ts";

export interface OAuthRouteDeps extends AppDeps {
  keys: KeyStore;
}

export function createOAuthRoutes(deps: AppDeps & { keys?: KeyStore }): Hono<AppEnv> {
  // One key cache per app instance: keys are imported once and refreshed from the database periodically.
  const full: OAuthRouteDeps = { ...deps, keys: deps.keys ?? createKeyStore(deps.sql, deps.secretKey) };
  const app = new Hono<AppEnv>();
  app.route("/", createOAuthApiRoutes(full));
  app.route("/", createOAuthPageRoutes(full));
  app.route("/", createAccountRoutes(full));
  return app;
}

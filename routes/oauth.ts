// The authorization server's routes: JSON endpoints, browser pages (account and operator pages too), one key cache.
import { createAccountWorkspaceRoutes } from "./account_workspaces.ts";
import { createAccountHomeRoutes } from "./account_home.ts";
import { Hono } from "hono";
import type { AppEnv } from "../lib/http/types.ts";
import { createClientDirectory, type DocumentSource } from "../lib/oauth/client_directory.ts";
import { isMetadataDocumentUrl } from "../lib/oauth/client_id_url.ts";
import { createMetadataDocumentFetcher } from "../lib/oauth/client_metadata.ts";
import type { OAuthDeps, OAuthRouteDeps } from "./oauth_deps.ts";
import { createAccountRoutes } from "./account.ts";
import { createAccountActivityRoutes } from "./account_activity.ts";
import { createOAuthApiRoutes } from "./oauth_api.ts";
import { createOAuthPageRoutes } from "./oauth_pages.ts";
import { createOperatorRoutes } from "./operator.ts";
import { createLogoutRoutes } from "./logout.ts";

export function createOAuthRoutes(deps: OAuthDeps): Hono<AppEnv> {
  const clients = createClientDirectory(deps.sql, {
    documents: deps.documents ?? networkDocuments(deps.config.issuer),
    trustedPrefixes: deps.config.trustedClientIdPrefixes,
  });
  const full: OAuthRouteDeps = { ...deps, clients };
  const app = new Hono<AppEnv>();
  app.route("/", createOAuthApiRoutes(full));
  app.route("/", createOAuthPageRoutes(full));
  app.route("/", createAccountRoutes(full));
  app.route("/", createAccountWorkspaceRoutes(full));
  app.route("/", createAccountHomeRoutes(full));
  app.route("/", createAccountActivityRoutes(full));
  app.route("/", createOperatorRoutes(full));
  app.route("/", createLogoutRoutes(full));
  return app;
}

/** Client ID Metadata Documents fetched over the network, SSRF-guarded and cached (lib/oauth/client_metadata.ts). */
function networkDocuments(issuer: string): DocumentSource {
  const fetcher = createMetadataDocumentFetcher({ issuer });
  return {
    accepts: (clientId) => isMetadataDocumentUrl(clientId, issuer),
    get: (clientId) => fetcher.get(clientId),
  };
}

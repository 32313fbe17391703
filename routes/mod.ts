// Builds the Hono app from its dependencies; every surface is a sub-app factory mounted here.
import { Hono } from "hono";
import type { Config } from "../lib/config.ts";
import type { Sql } from "../lib/db/client.ts";
import type { Logger } from "../lib/log.ts";
import type { AuditLog } from "../lib/audit.ts";
import { createMcpRateLimits, type McpRateLimits } from "../lib/mcp/rate_limit.ts";
import type { DocumentSource } from "../lib/oauth/client_directory.ts";
import { createKeyStore, type KeyStore } from "../lib/oauth/keys.ts";
import type { RsaSigner } from "../lib/oauth/signer.ts";
import type { ScryptParams } from "../lib/crypto.ts";
import {
  limitBody,
  notFound,
  onError,
  refuseUnsafeText,
  requestContext,
  securityHeaders,
} from "../lib/http/middleware.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { createHealthRoutes } from "./health.ts";
import { createOAuthRoutes } from "./oauth.ts";
import { createMcpRoutes, mcpPayloadTooLarge } from "./mcp.ts";
import { createExportRoutes } from "./exports.ts";
import { createAccountKeysRoutes } from "./account_keys.ts";
import { loadBranding } from "../lib/branding.ts";
import { brandingContext, createPageAssetRoutes } from "./page_assets.ts";
import { createMailer, type Mailer } from "../lib/mail.ts";
import { createPasswordResetRoutes } from "./password_reset_pages.ts";
import { createSecondFactorRoutes } from "./second_factor_pages.ts";
import { createAccountTwoStepRoutes } from "./account_two_step.ts";
import { createSessionPageRoutes } from "./session_pages.ts";
import { sessionSettings } from "../lib/oauth/sessions.ts";
import { createPasskeyPageRoutes } from "./passkey_pages.ts";
import { createAccountPasskeyRoutes } from "./account_passkeys.ts";
import { createAccountSecurityRoutes } from "./account_security.ts";

export interface AppDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  /** SECRET_KEY, resolved (generated into DATA_DIR in embedded mode) */
  secretKey: string;
  /** the tool server's audit trail; main.ts passes one, tests may leave it out */
  audit?: AuditLog;
  /** signing keys; by default one cache per app, shared by the authorization server and /mcp */
  keys?: KeyStore;
  /** how the default key store signs (main.ts passes the one SIGNER chose; by default `createSigner()`) */
  signer?: RsaSigner;
  /** where Client ID Metadata Documents come from; by default fetched over the network (SSRF-guarded) */
  documents?: DocumentSource;
  /** the /mcp rate limits; by default built from config by routes/mcp.ts (tests pass one with their own clock) */
  mcpRateLimits?: McpRateLimits;
  /** why the database cannot serve right now though it may answer `select 1` (embedded: disk full), if known */
  databaseProblem?: () => string | undefined;
  /** Test-only: a cheaper scrypt cost for password hashes so suites stay fast; production leaves it out. */
  scrypt?: ScryptParams;
  /** where mail goes; by default as SMTP_URL says (lib/mail.ts `createMailer`) */
  mailer?: Mailer;
}

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Read once per app (the logo file too): a bad BRAND_LOGO stops start-up with a ConfigError.
  const branding = loadBranding(deps.config);
  app.use("*", requestContext(deps.log));
  app.use("*", brandingContext(branding));
  app.use("*", securityHeaders({ https: deps.config.issuer.startsWith("https:") }));
  app.use("*", limitBody(undefined, { "/mcp": mcpPayloadTooLarge }));
  app.use("*", refuseUnsafeText());
  app.use(
    "*",
    sessionSettings({
      idleSeconds: deps.config.sessionIdleMinutes * 60,
      trustedProxies: deps.config.trustedProxies,
    }),
  );
  app.onError(onError(deps.log));
  app.notFound(notFound);

  // One key cache per app instance: keys are imported once and refreshed from the database periodically.
  const keys = deps.keys ??
    createKeyStore(deps.sql, deps.secretKey, {
      rotateAfterDays: deps.config.keyRotationDays,
      signer: deps.signer,
    });
  app.route("/", createHealthRoutes(deps));
  app.route("/", createOAuthRoutes({ ...deps, keys }));
  // One set of /mcp limits for /mcp and the export downloads its links lead to (a download counts as a call).
  const mcpRateLimits = deps.mcpRateLimits ?? createMcpRateLimits({
    db: deps.sql,
    perCredential: deps.config.mcpRateLimit,
    unauthenticated: deps.config.mcpUnauthRateLimit,
    log: deps.log,
  });
  app.route("/", createMcpRoutes({ ...deps, keys, mcpRateLimits }));
  app.route("/", createExportRoutes({ ...deps, mcpRateLimits }));
  app.route("/", createAccountKeysRoutes(deps));
  app.route("/", createAccountSecurityRoutes(deps));
  app.route(
    "/",
    createPasswordResetRoutes({ ...deps, mailer: deps.mailer ?? createMailer(deps.config, deps.log) }),
  );
  app.route("/", createSecondFactorRoutes(deps));
  app.route("/", createAccountTwoStepRoutes(deps));
  app.route("/", createSessionPageRoutes(deps));
  app.route("/", createPasskeyPageRoutes(deps));
  app.route("/", createAccountPasskeyRoutes(deps));
  app.route("/", createPageAssetRoutes(branding));
  return app;
}

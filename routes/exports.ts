// GET /exports/contacts.csv?token=…: the download behind export_contacts' link, re-checked and re-run now.
import { Hono } from "hono";
import type { Context } from "hono";
import type { AuditLog } from "../lib/audit.ts";
import type { Config } from "../lib/config.ts";
import type { Sql } from "../lib/db/client.ts";
import { clientIp } from "../lib/http/client_ip.ts";
import { completeResponse } from "../lib/http/middleware.ts";
import type { AppEnv } from "../lib/http/types.ts";
import type { Logger } from "../lib/log.ts";
import { type CallerResult, loadCallerByKeyId } from "../lib/mcp/caller.ts";
import { type BearerResult, loadGrantCaller } from "../lib/mcp/bearer.ts";
import { EXPORT_FILES, EXPORT_PATH, type LinkClaims, sameCaller, verifyLink } from "../lib/mcp/exports.ts";
import { denial } from "../lib/mcp/permissions.ts";
import type { McpCharge } from "../lib/mcp/charge.ts";
import { createMcpRateLimits, type Limited, type McpRateLimits } from "../lib/mcp/rate_limit.ts";
import { effectiveSelection, outsideSelection } from "../lib/mcp/toolsets.ts";
import { exportContacts as exportCsv } from "../lib/workspace/contacts.ts";
import { exportContacts as tool, ExportContactsInput } from "../tools/export_contacts.ts";

export interface ExportRouteDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  /** SECRET_KEY: the links are signed with a key derived from it (lib/mcp/exports.ts) */
  secretKey: string;
  /** the same limits as /mcp (routes/mod.ts passes one instance to both), so a download counts like a call */
  mcpRateLimits?: McpRateLimits;
  /** when given, every download and every download refused for lost access is recorded there */
  audit?: Pick<AuditLog, "record">;
  /** clock in ms (tests) */
  now?: () => number;
}

/** The audit trail's name for a download (beside the tools/call rows of export_contacts). */
export const DOWNLOAD_AUDIT_TOOL = "export_contacts:download";

const TEXT = "text/plain; charset=utf-8";
// One plain sentence per refusal; none says which check failed beyond what the holder of a valid link may know.
const NOT_FOUND = "Not Found: no such export. The link is incomplete or was altered.\n";
const EXPIRED = "Forbidden: this export link has expired. Call export_contacts again for a new one.\n";
const NO_ACCESS =
  "Forbidden: the credential that made this link can no longer export these contacts. Call export_contacts " +
  "again with a working credential.\n";

export function createExportRoutes(deps: ExportRouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const https = deps.config.issuer.startsWith("https:");
  const variant = deps.config.mcpVariant;
  const now = deps.now ?? Date.now;
  const limits = deps.mcpRateLimits ?? createMcpRateLimits({
    db: deps.sql,
    perCredential: deps.config.mcpRateLimit,
    unauthenticated: deps.config.mcpUnauthRateLimit,
    log: deps.log,
  });

  function plain(c: Context<AppEnv>, status: number, text: string, extra: [string, string][] = []): Response {
    return completeResponse(c, https, status, text, [
      ["Content-Type", TEXT],
      ["Cache-Control", "no-store"],
      ...extra,
    ]);
  }

  /** The caller the link's credential resolves to now, with the same checks as /mcp. */
  async function callerNow(claims: LinkClaims, charge: McpCharge): Promise<CallerResult | BearerResult> {
    if (claims.key !== undefined) {
      return await loadCallerByKeyId(deps.sql, claims.key, variant, deps.log, charge);
    }
    return await loadGrantCaller({ db: deps.sql, log: deps.log }, claims.grant!, {
      sub: claims.sub ?? "",
      client_id: claims.client ?? "",
    }, charge);
  }

  const tooMany = (c: Context<AppEnv>, limited: Limited) =>
    plain(c, 429, `Too Many Requests: retry in ${limited.retryAfter} seconds.\n`, [
      ["Retry-After", String(limited.retryAfter)],
    ]);

  app.get(`${EXPORT_PATH}/:file`, async (c) => {
    const started = performance.now();
    const token = c.req.query("token") ?? "";
    // Like /mcp: a bucket this instance knows to be empty is refused before any database work; else the caller
    // statement takes the unit, from the link's key or grant when it is live, else from the client address.
    const admitted = limits.admit(token === "" ? undefined : token, clientIp(c, deps.config.trustedProxies));
    if (!admitted.ok) return tooMany(c, admitted);
    const charge = limits.charge(admitted, 1);
    const verified = verifyLink(deps.secretKey, token, now());
    if (!verified.ok || EXPORT_FILES[verified.claims.k] !== c.req.param("file")) {
      const limited = await limits.settle(admitted, charge, undefined, null);
      if (limited) return tooMany(c, limited);
      return verified.ok || verified.reason === "malformed"
        ? plain(c, 404, NOT_FOUND)
        : plain(c, 403, EXPIRED);
    }
    const claims = verified.claims;
    const result = await callerNow(claims, charge);
    const limited = await limits.settle(admitted, charge, result.charged, result.ok ? result.caller : null);
    if (limited) return tooMany(c, limited);
    // The same rules as tools/call of export_contacts, against the credential as it is now: revoked key or
    // grant, removed or disabled member, role, module, the key's toolsets, and the same workspace, user and
    // company scope as when the link was made.
    const selection = result.ok ? effectiveSelection(null, result.caller) : null;
    const allowed = result.ok && sameCaller(claims, result.caller) && tool.variants[variant] !== undefined &&
      denial(tool, result.caller, variant) === null &&
      (selection === null || outsideSelection(tool, selection) === null);
    // Who the link names (signed, so trustworthy even when the credential no longer is).
    const audit = (outcome: "ok" | "denied") =>
      deps.audit?.record({
        at: new Date(),
        workspaceId: claims.ws,
        keyId: claims.key ?? null,
        clientId: claims.client ?? null,
        userId: claims.sub ?? null,
        tool: DOWNLOAD_AUDIT_TOOL,
        outcome,
        durationMs: performance.now() - started,
        requestId: c.get("requestId"),
      });
    if (!allowed || !result.ok) {
      audit("denied");
      return plain(c, 403, NO_ACCESS);
    }
    const filter = ExportContactsInput.safeParse(claims.f);
    // Signed by this server, so only a schema changed since (a new version) can refuse it.
    if (!filter.success) return plain(c, 404, NOT_FOUND);
    const out = await exportCsv(deps.sql, result.caller, filter.data);
    audit("ok");
    const stamp = new Date(now()).toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
    return completeResponse(c, https, 200, out.csv, [
      ["Content-Type", "text/csv; charset=utf-8"],
      ["Content-Disposition", `attachment; filename="contacts-${stamp}.csv"`],
      ["Cache-Control", "no-store"],
      // The file cannot say it was cut; these headers do (and the tool's summary said so when the link was made).
      ["X-Export-Rows", String(out.rows)],
      ["X-Export-Matched", String(out.matched)],
      ["X-Export-Cut-By", out.cutBy ?? "none"],
    ]);
  });

  return app;
}

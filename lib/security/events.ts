// The person's security log: one structured log line for every sign-in event (never a secret: ids, kinds,
// network), and, when the person is known, a row in security_events that /account/security shows them.
//
// Exports: `recordSecurityEvent(sql, log, event)`, `requestFacts(c, trustedProxies)`, `securityEvents(deps)` (a
// route's recorder), `SECURITY_EVENT_KINDS`, `listSecurityEvents(sql, userId, limit)`.
// Writing the row never fails the request: a database error is logged and swallowed (the log line stands).
import type { Context } from "hono";
import type { Db } from "../db/client.ts";
import { errorFields, type Logger } from "../log.ts";
import { clientIp, networkKey } from "../http/client_ip.ts";
import type { AppEnv } from "../http/types.ts";

/** Every kind of event; what the person's security page calls each is in the catalogue (t.security.events). */
export const SECURITY_EVENT_KINDS = [
  "sign_in",
  "sign_in_failed",
  "sign_in_throttled",
  "second_factor_failed",
  "second_factor_throttled",
  "step_up",
  "factor_added",
  "factor_removed",
  "recovery_codes_created",
  "recovery_code_used",
  "password_changed",
  "password_reset",
  "password_reset_requested",
  "session_ended",
  "sessions_ended",
  "signed_out",
  "workspace_policy_changed",
] as const;

export type SecurityEventKind = typeof SECURITY_EVENT_KINDS[number];

/** Events that are failures: logged at warn. */
const WARN = new Set<SecurityEventKind>([
  "sign_in_failed",
  "sign_in_throttled",
  "second_factor_failed",
  "second_factor_throttled",
]);

export interface SecurityEvent {
  kind: SecurityEventKind;
  /** the person, when known (a failed sign-in for an unknown email has none: log line only) */
  userId?: string;
  requestId?: string;
  ip?: string;
  userAgent?: string;
  /** small, non-secret facts: `{ factor: "totp" }`, `{ brake: "network" }`, `{ sessions: 3 }` */
  detail?: Record<string, string | number | boolean>;
}

/** What the request says about itself, for an event: address (behind TRUSTED_PROXIES) and browser. */
export function requestFacts(
  c: Context,
  trustedProxies: readonly string[],
): { ip: string; userAgent: string; requestId?: string } {
  const requestId = (c.get as (k: string) => unknown)("requestId");
  return {
    ip: clientIp(c as Context<AppEnv>, trustedProxies),
    userAgent: (c.req.header("user-agent") ?? "").slice(0, 300),
    requestId: typeof requestId === "string" ? requestId : undefined,
  };
}

/** A route's recorder: `(c, kind, userId, detail?)` records the event with the request's facts. */
export function securityEvents(
  deps: { sql: Db; log: Logger; config: { trustedProxies: readonly string[] } },
) {
  return (
    c: Context,
    kind: SecurityEventKind,
    userId: string,
    detail?: SecurityEvent["detail"],
  ): Promise<void> =>
    recordSecurityEvent(deps.sql, deps.log, {
      kind,
      userId,
      ...requestFacts(c, deps.config.trustedProxies),
      detail,
    });
}

export async function recordSecurityEvent(sql: Db, log: Logger, event: SecurityEvent): Promise<void> {
  const fields = {
    event: event.kind,
    request_id: event.requestId,
    ...(event.userId ? { user_id: event.userId } : {}),
    ...(event.ip ? { network: networkKey(event.ip) } : {}),
    ...(event.detail ?? {}),
  };
  if (WARN.has(event.kind)) log.warn("security event", fields);
  else log.info("security event", fields);
  if (!event.userId) return;
  try {
    await sql`
      insert into security_events (user_id, kind, ip, user_agent, detail)
      values (${event.userId}, ${event.kind}, ${(event.ip ?? "").slice(0, 64)},
              ${(event.userAgent ?? "").slice(0, 300)}, ${sql.json(event.detail ?? {})})`;
  } catch (err) {
    log.error("security event not stored", {
      event: event.kind,
      request_id: event.requestId,
      ...errorFields(err),
    });
  }
}

export interface SecurityEventRow {
  kind: SecurityEventKind;
  at: Date;
  ip: string;
  userAgent: string;
  detail: Record<string, unknown>;
}

/** The person's newest events, at most `limit` (≤ 200). */
export function listSecurityEvents(sql: Db, userId: string, limit = 50): Promise<SecurityEventRow[]> {
  return sql<SecurityEventRow[]>`
    select kind, at, ip, user_agent as "userAgent", detail from security_events
    where user_id = ${userId} order by at desc, id desc limit ${Math.min(Math.max(limit, 1), 200)}`;
}

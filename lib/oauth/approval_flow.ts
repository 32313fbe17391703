// The authorization request while it waits on the operators (issue 23): the sealed "waiting" ticket behind the
// waiting page's URL, how long an authorization may wait, and the answer a client gets when it ends unapproved.
import { open, seal } from "../secret_box.ts";
import { type AuthzRequest, redirectWith } from "./authorize.ts";

/**
 * How long one authorization waits for an operator, from the moment the person asked (or came back to a request
 * still pending). Afterwards its page says so and the client gets access_denied; the request itself stays
 * pending for the operators, and once approved the person connects again from the app.
 */
export const APPROVAL_WAIT_SECONDS = 30 * 60;
/** How often the waiting page reloads itself (a meta refresh: no JavaScript needed). */
export const WAIT_REFRESH_SECONDS = 5;

const WAITING_PURPOSE = "authorize-wait";

/**
 * What the waiting page's URL carries, sealed with SECRET_KEY. Unlike a ticket that carries an account, it may
 * be opened many times (the page reloads itself): it only ever shows this request's state to the browser whose
 * session holds `userId`, and continuing leads to the consent page, which still asks for a click.
 */
export interface Waiting {
  req: AuthzRequest;
  userId: string;
  requestId: string;
  /** the account signed in during this request (Ticket.freshLogin), kept for the steps after approval */
  freshLogin?: boolean;
  /** seconds since the epoch after which this authorization stops waiting */
  until: number;
}

export async function sealWaiting(secretKey: string, waiting: Waiting): Promise<string> {
  return await seal(secretKey, WAITING_PURPOSE, JSON.stringify(waiting));
}

/** The waiting ticket, expired or not (the page tells an expired wait apart); null when forged or altered. */
export async function openWaiting(secretKey: string, sealed: unknown): Promise<Waiting | null> {
  if (typeof sealed !== "string" || sealed.length > 8000) return null;
  try {
    const w = JSON.parse(await open(secretKey, WAITING_PURPOSE, sealed)) as Waiting;
    return typeof w.userId === "string" && typeof w.requestId === "string" && typeof w.until === "number"
      ? w
      : null;
  } catch {
    return null;
  }
}

/** The waiting page of a sealed waiting ticket. */
export function waitPath(sealed: string): string {
  return `/oauth/authorize/wait?w=${encodeURIComponent(sealed)}`;
}

/** Why an authorization ended without the operators' approval, in the client's error_description. */
export const UNAPPROVED_DESCRIPTIONS = {
  denied: "an operator denied this application the workspace scope for this person",
  expired: "no operator approved this application in time; the request stays open for them, try again later",
  cancelled: "the person did not ask the operators to approve this application",
  gave_up: "the person stopped waiting for an operator to approve this application",
} as const;

/** The client's redirect URI with access_denied (RFC 6749 §4.1.2.1) for an authorization that ended unapproved. */
export function unapprovedRedirect(
  issuer: string,
  req: AuthzRequest,
  why: keyof typeof UNAPPROVED_DESCRIPTIONS,
): string {
  return redirectWith(req.redirectUri, {
    error: "access_denied",
    error_description: UNAPPROVED_DESCRIPTIONS[why],
    state: req.state,
    iss: issuer,
  });
}

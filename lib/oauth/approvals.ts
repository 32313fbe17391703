// Approval requests and the operators' decisions (issue 23): a person asks for an app that may not obtain
// `workspace` on its own (it registered itself, or is a metadata document under no trusted prefix); an operator
// approves (the app becomes trusted, for everyone) or denies (this person's request ends). Operators also trust
// and untrust apps and metadata-document URL prefixes. Every decision is written to operator_decisions.
import type { Db } from "../db/client.ts";
import { withTx } from "../db/tx.ts";
import { isUuid } from "../errors.ts";
import { setClientTrusted } from "./clients.ts";
import type { Place } from "./workspace_choice.ts";

export type ApprovalStatus = "pending" | "approved" | "denied";

export interface ApprovalRequest {
  id: string;
  clientId: string;
  userId: string;
  workspaceId: string;
  companyId: string | null;
  scopes: string[];
  note: string;
  status: ApprovalStatus;
  createdAt: Date;
  askedAt: Date;
  decidedAt: Date | null;
}

/** The longest note a person may add to a request. */
export const APPROVAL_NOTE_MAX = 500;
/** Pending requests one person may have at once (each new app asks anew; beyond this the page refuses). */
export const MAX_PENDING_PER_PERSON = 20;
/** The most pending requests an operator page or `admin client pending` shows at once (newest first). */
export const PENDING_LIST_MAX = 100;

/** Who decided: an operator's account on a page, or whoever ran the CLI on the server. */
export type Actor = { via: "page"; operatorId: string } | { via: "cli" };

export type DecisionAction =
  | "approve"
  | "deny"
  | "trust"
  | "untrust"
  | "trust_prefix"
  | "untrust_prefix"
  | "grant_operator"
  | "revoke_operator";

const REQUEST_COLUMNS = (db: Db) =>
  db`id, client_id as "clientId", user_id as "userId", workspace_id as "workspaceId", company_id as "companyId",
     scopes, note, status, created_at as "createdAt", asked_at as "askedAt", decided_at as "decidedAt"`;

/** Writes one decision to the trail (inside the caller's transaction, so a decision and its record go together). */
export async function recordDecision(
  db: Db,
  actor: Actor,
  action: DecisionAction,
  fields: { requestId?: string; clientId?: string; subject?: string },
): Promise<void> {
  await db`
    insert into operator_decisions (operator_id, via, action, request_id, client_id, subject)
    values (${actor.via === "page" ? actor.operatorId : null}, ${actor.via}, ${action},
            ${fields.requestId ?? null}, ${fields.clientId ?? null}, ${fields.subject ?? null})`;
}

/** This person's request for this app, if any. */
export async function approvalFor(
  db: Db,
  clientId: string,
  userId: string,
): Promise<ApprovalRequest | undefined> {
  const [row] = await db<ApprovalRequest[]>`
    select ${REQUEST_COLUMNS(db)} from oauth_approval_requests
     where client_id = ${clientId} and user_id = ${userId}`;
  return row;
}

/** A request by id; undefined for an unknown or malformed id. */
export async function getApprovalRequest(db: Db, id: string): Promise<ApprovalRequest | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db<ApprovalRequest[]>`
    select ${REQUEST_COLUMNS(db)} from oauth_approval_requests where id = ${id}`;
  return row;
}

export type AskResult =
  /** `isNew`: the operators have not heard of it yet (tell them); false for a repeated ask or a denied request */
  | { kind: "asked"; request: ApprovalRequest; isNew: boolean }
  | { kind: "too_many" };

/**
 * Records that `userId` asks the operators to approve `clientId` for `workspace` in `place`. One request per app
 * and person: asking again while it is pending refreshes the place, scopes, note and time; a denied request stays
 * denied (the person is told, the operators are not asked again); one approved earlier for an app that has lost
 * the operators' trust since opens again as new.
 */
export async function askApproval(
  db: Db,
  input: { clientId: string; userId: string; place: Place; scopes: string[]; note: string },
): Promise<AskResult> {
  const note = input.note.trim().slice(0, APPROVAL_NOTE_MAX);
  return await withTx(db, async (tx) => {
    // Serialises one person's asks, so the pending limit holds under parallel requests.
    await tx`select pg_advisory_xact_lock(hashtextextended(${"approval:" + input.userId}, 0))`;
    const [current] = await tx<ApprovalRequest[]>`
      select ${REQUEST_COLUMNS(tx)} from oauth_approval_requests
       where client_id = ${input.clientId} and user_id = ${input.userId} for update`;
    if (current?.status === "denied") return { kind: "asked", request: current, isNew: false };
    if (!current || current.status === "approved") {
      const [{ n }] = await tx<{ n: number }[]>`
        select count(*)::int as n from oauth_approval_requests
         where user_id = ${input.userId} and status = 'pending'`;
      if (n >= MAX_PENDING_PER_PERSON) return { kind: "too_many" };
    }
    const [request] = await tx<ApprovalRequest[]>`
      insert into oauth_approval_requests (client_id, user_id, workspace_id, company_id, scopes, note)
      values (${input.clientId}, ${input.userId}, ${input.place.workspaceId}, ${input.place.companyId},
              ${input.scopes}, ${note})
      on conflict (client_id, user_id) do update
        set workspace_id = excluded.workspace_id, company_id = excluded.company_id, scopes = excluded.scopes,
            note = excluded.note, asked_at = now(), status = 'pending',
            created_at = case when oauth_approval_requests.status = 'approved' then now()
                              else oauth_approval_requests.created_at end,
            decided_at = null, decided_by = null
      returning ${REQUEST_COLUMNS(tx)}`;
    return { kind: "asked", request, isNew: current?.status !== "pending" };
  });
}

/** A pending request as the operators see it. */
export interface PendingRequest {
  id: string;
  clientId: string;
  clientName: string;
  redirectUris: string[];
  /** "registered": it registered itself (RFC 7591); "metadata_document": its client_id is a document URL */
  origin: "registered" | "metadata_document";
  /** the host the metadata document came from (metadata documents only) */
  documentHost: string | null;
  clientCreatedAt: Date;
  clientLastUsedAt: Date | null;
  userId: string;
  userEmail: string;
  userName: string;
  workspaceId: string;
  workspaceName: string;
  companyName: string | null;
  scopes: string[];
  note: string;
  createdAt: Date;
  askedAt: Date;
}

/** Pending requests, newest ask first, at most PENDING_LIST_MAX, and how many there are in all. */
export async function listPending(db: Db): Promise<{ requests: PendingRequest[]; total: number }> {
  const rows = await db<(Omit<PendingRequest, "origin" | "documentHost"> & { total: number })[]>`
    select r.id, r.client_id as "clientId", c.name as "clientName", c.redirect_uris as "redirectUris",
           c.created_at as "clientCreatedAt", c.last_used_at as "clientLastUsedAt",
           r.user_id as "userId", u.email as "userEmail", u.name as "userName",
           r.workspace_id as "workspaceId", w.name as "workspaceName", co.name as "companyName",
           r.scopes, r.note, r.created_at as "createdAt", r.asked_at as "askedAt",
           count(*) over ()::int as total
      from oauth_approval_requests r
      join oauth_clients c on c.client_id = r.client_id
      join users u on u.id = r.user_id
      join workspaces w on w.id = r.workspace_id
      left join companies co on co.id = r.company_id
     where r.status = 'pending'
     order by r.asked_at desc, r.id
     limit ${PENDING_LIST_MAX}`;
  return {
    total: rows[0]?.total ?? 0,
    requests: rows.map(({ total: _, ...r }) => ({
      ...r,
      origin: r.clientId.startsWith("pcl_") ? "registered" : "metadata_document",
      documentHost: r.clientId.startsWith("pcl_") ? null : new URL(r.clientId).host,
    })),
  };
}

export type DecideResult =
  | { kind: "decided"; request: ApprovalRequest; status: "approved" | "denied" }
  | { kind: "unknown" }
  | { kind: "already"; status: ApprovalStatus };

/**
 * Approves or denies a pending request. Approving trusts the app (for every person: other pending requests for
 * it are approved with it); denying ends this person's request only. A request decided before is refused with
 * its status, nothing changed.
 */
export async function decideRequest(
  db: Db,
  requestId: string,
  approve: boolean,
  actor: Actor,
): Promise<DecideResult> {
  if (!isUuid(requestId)) return { kind: "unknown" };
  const decidedBy = actor.via === "page" ? actor.operatorId : null;
  return await withTx(db, async (tx) => {
    const [current] = await tx<ApprovalRequest[]>`
      select ${REQUEST_COLUMNS(tx)} from oauth_approval_requests where id = ${requestId} for update`;
    if (!current) return { kind: "unknown" };
    if (current.status !== "pending") return { kind: "already", status: current.status };
    if (!approve) {
      const [request] = await tx<ApprovalRequest[]>`
        update oauth_approval_requests set status = 'denied', decided_at = now(), decided_by = ${decidedBy}
         where id = ${requestId} returning ${REQUEST_COLUMNS(tx)}`;
      await recordDecision(tx, actor, "deny", { requestId, clientId: current.clientId });
      return { kind: "decided", request, status: "denied" };
    }
    await tx`update oauth_clients set trusted = true where client_id = ${current.clientId}`;
    const approved = await tx<{ id: string }[]>`
      update oauth_approval_requests set status = 'approved', decided_at = now(), decided_by = ${decidedBy}
       where client_id = ${current.clientId} and status = 'pending' returning id`;
    for (const { id } of approved) {
      await recordDecision(tx, actor, "approve", { requestId: id, clientId: current.clientId });
    }
    const request = (await getApprovalRequest(tx, requestId))!;
    return { kind: "decided", request, status: "approved" };
  });
}

/**
 * Trusts or untrusts one app (`admin client trust|untrust`, the operator pages); false for an unknown client.
 * Untrusting ends its grants that carry `workspace` (clients.ts setClientTrusted).
 */
export async function setTrust(db: Db, clientId: string, trusted: boolean, actor: Actor): Promise<boolean> {
  return await withTx(db, async (tx) => {
    if (!(await setClientTrusted(tx, clientId, trusted))) return false;
    await recordDecision(tx, actor, trusted ? "trust" : "untrust", { clientId });
    return true;
  });
}

/** An app the operators trust (self-registered or a metadata document), for the operator pages. */
export interface TrustedClient {
  clientId: string;
  name: string;
  redirectUris: string[];
  origin: "registered" | "metadata_document";
  createdAt: Date;
  lastUsedAt: Date | null;
  /** people with a live grant that carries workspace */
  people: number;
}

/** The most trusted apps an operator page lists. */
export const TRUSTED_LIST_MAX = 200;

/** Self-registered and metadata-document apps trusted one by one, most recently used first. */
export async function listTrustedClients(db: Db): Promise<{ clients: TrustedClient[]; total: number }> {
  const rows = await db<(Omit<TrustedClient, "origin"> & { total: number })[]>`
    select c.client_id as "clientId", c.name, c.redirect_uris as "redirectUris", c.created_at as "createdAt",
           c.last_used_at as "lastUsedAt",
           (select count(distinct g.user_id)::int from oauth_grants g
             where g.client_id = c.client_id and g.revoked_at is null and 'workspace' = any(g.scopes)) as people,
           count(*) over ()::int as total
      from oauth_clients c
     where c.self_registered and c.trusted
     order by coalesce(c.last_used_at, c.created_at) desc, c.client_id
     limit ${TRUSTED_LIST_MAX}`;
  return {
    total: rows[0]?.total ?? 0,
    clients: rows.map(({ total: _, ...r }) => ({
      ...r,
      origin: r.clientId.startsWith("pcl_") ? "registered" : "metadata_document",
    })),
  };
}

export interface TrustedPrefix {
  prefix: string;
  createdAt: Date;
}

/** The prefixes operators trusted (the configuration's TRUSTED_CLIENT_ID_PREFIXES are not in the database). */
export async function listTrustedPrefixes(db: Db): Promise<TrustedPrefix[]> {
  return await db<TrustedPrefix[]>`
    select prefix, created_at as "createdAt" from oauth_trusted_prefixes order by prefix limit 500`;
}

/** Whether a prefix trusted in the database covers this metadata-document client_id. */
export async function prefixTrusted(db: Db, clientId: string): Promise<boolean> {
  const [row] = await db<{ ok: boolean }[]>`
    select exists (select 1 from oauth_trusted_prefixes where starts_with(${clientId}, prefix)) as ok`;
  return row.ok;
}

/** Trusts a metadata-document URL prefix (shape checked by the caller, config.ts isClientIdPrefix); false if known. */
export async function trustPrefix(db: Db, prefix: string, actor: Actor): Promise<boolean> {
  return await withTx(db, async (tx) => {
    const rows = await tx`
      insert into oauth_trusted_prefixes (prefix, created_by)
      values (${prefix}, ${actor.via === "page" ? actor.operatorId : null})
      on conflict (prefix) do nothing returning prefix`;
    if (rows.length === 0) return false;
    await recordDecision(tx, actor, "trust_prefix", { subject: prefix });
    return true;
  });
}

/**
 * Withdraws a trusted prefix; false when it was not trusted. The grants carrying `workspace` of the documents it
 * covered end, unless the app is trusted by itself or still covered by another prefix (the database's or
 * `stillTrusted`, the configuration's).
 */
export async function untrustPrefix(
  db: Db,
  prefix: string,
  actor: Actor,
  stillTrusted: readonly string[],
): Promise<boolean> {
  return await withTx(db, async (tx) => {
    const rows = await tx`delete from oauth_trusted_prefixes where prefix = ${prefix} returning prefix`;
    if (rows.length === 0) return false;
    // Ending a grant ends its refresh tokens too: their state is the grant row's.
    await tx`
      update oauth_grants g set revoked_at = now()
        from oauth_clients c
       where c.client_id = g.client_id and starts_with(c.client_id, ${prefix}) and c.self_registered
         and not c.trusted and 'workspace' = any(g.scopes) and g.revoked_at is null
         and not exists (select 1 from oauth_trusted_prefixes p where starts_with(c.client_id, p.prefix))
         and not exists (select 1 from unnest(${stillTrusted as string[]}::text[]) k
                          where starts_with(c.client_id, k))`;
    await recordDecision(tx, actor, "untrust_prefix", { subject: prefix });
    return true;
  });
}

/** Whether this account is an operator. */
export async function isOperator(db: Db, userId: string): Promise<boolean> {
  const [row] = await db<{ operator: boolean }[]>`select operator from users where id = ${userId}`;
  return row?.operator === true;
}

/** Sets or clears an account's operator flag; false for an unknown account. */
export async function setOperator(db: Db, userId: string, operator: boolean, actor: Actor): Promise<boolean> {
  return await withTx(db, async (tx) => {
    const rows = await tx`update users set operator = ${operator} where id = ${userId} returning id`;
    if (rows.length === 0) return false;
    await recordDecision(tx, actor, operator ? "grant_operator" : "revoke_operator", { subject: userId });
    return true;
  });
}

/** One entry of the decision trail. */
export interface Decision {
  at: Date;
  operatorId: string | null;
  operatorEmail: string | null;
  via: "page" | "cli";
  action: DecisionAction;
  requestId: string | null;
  clientId: string | null;
  subject: string | null;
}

/** The latest decisions, newest first (at most `limit`, 1–500). */
export async function recentDecisions(db: Db, limit = 50): Promise<Decision[]> {
  const n = Math.min(Math.max(1, Math.trunc(limit)), 500);
  return await db<Decision[]>`
    select d.at, d.operator_id as "operatorId", u.email as "operatorEmail", d.via, d.action,
           d.request_id as "requestId", d.client_id as "clientId", d.subject
      from operator_decisions d left join users u on u.id = d.operator_id
     order by d.at desc, d.id desc limit ${n}`;
}

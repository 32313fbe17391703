// x-api-key → Caller: key, workspace, member, role and role overrides in one query; rule 1 (key binding).
// The Bearer way in (lib/mcp/bearer.ts) builds the same Caller through `callerFrom`.
import type { ApiKeyKind } from "../api_keys.ts";
import { API_KEY_PREFIX } from "../api_keys.ts";
import type { McpVariant } from "../config.ts";
import { sha256Hex } from "../crypto.ts";
import type postgres from "postgres";
import type { Db } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { errorFields } from "../log.ts";
import { isRole, type Role } from "../workspace/modules.ts";
import { type GcraAnswer, gcraAnswer, type GcraColumns } from "../rate_limit/mod.ts";
import { chargeSql, type McpCharge } from "./charge.ts";
import { allowedAreas, type Area } from "./permissions.ts";

/** Who is calling, derived from the API key once per request. Immutable. */
export interface Caller {
  workspaceId: string;
  /** the API key used; null for an OAuth access token */
  keyId: string | null;
  /** `user` for an OAuth access token: a person, external to the product (variant B) */
  keyKind: ApiKeyKind;
  /** the OAuth client acting, for an access token */
  clientId?: string;
  /** the OAuth grant behind the access token (rate limits and audit group by it) */
  grantId?: string;
  /** the person the key acts as; absent for `workspace` keys */
  userId?: string;
  /** the member's role; null for `workspace` keys, which act for the workspace */
  role: Role | null;
  /** enabled workspace modules */
  modules: readonly string[];
  /** the member is limited to these companies; absent = every company */
  companyIds?: readonly string[];
  /** the key is limited to this company; absent = not limited by the key */
  companyScope?: string;
  /** areas the role may use (rule 3, variant A only; empty for `workspace` keys, which B does not role-gate) */
  areas: ReadonlySet<Area>;
  /** the key or grant is limited to these toolsets (lib/mcp/toolsets.ts); absent = every toolset */
  toolsets?: readonly string[];
  /** the key or grant is limited to read-only tools */
  readOnly?: boolean;
  /**
   * the selection in force for this request: the credential's limits narrowed by the URL's
   * (lib/mcp/toolsets.ts effectiveSelection; set by routes/mcp.ts through `withSelection`); absent = none
   */
  selection?: ConnectionSelection;
}

/** A selection as the caller carries it (lib/mcp/toolsets.ts Selection, without importing that module). */
export interface ConnectionSelection {
  /** only these toolsets; null = every toolset */
  toolsets: readonly string[] | null;
  readOnly: boolean;
}

/** What the caller statement took from the rate limits (lib/mcp/charge.ts); absent when it did not run. */
export interface Charged {
  charged?: GcraAnswer | null;
}

export type CallerResult =
  & ({ ok: true; caller: Caller } | { ok: false; status: 401 | 403; message: string })
  & Charged;

// pak_ + 32 random bytes in base64url (43 characters)
const KEY_SHAPE = /^pak_[A-Za-z0-9_-]{43}$/;
/** last_used_at is written at most once per key per this many seconds */
export const LAST_USED_RESOLUTION_SECONDS = 60;

interface KeyRow extends GcraColumns {
  id: string | null;
  workspaceId: string;
  kind: ApiKeyKind;
  userId: string | null;
  companyId: string | null;
  revoked: boolean;
  stale: boolean;
  modules: string[];
  isMember: boolean;
  role: string | null;
  companyIds: string[] | null;
  overrides: Record<string, string[]> | null;
  userDisabled: boolean;
  toolsets: string[] | null;
  readOnly: boolean;
}

/** Loads the caller for a raw x-api-key value; a stale last_used_at is refreshed in the background. */
export async function loadCaller(
  db: Db,
  rawKey: string | undefined,
  variant: McpVariant,
  log: Logger,
  /** sha256Hex(rawKey), when the caller already computed it (the rate limit's fingerprint): not hashed twice */
  rawKeyHash?: string,
  /** the rate limits' units, taken by the same statement (lib/mcp/charge.ts) */
  charge?: McpCharge,
): Promise<CallerResult> {
  if (rawKey === undefined || rawKey === "") {
    return { ok: false, status: 401, message: "missing x-api-key header" };
  }
  const key = rawKey.trim();
  if (!key.startsWith(API_KEY_PREFIX) || !KEY_SHAPE.test(key)) {
    return { ok: false, status: 401, message: "malformed API key (expected pak_ followed by 43 characters)" };
  }
  const hash = rawKeyHash !== undefined && key === rawKey ? rawKeyHash : sha256Hex(key);
  return await keyCaller(db, db`k.key_hash = ${hash}`, variant, log, charge);
}

/**
 * The caller of an API key by its id, with exactly the checks of `loadCaller`: a signed download link
 * (lib/mcp/exports.ts) names the key that made it, and the download must meet the rules the key meets now.
 */
export async function loadCallerByKeyId(
  db: Db,
  keyId: string,
  variant: McpVariant,
  log: Logger,
  charge?: McpCharge,
): Promise<CallerResult> {
  return await keyCaller(db, db`k.id = ${keyId}`, variant, log, charge);
}

async function keyCaller(
  db: Db,
  which: postgres.Fragment,
  variant: McpVariant,
  log: Logger,
  charge: McpCharge | undefined,
): Promise<CallerResult> {
  // One round trip: the key, its workspace, the member row of its user and the workspace's role overrides, and
  // the request's rate-limit units (the key's when it is live, else the address's).
  const [row] = await db<KeyRow[]>`
    with c as (
    select k.id, k.workspace_id as "workspaceId", k.kind, k.user_id as "userId", k.company_id as "companyId",
           k.toolsets, k.read_only as "readOnly",
           k.revoked_at is not null as revoked,
           (k.last_used_at is null
             or k.last_used_at < now() - make_interval(secs => ${LAST_USED_RESOLUTION_SECONDS})) as stale,
           w.modules,
           m.user_id is not null as "isMember", m.role, m.company_ids as "companyIds",
           coalesce((select u.disabled_at is not null from users u where u.id = k.user_id), false)
             as "userDisabled",
           (select json_object_agg(rp.area, rp.roles) from role_permissions rp
             where rp.workspace_id = k.workspace_id) as overrides
      from api_keys k
      join workspaces w on w.id = k.workspace_id
      left join workspace_members m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
     where ${which}
    ),
    rl_found as (select c.id::text as cid, not c.revoked as live from c),
    ${chargeSql(db, charge, "key:")}
    select c.*, rl.rl_bucket, rl.rl_ok, rl.rl_ahead_ms
      from (values (1)) as one (x) left join c on true left join rl on true`;
  const charged = gcraAnswer(row);
  if (!row || row.id === null) return { ok: false, status: 401, message: "unknown API key", charged };
  if (row.revoked) return { ok: false, status: 401, message: "API key revoked", charged };
  if (row.kind === "workspace" && variant === "A") {
    return { ok: false, status: 403, message: "legacy key: create a new key in your profile", charged };
  }
  // Rule 1: a key bound to a person reaches no more than that person could; a person who left reaches nothing.
  if (row.userId && !row.isMember) {
    return {
      ok: false,
      status: 401,
      message: "the key's user is no longer a member of its workspace",
      charged,
    };
  }
  if (row.userDisabled) return { ok: false, status: 401, message: "the key's user is disabled", charged };
  if (row.stale) touchLastUsed(db, "api_keys", row.id, log);
  return {
    charged,
    ok: true,
    caller: callerFrom({
      workspaceId: row.workspaceId,
      keyId: row.id,
      keyKind: row.kind,
      userId: row.userId,
      role: row.role,
      modules: row.modules,
      companyIds: row.companyIds,
      companyScope: row.companyId,
      overrides: row.overrides,
      toolsets: row.toolsets,
      readOnly: row.readOnly,
    }),
  };
}

/** What a credential resolved to, as read from the database; `callerFrom` turns it into the frozen Caller. */
export interface CallerFacts {
  workspaceId: string;
  keyId: string | null;
  keyKind: ApiKeyKind;
  userId: string | null;
  role: string | null;
  modules: string[];
  companyIds: string[] | null;
  companyScope: string | null;
  overrides: Record<string, string[]> | null;
  clientId?: string;
  grantId?: string;
  toolsets?: string[] | null;
  readOnly?: boolean;
}

/** The one place a Caller is built, whichever way the request came in. */
export function callerFrom(f: CallerFacts): Caller {
  const role = f.role && isRole(f.role) ? f.role : null;
  const caller: Caller = {
    workspaceId: f.workspaceId,
    keyId: f.keyId,
    keyKind: f.keyKind,
    role,
    modules: f.modules,
    areas: allowedAreas(role, f.overrides ?? {}),
  };
  if (f.userId) caller.userId = f.userId;
  if (f.companyIds) caller.companyIds = f.companyIds;
  if (f.companyScope) caller.companyScope = f.companyScope;
  if (f.clientId) caller.clientId = f.clientId;
  if (f.grantId) caller.grantId = f.grantId;
  if (f.toolsets) caller.toolsets = f.toolsets;
  if (f.readOnly) caller.readOnly = true;
  return Object.freeze(caller);
}

/** `caller` with the selection in force for its request (get_context reports it); unchanged when there is none. */
export function withSelection(
  caller: Caller,
  selection: { toolsets: Iterable<string> | null; readOnly: boolean } | null,
): Caller {
  if (!selection) return caller;
  const toolsets = selection.toolsets ? [...selection.toolsets] : null;
  return Object.freeze({ ...caller, selection: { toolsets, readOnly: selection.readOnly } });
}

/**
 * Fire-and-forget: the condition sits in the UPDATE so concurrent requests write at most once per resolution
 * window, and the answer never waits for it. Used for API keys and OAuth grants (lib/mcp/bearer.ts).
 */
export function touchLastUsed(db: Db, table: "api_keys" | "oauth_grants", id: string, log: Logger): void {
  db`
    update ${db(table)} set last_used_at = now()
     where id = ${id}
       and (last_used_at is null
            or last_used_at < now() - make_interval(secs => ${LAST_USED_RESOLUTION_SECONDS}))`
    .then(() => {}, (err) => log.warn(`${table} last_used_at update failed`, errorFields(err)));
}

// Who and where a caller is, as get_context answers it: the person, the credential, the workspace and the
// companies in reach. Read from the database once per call; nothing secret (no key value, hash or token).
import type { Db } from "../db/client.ts";
import { type ScopedCaller, scopeOf } from "./scope.ts";

/** The parts of a caller this module reads (lib/mcp/caller.ts Caller satisfies it). */
export interface ContextCaller extends ScopedCaller {
  keyId: string | null;
  keyKind: "user" | "workspace" | "internal";
  clientId?: string;
}

/** At most this many companies are listed; `companiesTotal` says how many there are. */
export const CONTEXT_MAX_COMPANIES = 100;

export interface CallerFacts {
  /** the person the caller acts as; null for a workspace key (variant B), which acts for the workspace */
  user: { id: string; name: string; email: string } | null;
  /** how the caller came in: an API key (its name and kind; never its id or value) or an OAuth app (its client id and name) */
  credential:
    | { via: "api_key"; name: string; kind: "user" | "workspace" | "internal" }
    | { via: "oauth"; clientId: string; clientName: string };
  workspace: { id: string; name: string };
  /** true: every company of the workspace (and records without one); false: only `companies` */
  allCompanies: boolean;
  /** the companies the caller may reach, by name (at most CONTEXT_MAX_COMPANIES) */
  companies: { id: string; name: string }[];
  companiesTotal: number;
}

interface Row {
  workspaceName: string | null;
  userName: string | null;
  userEmail: string | null;
  keyName: string | null;
  clientName: string | null;
  companies: { id: string; name: string }[] | null;
  companiesTotal: number;
}

/** The facts about `caller` that live in the database, in one query. */
export async function callerFacts(db: Db, caller: ContextCaller): Promise<CallerFacts> {
  const s = scopeOf(caller);
  const ids = s.companyIds === null ? null : [...s.companyIds];
  const inScope = ids === null ? db`true` : db`c.id = any(${ids}::uuid[])`;
  const [row] = await db<Row[]>`
    select (select w.name from workspaces w where w.id = ${s.workspaceId}) as "workspaceName",
           u.name as "userName", u.email as "userEmail",
           (select k.name from api_keys k
             where k.id = ${caller.keyId} and k.workspace_id = ${s.workspaceId}) as "keyName",
           (select oc.name from oauth_clients oc where oc.client_id = ${
    caller.clientId ?? null
  }) as "clientName",
           (select json_agg(json_build_object('id', x.id, 'name', x.name) order by x.name, x.id)
              from (select c.id, c.name from companies c
                     where c.workspace_id = ${s.workspaceId} and ${inScope}
                     order by c.name, c.id limit ${CONTEXT_MAX_COMPANIES}) x) as companies,
           (select count(*)::int from companies c
             where c.workspace_id = ${s.workspaceId} and ${inScope}) as "companiesTotal"
      from (select 1) one
      left join users u on u.id = ${caller.userId ?? null}`;
  const credential: CallerFacts["credential"] = caller.keyId === null
    ? { via: "oauth", clientId: caller.clientId ?? "", clientName: row.clientName ?? "" }
    : { via: "api_key", name: row.keyName ?? "", kind: caller.keyKind };
  return {
    user: caller.userId && row.userEmail !== null
      ? { id: caller.userId, name: row.userName ?? "", email: row.userEmail }
      : null,
    credential,
    workspace: { id: s.workspaceId, name: row.workspaceName ?? "" },
    allCompanies: ids === null,
    companies: row.companies ?? [],
    companiesTotal: row.companiesTotal,
  };
}

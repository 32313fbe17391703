// The operators' decisions from a shell (issue 23): operator accounts, pending approval requests, trusting apps
// and metadata-document URL prefixes. Every change goes through lib/oauth/approvals.ts, so it is audited with
// `via = 'cli'` in operator_decisions, as the operator pages' decisions are with the operator's account.
import { isClientIdPrefix } from "../config.ts";
import { conflict, invalidInput, isUuid, notFound } from "../errors.ts";
import {
  type Actor,
  decideRequest,
  listPending,
  listTrustedPrefixes,
  PENDING_LIST_MAX,
  setOperator,
  setTrust,
  trustPrefix,
  untrustPrefix,
} from "../oauth/approvals.ts";
import { type AdminIo, B, type Command, S, str, type Values } from "./command.ts";
import { findUser } from "./lookup.ts";

const CLI: Actor = { via: "cli" };

async function decide(v: Values, io: AdminIo, approve: boolean): Promise<Record<string, unknown>> {
  const id = str(v, "id");
  if (!isUuid(id)) {
    throw invalidInput("request id must be a UUID (deno task admin client pending lists them)");
  }
  const result = await decideRequest(io.sql, id, approve, CLI);
  if (result.kind === "unknown") throw notFound(`no approval request ${id}`);
  if (result.kind === "already") {
    throw conflict(`approval request ${id} is already ${result.status}; nothing changed`);
  }
  const { request } = result;
  const out: Record<string, unknown> = {
    request_id: request.id,
    client_id: request.clientId,
    user_id: request.userId,
    status: result.status,
  };
  if (result.status === "approved") {
    // Approving trusts the app for everyone: the other pending requests for it were approved in the same
    // statement (one transaction, so one decided_at).
    const [{ n }] = await io.sql<{ n: number }[]>`
      select count(*)::int as n from oauth_approval_requests
       where client_id = ${request.clientId} and status = 'approved' and id <> ${request.id}
         and decided_at = (select decided_at from oauth_approval_requests where id = ${request.id})`;
    out.client_trusted = true;
    out.also_approved = n;
  }
  return out;
}

async function trust(io: AdminIo, clientId: string, trusted: boolean): Promise<Record<string, unknown>> {
  if (!(await setTrust(io.sql, clientId, trusted, CLI))) throw notFound(`no client ${clientId}`);
  return { client_id: clientId, trusted };
}

function prefixOf(v: Values): string {
  const prefix = str(v, "prefix");
  if (!isClientIdPrefix(prefix)) {
    throw invalidInput(
      "prefix must be an https URL prefix with at least the host and a slash (https://claude.ai/oauth/), " +
        "or a loopback http origin and a slash; no query or fragment, at most 500 characters",
    );
  }
  return prefix;
}

export const APPROVAL_COMMANDS: Record<string, Command> = {
  "user operator": {
    usage: "user operator --id U | --email E [--revoke]",
    help:
      "Makes a person an operator (they approve and deny apps on the /operator pages), or no longer one " +
      "with --revoke. Audited.",
    options: { id: S, email: S, revoke: B },
    required: [],
    oneOf: ["id", "email"],
    run: async (v, io) => {
      const user = await findUser(io.sql, v);
      const operator = v.revoke !== true;
      if (!(await setOperator(io.sql, user.id, operator, CLI))) throw notFound(`no user ${user.id}`);
      return { id: user.id, email: user.email, operator };
    },
  },
  "client pending": {
    usage: "client pending",
    help:
      `Lists the pending approval requests, newest ask first (at most ${PENDING_LIST_MAX}): request id, ` +
      "app, person, workspace, when asked; --json adds the note, scopes and redirect URIs.",
    options: {},
    required: [],
    table: {
      key: "requests",
      columns: ["id", "client_id", "client_name", "email", "workspace", "asked_at"],
      empty: "no pending approval requests",
      cut: (result, shown) =>
        `(${Number(result.total) - shown} more pending, not shown; ${result.total} in all, newest first)`,
    },
    run: async (_v, io) => {
      const { requests, total } = await listPending(io.sql);
      return {
        requests: requests.map((r) => ({
          id: r.id,
          client_id: r.clientId,
          client_name: r.clientName,
          origin: r.origin,
          document_host: r.documentHost,
          redirect_uris: r.redirectUris,
          user_id: r.userId,
          email: r.userEmail,
          user_name: r.userName,
          workspace_id: r.workspaceId,
          workspace: r.workspaceName,
          company: r.companyName,
          scopes: r.scopes,
          note: r.note,
          asked_at: r.askedAt.toISOString(),
          created_at: r.createdAt.toISOString(),
        })),
        total,
        truncated: total > requests.length,
      };
    },
  },
  "client approve": {
    usage:
      "client approve <request_id>  (trusts the app for everyone; its other pending requests are approved too)",
    options: { id: S },
    required: ["id"],
    positional: "id",
    run: (v, io) => decide(v, io, true),
  },
  "client deny": {
    usage: "client deny <request_id>  (ends this person's request; the app stays as it was)",
    options: { id: S },
    required: ["id"],
    positional: "id",
    run: (v, io) => decide(v, io, false),
  },
  "client trust": {
    usage:
      "client trust <client_id>  (a self-registered or metadata-document client may then obtain workspace)",
    options: { id: S },
    required: ["id"],
    positional: "id",
    run: (v, io) => trust(io, str(v, "id"), true),
  },
  "client untrust": {
    usage: "client untrust <client_id>  (ends its grants that carry workspace)",
    options: { id: S },
    required: ["id"],
    positional: "id",
    run: (v, io) => trust(io, str(v, "id"), false),
  },
  "client trust-prefix": {
    usage:
      "client trust-prefix <prefix>  (every metadata-document app whose URL starts with it may obtain workspace)",
    options: { prefix: S },
    required: ["prefix"],
    positional: "prefix",
    run: async (v, io) => {
      const prefix = prefixOf(v);
      const added = await trustPrefix(io.sql, prefix, CLI);
      return { prefix, trusted: true, ...(added ? {} : { already: true }) };
    },
  },
  "client untrust-prefix": {
    usage: "client untrust-prefix <prefix>  (ends the workspace grants of the apps only it covered)",
    options: { prefix: S },
    required: ["prefix"],
    positional: "prefix",
    run: async (v, io) => {
      const prefix = prefixOf(v);
      const configured = io.config?.trustedClientIdPrefixes ?? [];
      if (!(await untrustPrefix(io.sql, prefix, CLI, configured))) {
        throw notFound(
          configured.includes(prefix)
            ? `prefix ${prefix} is trusted by TRUSTED_CLIENT_ID_PREFIXES, not in the database: remove it there`
            : `prefix ${prefix} is not trusted`,
        );
      }
      return { prefix, trusted: false };
    },
  },
  "client prefixes": {
    usage: "client prefixes",
    help: "Lists the trusted metadata-document URL prefixes: those trusted with trust-prefix or on the " +
      "operator pages (source database), and TRUSTED_CLIENT_ID_PREFIXES (source config).",
    options: {},
    required: [],
    table: { key: "prefixes", columns: ["prefix", "source", "created_at"], empty: "no trusted prefixes" },
    run: async (_v, io) => {
      const stored = await listTrustedPrefixes(io.sql);
      return {
        prefixes: [
          ...stored.map((p) => ({
            prefix: p.prefix,
            source: "database",
            created_at: p.createdAt.toISOString(),
          })),
          ...(io.config?.trustedClientIdPrefixes ?? []).map((prefix) => ({
            prefix,
            source: "config",
            created_at: null,
          })),
        ],
      };
    },
  },
};

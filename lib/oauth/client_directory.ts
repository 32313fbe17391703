// Finds OAuth clients by id: registered ones (`pcl_…`) in the database, and Client ID Metadata Document clients
// (an https URL as client_id, MCP 2025-11-25) fetched, validated and mirrored into oauth_clients so codes,
// grants and consents can reference them like any other client.
import type { Db } from "../db/client.ts";
import {
  type Client,
  clientColumns,
  type ClientFinder,
  type ClientRow,
  registeredClientRow,
  toClient,
} from "./clients.ts";
import { prefixTrusted } from "./approvals.ts";
import { OAuthError } from "./errors.ts";
import type { MetadataDocument } from "./metadata_document.ts";
import { DEFAULT_REGISTERED_SCOPES } from "./scopes.ts";
import { OPERATOR_ONLY_SCOPES } from "./scope_names.ts";

/** What Portico needs of a validated metadata document (lib/oauth/metadata_document.ts produces it). */
export type DocumentClient =
  & Pick<
    MetadataDocument,
    "clientId" | "name" | "redirectUris" | "grantTypes" | "scopes" | "clientUri" | "logoUri"
  >
  & Partial<Pick<MetadataDocument, "postLogoutRedirectUris">>;

export interface DocumentSource {
  /** True when `clientId` is shaped like a metadata document URL this server would fetch. */
  accepts(clientId: string): boolean;
  /** The validated document; throws OAuthError("invalid_client", why) when it cannot be used. */
  get(clientId: string): Promise<DocumentClient>;
}

export interface ClientDirectory {
  /** The client, undefined when unknown; throws OAuthError("invalid_client") for an unusable document. */
  get(clientId: string): Promise<Client | undefined>;
  /** The same, with the secret hash, for client authentication. */
  find: ClientFinder;
}

export interface ClientDirectoryOptions {
  /** metadata documents; absent = URL client ids are unknown clients */
  documents?: DocumentSource;
  /**
   * URL prefixes (TRUSTED_CLIENT_ID_PREFIXES) whose documents may obtain `workspace`; prefixes the operators
   * trusted in the database (oauth_trusted_prefixes) count as well
   */
  trustedPrefixes?: readonly string[];
}

export function createClientDirectory(db: Db, opts: ClientDirectoryOptions = {}): ClientDirectory {
  const prefixes = opts.trustedPrefixes ?? [];
  const documents = opts.documents;

  async function find(clientId: string): Promise<ClientRow | undefined> {
    if (clientId.startsWith("pcl_")) return await registeredClientRow(db, clientId);
    if (!documents || !documents.accepts(clientId)) return undefined;
    const doc = await documents.get(clientId);
    const row = await mirror(db, doc);
    // Trust for a document comes from the operators' prefixes now (the configuration's, then those trusted on
    // /operator/clients), not from when it was first seen.
    const trusted = row.trusted || prefixes.some((p) => clientId.startsWith(p)) ||
      await prefixTrusted(db, clientId);
    return { ...row, trusted };
  }

  return {
    find,
    async get(clientId) {
      const row = await find(clientId);
      return row ? toClient(row) : undefined;
    },
  };
}

/**
 * Upserts the document's client into oauth_clients (public, self-registered). Written only when the document
 * changed or was last mirrored over a minute ago, so a busy client does not write on every request.
 */
async function mirror(db: Db, doc: DocumentClient): Promise<ClientRow> {
  const scopes = (doc.scopes ?? DEFAULT_REGISTERED_SCOPES).filter((s) => !OPERATOR_ONLY_SCOPES.has(s));
  const grantTypes = [...new Set(doc.grantTypes)];
  const [row] = await db<ClientRow[]>`
    insert into oauth_clients (client_id, secret_hash, name, redirect_uris, grant_types, scopes,
                               token_endpoint_auth_method, client_uri, logo_uri, self_registered,
                               metadata_fetched_at, post_logout_redirect_uris)
    values (${doc.clientId}, null, ${doc.name.slice(0, 200)}, ${doc.redirectUris}, ${grantTypes}, ${scopes},
            'none', ${doc.clientUri}, ${doc.logoUri}, true, now(), ${doc.postLogoutRedirectUris ?? []})
    on conflict (client_id) do update
      set name = excluded.name, redirect_uris = excluded.redirect_uris, grant_types = excluded.grant_types,
          scopes = excluded.scopes, client_uri = excluded.client_uri, logo_uri = excluded.logo_uri,
          post_logout_redirect_uris = excluded.post_logout_redirect_uris, metadata_fetched_at = now()
      where oauth_clients.metadata_fetched_at < now() - interval '1 minute'
         or oauth_clients.name is distinct from excluded.name
         or oauth_clients.redirect_uris is distinct from excluded.redirect_uris
         or oauth_clients.grant_types is distinct from excluded.grant_types
         or oauth_clients.scopes is distinct from excluded.scopes
         or oauth_clients.client_uri is distinct from excluded.client_uri
         or oauth_clients.logo_uri is distinct from excluded.logo_uri
         or oauth_clients.post_logout_redirect_uris is distinct from excluded.post_logout_redirect_uris
    returning ${clientColumns(db)}`;
  if (row) return row;
  const [current] = await db<ClientRow[]>`
    select ${clientColumns(db)} from oauth_clients where client_id = ${doc.clientId}`;
  if (!current) throw new OAuthError("invalid_client", "the client could not be recorded");
  return current;
}

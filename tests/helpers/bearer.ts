// OAuth access tokens for /mcp tests without a browser: an operator client, a grant row bound to a workspace
// (as consent would store it), and a token signed with the app's own keys. The full flow is tested elsewhere.
import type { Sql } from "../../lib/db/client.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { createKeyStore, type KeyStore } from "../../lib/oauth/keys.ts";
import { signAccessToken } from "../../lib/oauth/tokens.ts";
import { TEST_SECRET } from "./app.ts";

export const TEST_ISSUER = "http://localhost:8000";
export const MCP_RESOURCE = `${TEST_ISSUER}/mcp`;

const stores = new WeakMap<Sql, KeyStore>();
const clients = new WeakMap<Sql, string>();

export function keysOf(sql: Sql): KeyStore {
  let keys = stores.get(sql);
  if (!keys) stores.set(sql, keys = createKeyStore(sql, TEST_SECRET));
  return keys;
}

/** The id of one operator-registered client allowed `workspace` (created once per database). */
export async function operatorClient(sql: Sql): Promise<string> {
  let id = clients.get(sql);
  if (!id) {
    id = (await createClient(sql, {
      name: "Operator MCP Client",
      redirectUris: ["http://127.0.0.1:8976/callback"],
      confidential: false,
      scopes: ["openid", "profile", "workspace"],
      grantTypes: ["authorization_code", "refresh_token"],
      selfRegistered: false,
    })).clientId;
    clients.set(sql, id);
  }
  return id;
}

export interface BearerGrant {
  /** "Bearer <jwt>": pass it where tests/helpers/mcp.ts takes a key */
  auth: string;
  token: string;
  grantId: string;
  clientId: string;
}

/** A live grant for `userId` in `workspaceId` (optionally one company) and an access token from it. */
export async function bearerFor(
  sql: Sql,
  opts: {
    userId: string;
    workspaceId: string;
    companyId?: string;
    clientId?: string;
    scopes?: string[];
    audience?: string;
  },
): Promise<BearerGrant> {
  const clientId = opts.clientId ?? await operatorClient(sql);
  const scopes = opts.scopes ?? ["openid", "workspace"];
  const [grant] = await sql<{ id: string }[]>`
    insert into oauth_grants (client_id, user_id, scopes, resource, workspace_id, company_id)
    values (${clientId}, ${opts.userId}, ${scopes}, ${MCP_RESOURCE}, ${opts.workspaceId},
            ${opts.companyId ?? null})
    returning id`;
  const token = await signAccessToken(keysOf(sql), {
    issuer: TEST_ISSUER,
    userId: opts.userId,
    audience: opts.audience ?? MCP_RESOURCE,
    clientId,
    scopes,
    grantId: grant.id,
    authTime: new Date(),
  });
  return { auth: `Bearer ${token}`, token, grantId: grant.id, clientId };
}

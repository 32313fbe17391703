// API keys for the tool server: `pak_` + 256 random bits, stored as SHA-256 hashes, shown once.
import type { Db } from "./db/client.ts";
import { randomToken, sha256Hex } from "./crypto.ts";
import { invalidInput, notFound, requireUuid } from "./errors.ts";
import { isToolset, TOOLSETS } from "./mcp/toolset_names.ts";

export type ApiKeyKind = "user" | "workspace" | "internal";
export const API_KEY_PREFIX = "pak_";

export interface NewApiKey {
  workspaceId: string;
  userId?: string;
  companyId?: string;
  kind?: ApiKeyKind;
  name?: string;
  /** limits the key to these toolsets (lib/mcp/toolsets.ts); absent = every toolset */
  toolsets?: string[];
  /** limits the key to read-only tools */
  readOnly?: boolean;
}

/** Creates a key; the returned `key` is the only time its value exists outside the caller's hands. */
export async function createApiKey(db: Db, input: NewApiKey): Promise<{ id: string; key: string }> {
  const kind = input.kind ?? (input.userId ? "user" : "workspace");
  if (!["user", "workspace", "internal"].includes(kind)) {
    throw invalidInput("kind must be user, workspace or internal");
  }
  if (kind !== "workspace" && !input.userId) throw invalidInput(`a key of kind ${kind} needs --user`);
  const name = input.name ?? "";
  if (name.length > 200) throw invalidInput("name must be at most 200 characters");
  const workspaceId = requireUuid(input.workspaceId, "workspace");
  const [ws] = await db`select 1 from workspaces where id = ${workspaceId}`;
  if (!ws) throw notFound(`no workspace ${workspaceId}`);
  if (input.userId) {
    const userId = requireUuid(input.userId, "user");
    const [m] = await db`
      select 1 from workspace_members where workspace_id = ${workspaceId} and user_id = ${userId}`;
    if (!m) throw notFound(`user ${userId} is not a member of workspace ${workspaceId}`);
  }
  if (input.companyId) {
    const companyId = requireUuid(input.companyId, "company");
    const [c] = await db`select 1 from companies where workspace_id = ${workspaceId} and id = ${companyId}`;
    if (!c) throw notFound(`no company ${companyId} in workspace ${workspaceId}`);
  }
  let toolsets: string[] | null = null;
  if (input.toolsets !== undefined) {
    const unknown = input.toolsets.find((t) => !isToolset(t));
    if (unknown !== undefined) {
      throw invalidInput(`unknown toolset ${unknown}; known: ${TOOLSETS.join(", ")}`);
    }
    if (input.toolsets.length === 0) {
      throw invalidInput(`toolsets must name at least one of: ${TOOLSETS.join(", ")}`);
    }
    toolsets = [...new Set(input.toolsets)];
  }
  const key = randomToken(API_KEY_PREFIX);
  const [row] = await db<{ id: string }[]>`
    insert into api_keys (workspace_id, key_hash, key_prefix, kind, user_id, company_id, name, toolsets, read_only)
    values (${workspaceId}, ${sha256Hex(key)}, ${key.slice(0, 10)}, ${kind}, ${input.userId ?? null},
            ${input.companyId ?? null}, ${name}, ${toolsets}, ${input.readOnly ?? false})
    returning id`;
  return { id: row.id, key };
}

export async function revokeApiKey(db: Db, id: string): Promise<void> {
  requireUuid(id, "id");
  const [row] = await db`
    update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${id} returning id`;
  if (!row) throw notFound(`no API key ${id}`);
}

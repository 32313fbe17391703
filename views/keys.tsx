// /account/keys: create an API key (value shown once), list and revoke own keys; admins see every workspace key.
import type { KeyListing, KeyWorkspace } from "../lib/account_keys.ts";
import { Layout } from "./layout.tsx";

export interface KeysPageProps {
  csrf: string;
  account: { email: string };
  workspaces: KeyWorkspace[];
  /** a key just created: its value, shown this once */
  created?: { name: string; value: string; workspaceName: string };
  notice?: string;
  error?: string;
  /** the MCP endpoint, for the configuration example */
  mcpUrl: string;
  /** variant B: owners and admins may create keys that act for the workspace */
  workspaceKeys: boolean;
}

function KeyItem({ k, csrf, showOwner }: { k: KeyListing; csrf: string; showOwner: boolean }) {
  return (
    <li>
      <strong>{k.name || "(no name)"}</strong> <code>{k.prefix}…</code>{" "}
      <span class="muted">
        {showOwner ? (k.userEmail ? `acts as ${k.userEmail}` : "workspace key") + ", " : ""}
        {k.companyName ? `only ${k.companyName}` : "every company"}, created {k.createdAt},{" "}
        {k.revoked ? "revoked" : k.lastUsedAt ? `last used ${k.lastUsedAt}` : "never used"}
      </span>
      {!k.revoked && (
        <form method="post" action="/account/keys/revoke">
          <input type="hidden" name="csrf" value={csrf} />
          <input type="hidden" name="key_id" value={k.id} />
          <button type="submit" class="danger">Revoke {k.name || k.prefix}</button>
        </form>
      )}
    </li>
  );
}

export function KeysPage(props: KeysPageProps) {
  return (
    <Layout title="API keys" wide>
      <h1>API keys</h1>
      <p class="muted">Signed in as {props.account.email}</p>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      {props.error && <p class="error" role="alert">{props.error}</p>}
      {props.created && (
        <div class="notice" role="status">
          <p>
            Your new key <strong>{props.created.name}</strong> for{" "}
            {props.created.workspaceName}. Copy it now: it is shown only this once.
          </p>
          <p>
            <code id="new-key">{props.created.value}</code>
          </p>
          <p class="muted">
            Send it as the <code>x-api-key</code> header to <code>{props.mcpUrl}</code>.
          </p>
        </div>
      )}
      {props.workspaces.length === 0 && (
        <p>You are not a member of any workspace, so you cannot create keys.</p>
      )}
      {props.workspaces.map((ws) => (
        <section key={ws.id}>
          <h2>{ws.name}</h2>
          <p class="muted">Your role: {ws.role}. A key acts as you and never reaches more than you can.</p>
          <form method="post" action="/account/keys">
            <input type="hidden" name="csrf" value={props.csrf} />
            <input type="hidden" name="workspace_id" value={ws.id} />
            <label for={`name-${ws.id}`}>Key name</label>
            <input
              type="text"
              id={`name-${ws.id}`}
              name="name"
              required
              maxLength={200}
              placeholder="e.g. Claude"
            />
            <label for={`company-${ws.id}`}>Limit to a company (optional)</label>
            <select id={`company-${ws.id}`} name="company_id">
              <option value="">Every company I can see</option>
              {ws.companies.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
            </select>
            {props.workspaceKeys && ["owner", "admin"].includes(ws.role) && (
              <>
                <label for={`acts-${ws.id}`}>The key acts for</label>
                <select id={`acts-${ws.id}`} name="acts_for">
                  <option value="me">Me (my role and companies)</option>
                  <option value="workspace">The workspace (no person; for integrations)</option>
                </select>
              </>
            )}
            <div class="actions">
              <button type="submit">Create key</button>
            </div>
          </form>
          <h2>Your keys</h2>
          {ws.own.length === 0 ? <p class="muted">No keys yet.</p> : (
            <ul class="apps">
              {ws.own.map((k) => <KeyItem key={k.id} k={k} csrf={props.csrf} showOwner={false} />)}
            </ul>
          )}
          {ws.all && (
            <>
              <h2>Every key of {ws.name}</h2>
              <ul class="apps">
                {ws.all.map((k) => <KeyItem key={k.id} k={k} csrf={props.csrf} showOwner />)}
              </ul>
            </>
          )}
        </section>
      ))}
      <footer>
        <a href="/account/apps">Connected apps</a>
        <a href="/signin?return_to=%2Faccount%2Fkeys">Switch account</a>
        <form method="post" action="/signout">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="return_to" value="/account/keys" />
          <button type="submit" class="link">Sign out</button>
        </form>
      </footer>
    </Layout>
  );
}

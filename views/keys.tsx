// /account/keys: create an API key (value shown once, with a copy button), ready configurations per MCP client,
// the keys list (own keys; every workspace key for owners and admins, each once), and Revoke, which leads to a
// confirmation page (GET) before anything happens.
import type { KeyListing, KeyToRevoke, KeyWorkspace } from "../lib/account_keys.ts";
import { type ClientConfig, KEY_VARIABLE } from "../lib/client_configs.ts";
import { limitsText } from "../lib/mcp/toolsets.ts";
import { ConfirmPage } from "./confirm.tsx";
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";
import { ToolsetChoice } from "./toolset_choice.tsx";

export interface KeysPageProps {
  csrf: string;
  account: { email: string };
  workspaces: KeyWorkspace[];
  /** a key just created: its value, shown this once */
  created?: { name: string; value: string; workspaceName: string };
  notice?: string;
  error?: string;
  /** the MCP endpoint, for the configuration examples */
  mcpUrl: string;
  /** lib/client_configs.ts for mcpUrl */
  configs: ClientConfig[];
  /** variant B: owners and admins may create keys that act for the workspace */
  workspaceKeys: boolean;
  /** the account is an operator: the footer links to the operator pages */
  operator?: boolean;
}

/** Own keys: the person's activity page; others' keys (owners and admins): the workspace's. */
function activityHref(k: KeyListing & { workspaceId?: string }): string {
  const q = `?source=${encodeURIComponent(`key:${k.id}`)}`;
  return k.mine || !k.workspaceId
    ? `/account/activity${q}`
    : `/account/workspaces/${k.workspaceId}/activity${q}`;
}

function KeyItem({ k, showOwner }: { k: KeyListing & { workspaceId: string }; showOwner: boolean }) {
  const owner = k.mine ? "yours" : k.userEmail ? `acts as ${k.userEmail}` : "workspace key";
  return (
    <li data-key-id={k.id}>
      <strong>{k.name || "(no name)"}</strong> <code>{k.prefix}…</code>{" "}
      <span class="muted">
        {showOwner ? `${owner}, ` : ""}
        {k.companyName ? `only ${k.companyName}` : "every company"},{" "}
        <span data-limits>{limitsText(k)}</span>, created {k.createdAt},{" "}
        {k.revoked ? "revoked" : k.lastUsedAt ? `last used ${k.lastUsedAt}` : "never used"}
      </span>
      <p>
        <a href={activityHref(k)} data-activity-link>Activity of {k.name || k.prefix}</a>
      </p>
      {!k.revoked && (
        <form method="get" action="/account/keys/revoke">
          <input type="hidden" name="key_id" value={k.id} />
          <button type="submit" class="danger">Revoke {k.name || k.prefix}</button>
        </form>
      )}
    </li>
  );
}

function NewKey({ created, mcpUrl }: { created: NonNullable<KeysPageProps["created"]>; mcpUrl: string }) {
  return (
    <section class="notice" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Your new key</h2>
      <p>
        <strong>{created.name}</strong> for {created.workspaceName}. Copy it now: it is shown only this once.
      </p>
      {/* Plain selectable text (user-select: all); the copy button only appears with JavaScript. */}
      <p>
        <code id="new-key" class="secret">{created.value}</code>
      </p>
      <p class="actions">
        <button type="button" class="secondary" data-copy="new-key" data-status="copy-status" hidden>
          Copy key
        </button>
        <span id="copy-status" role="status"></span>
      </p>
      <p class="muted">
        Send it as the <code>x-api-key</code> header to <code>{mcpUrl}</code>, or set it as{" "}
        <code>{KEY_VARIABLE}</code> for the configurations below.
      </p>
    </section>
  );
}

function Configurations({ configs }: { configs: ClientConfig[] }) {
  return (
    <section aria-labelledby="configs-title">
      <h2 id="configs-title">Connect a client</h2>
      <p class="muted" data-configs-note>
        Cursor, Claude Code and curl read the key from <code>{KEY_VARIABLE}</code>{" "}
        (<code>export {KEY_VARIABLE}=…</code>) and VS Code asks for it, so their files hold no secret. The
        mcp-remote configuration holds the key itself, in its{" "}
        <code>env</code>: Claude Desktop does not pass your shell's variables on, so keep that file to
        yourself.
      </p>
      {configs.map((cfg) => (
        <details key={cfg.id} data-config={cfg.id}>
          <summary>{cfg.client}</summary>
          <p class="muted">{cfg.where}</p>
          <pre><code id={`config-${cfg.id}`}>{cfg.text}</code></pre>
          <p class="actions">
            <button
              type="button"
              class="secondary"
              data-copy={`config-${cfg.id}`}
              data-status={`config-${cfg.id}-status`}
              hidden
            >
              Copy {cfg.client} configuration
            </button>
            <span id={`config-${cfg.id}-status`} role="status"></span>
          </p>
        </details>
      ))}
    </section>
  );
}

export function KeysPage(props: KeysPageProps) {
  return (
    <Layout title="API keys" wide script>
      <AccountNav current="keys" />
      <h1>API keys</h1>
      <p class="muted">Signed in as {props.account.email}</p>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      {props.error && <p class="error" role="alert">{props.error}</p>}
      {props.created && <NewKey created={props.created} mcpUrl={props.mcpUrl} />}
      {props.workspaces.length === 0 && (
        <p>You are not a member of any workspace, so you cannot create keys.</p>
      )}
      {props.workspaces.map((ws) => (
        <section key={ws.id} aria-labelledby={`ws-${ws.id}`}>
          <h2 id={`ws-${ws.id}`}>{ws.name}</h2>
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
            <ToolsetChoice summary="Limit its tools (optional)" toolsets={null} readOnly={false} />
            <div class="actions">
              <button type="submit">Create key</button>
            </div>
          </form>
          <h3>{ws.seesAll ? `Every key of ${ws.name}` : "Your keys"}</h3>
          {ws.keys.length === 0 ? <p class="muted">No keys yet.</p> : (
            <ul class="apps">
              {ws.keys.map((k) => (
                <KeyItem key={k.id} k={{ ...k, workspaceId: ws.id }} showOwner={ws.seesAll} />
              ))}
            </ul>
          )}
        </section>
      ))}
      {props.workspaces.length > 0 && <Configurations configs={props.configs} />}
      <footer>
        <a href="/account/apps">Connected apps</a>
        {props.operator && <a href="/operator/requests">Operator pages</a>}
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

/** The second step of Revoke: which key, and a POST that revokes it. */
export function RevokeKeyConfirmPage(props: { csrf: string; key: KeyToRevoke }) {
  const k = props.key;
  const label = k.name || k.prefix;
  return ConfirmPage({
    title: `Revoke ${label}?`,
    csrf: props.csrf,
    action: "/account/keys/revoke",
    hidden: { key_id: k.id },
    confirmLabel: `Revoke ${label}`,
    cancelHref: "/account/keys",
    children: (
      <>
        <p>
          The key <strong>{label}</strong> <code>{k.prefix}…</code> of {k.workspaceName}
          {k.mine ? "" : k.userEmail ? ` (acts as ${k.userEmail})` : " (a workspace key)"}{" "}
          stops working on its next request. This cannot be undone: a client using it needs a new key.
        </p>
      </>
    ),
  });
}

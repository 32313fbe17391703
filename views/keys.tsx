// /account/keys: create an API key (value shown once, with a copy button), ready configurations per MCP client,
// the keys list (own keys; every workspace key for owners and admins, each once), and Revoke, which leads to a
// confirmation page (GET) before anything happens.
import type { KeyListing, KeyToRevoke, KeyWorkspace } from "../lib/account_keys.ts";
import { type ClientConfig, KEY_VARIABLE } from "../lib/client_configs.ts";
import { type Text, textOf } from "../lib/i18n/mod.ts";
import { ConfirmPage } from "./confirm.tsx";
import { AccountNav } from "./account_nav.tsx";
import { fill, roleName } from "./account_text.tsx";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";
import { limitsText, ToolsetChoice } from "./toolset_choice.tsx";

export interface KeysPageProps {
  csrf: string;
  account: { email: string };
  workspaces: KeyWorkspace[];
  /** a key just created: its value, shown this once */
  created?: { name: string; value: string; workspaceName: string };
  notice?: Text;
  error?: Text;
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
  const { t: all, fmt } = useI18n();
  const t = all.account.keys;
  const owner = k.mine ? t.yours : k.userEmail ? t.actsAs(k.userEmail) : t.workspaceKey;
  return (
    <li data-key-id={k.id}>
      <strong>{k.name || t.noName}</strong> <code>{k.prefix}…</code>{" "}
      <span class="muted">
        {showOwner ? `${owner}, ` : ""}
        {k.companyName ? t.onlyCompany(k.companyName) : t.everyCompany},{" "}
        <span data-limits>{limitsText(all, k)}</span>, {t.created(fmt.time(k.createdAt))},{" "}
        {k.revoked ? t.revokedState : k.lastUsedAt ? t.lastUsed(fmt.time(k.lastUsedAt)) : t.neverUsed}
      </span>
      <p>
        <a href={activityHref(k)} data-activity-link>{all.account.activityOf(k.name || k.prefix)}</a>
      </p>
      {!k.revoked && (
        <form method="get" action="/account/keys/revoke">
          <input type="hidden" name="key_id" value={k.id} />
          <button type="submit" class="danger">{t.revoke(k.name || k.prefix)}</button>
        </form>
      )}
    </li>
  );
}

function NewKey({ created, mcpUrl }: { created: NonNullable<KeysPageProps["created"]>; mcpUrl: string }) {
  const t = useI18n().t.account.keys;
  return (
    <section class="notice" aria-labelledby="new-key-title">
      <h2 id="new-key-title">{t.newKeyTitle}</h2>
      <p>
        <strong>{created.name}</strong>
        {t.newKeyFor(created.workspaceName)}
      </p>
      {/* Plain selectable text (user-select: all); the copy button only appears with JavaScript. */}
      <p>
        <code id="new-key" class="secret">{created.value}</code>
      </p>
      <p class="actions">
        <button
          type="button"
          class="secondary"
          data-copy="new-key"
          data-status="copy-status"
          data-copied={t.copied}
          data-selected={t.selected}
          hidden
        >
          {t.copyKey}
        </button>
        <span id="copy-status" role="status"></span>
      </p>
      <p class="muted">
        {fill(t.sendAs, {
          header: <code>x-api-key</code>,
          url: <code>{mcpUrl}</code>,
          variable: <code>{KEY_VARIABLE}</code>,
        })}
      </p>
    </section>
  );
}

function Configurations({ configs }: { configs: ClientConfig[] }) {
  const t = useI18n().t.account.keys;
  return (
    <section aria-labelledby="configs-title">
      <h2 id="configs-title">{t.configsTitle}</h2>
      <p class="muted" data-configs-note>
        {fill(t.configsNote, {
          variable: <code>{KEY_VARIABLE}</code>,
          export: <code>export {KEY_VARIABLE}=…</code>,
          env: <code>env</code>,
        })}
      </p>
      {configs.map((cfg) => {
        const client = cfg.id === "mcp-remote" ? t.mcpRemoteClient : cfg.client;
        return (
          <details key={cfg.id} data-config={cfg.id}>
            <summary>{client}</summary>
            <p class="muted">{t.where[cfg.id]}</p>
            <pre><code id={`config-${cfg.id}`}>{cfg.text}</code></pre>
            <p class="actions">
              <button
                type="button"
                class="secondary"
                data-copy={`config-${cfg.id}`}
                data-status={`config-${cfg.id}-status`}
                data-copied={t.copied}
                data-selected={t.selected}
                hidden
              >
                {t.copyConfig(client)}
              </button>
              <span id={`config-${cfg.id}-status`} role="status"></span>
            </p>
          </details>
        );
      })}
    </section>
  );
}

export function KeysPage(props: KeysPageProps) {
  const { t: all } = useI18n();
  const t = all.account.keys;
  const title = all.common.nav.keys;
  return (
    <Layout title={title} wide script>
      <AccountNav current="keys" />
      <h1>{title}</h1>
      <p class="muted">{all.account.signedInAs(props.account.email)}</p>
      {props.notice && <p class="notice" role="status">{textOf(all, props.notice)}</p>}
      {props.error && <p class="error" role="alert">{textOf(all, props.error)}</p>}
      {props.created && <NewKey created={props.created} mcpUrl={props.mcpUrl} />}
      {props.workspaces.length === 0 && <p>{t.noWorkspace}</p>}
      {props.workspaces.map((ws) => (
        <section key={ws.id} aria-labelledby={`ws-${ws.id}`}>
          <h2 id={`ws-${ws.id}`}>{ws.name}</h2>
          <p class="muted">{t.yourRole(roleName(all, ws.role))}</p>
          <form method="post" action="/account/keys">
            <input type="hidden" name="csrf" value={props.csrf} />
            <input type="hidden" name="workspace_id" value={ws.id} />
            <label for={`name-${ws.id}`}>{t.keyName}</label>
            <input
              type="text"
              id={`name-${ws.id}`}
              name="name"
              required
              maxLength={200}
              placeholder={t.keyNamePlaceholder}
            />
            <label for={`company-${ws.id}`}>{t.limitCompany}</label>
            <select id={`company-${ws.id}`} name="company_id">
              <option value="">{t.everyCompanyICanSee}</option>
              {ws.companies.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
            </select>
            {props.workspaceKeys && ["owner", "admin"].includes(ws.role) && (
              <>
                <label for={`acts-${ws.id}`}>{t.actsFor}</label>
                <select id={`acts-${ws.id}`} name="acts_for">
                  <option value="me">{t.actsForMe}</option>
                  <option value="workspace">{t.actsForWorkspace}</option>
                </select>
              </>
            )}
            <ToolsetChoice summary={t.limitTools} toolsets={null} readOnly={false} />
            <div class="actions">
              <button type="submit">{t.create}</button>
            </div>
          </form>
          <h3>{ws.seesAll ? t.everyKeyOf(ws.name) : t.yourKeys}</h3>
          {ws.keys.length === 0 ? <p class="muted">{t.noKeys}</p> : (
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
        <a href="/account/apps">{all.common.nav.apps}</a>
        {props.operator && <a href="/operator/requests">{all.account.operatorPages}</a>}
        <a href="/signin?return_to=%2Faccount%2Fkeys">{all.account.switchAccount}</a>
        <form method="post" action="/signout">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="return_to" value="/account/keys" />
          <button type="submit" class="link">{all.account.signOut}</button>
        </form>
      </footer>
    </Layout>
  );
}

/** The second step of Revoke: which key, and a POST that revokes it. (`apiKey`: preact keeps `key` for itself.) */
export function RevokeKeyConfirmPage(props: { csrf: string; apiKey: KeyToRevoke }) {
  const k = props.apiKey;
  const label = k.name || k.prefix;
  return ConfirmPage({
    title: (t) => t.account.keys.confirmTitle(label),
    csrf: props.csrf,
    action: "/account/keys/revoke",
    hidden: { key_id: k.id },
    confirmLabel: (t) => t.account.keys.revoke(label),
    cancelHref: "/account/keys",
    children: <RevokeText k={k} label={label} />,
  });
}

function RevokeText({ k, label }: { k: KeyToRevoke; label: string }) {
  const t = useI18n().t.account.keys;
  const owner = k.mine ? "" : k.userEmail ? t.confirmActsAs(k.userEmail) : t.confirmWorkspaceKey;
  return (
    <p>
      {fill(t.confirmText, {
        key: <strong>{label}</strong>,
        prefix: <code>{k.prefix}…</code>,
        workspace: k.workspaceName,
        owner,
      })}
    </p>
  );
}

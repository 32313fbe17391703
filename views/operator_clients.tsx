// /operator/clients: the apps operators trust one by one (each with Untrust), the trusted metadata-document URL
// prefixes (the configuration's, read-only, and the database's, each with Remove), a form to trust a new prefix,
// and the latest decisions.
import { pageTime } from "../lib/account_apps.ts";
import type { Decision, DecisionAction, TrustedClient, TrustedPrefix } from "../lib/oauth/approvals.ts";
import { HostsText, OperatorFrame } from "./operator.tsx";

export interface ClientsPageProps {
  csrf: string;
  account: { email: string };
  clients: TrustedClient[];
  total: number;
  /** TRUSTED_CLIENT_ID_PREFIXES */
  configPrefixes: readonly string[];
  prefixes: TrustedPrefix[];
  decisions: Decision[];
  notice?: string;
  /** a refused new prefix: what was typed and why it was refused */
  prefixError?: { typed: string; reason: string };
}

const ORIGIN_TEXT: Record<TrustedClient["origin"], string> = {
  registered: "registered itself",
  metadata_document: "metadata document",
};

const ACTION_TEXT: Record<DecisionAction, string> = {
  approve: "approved a request",
  deny: "denied a request",
  trust: "trusted an app",
  untrust: "untrusted an app",
  trust_prefix: "trusted a prefix",
  untrust_prefix: "removed a prefix",
  grant_operator: "made an account an operator",
  revoke_operator: "ended an account's operator role",
};

function people(n: number): string {
  return n === 1 ? "1 person uses it" : `${n} people use it`;
}

function ClientItem({ c, csrf }: { c: TrustedClient; csrf: string }) {
  return (
    <li data-client-id={c.clientId}>
      <strong>{c.name}</strong> <span class="badge" data-origin={c.origin}>{ORIGIN_TEXT[c.origin]}</span>
      <dl class="facts">
        <dt>Client id</dt>
        <dd>
          <code>{c.clientId}</code>
        </dd>
        <dt>Returns to</dt>
        <dd>
          <HostsText uris={c.redirectUris} />
        </dd>
        <dt>First seen</dt>
        <dd>{pageTime(c.createdAt)}</dd>
        <dt>Last used</dt>
        <dd>{c.lastUsedAt ? pageTime(c.lastUsedAt) : "never"}</dd>
        <dt>With workspace</dt>
        <dd data-people={c.people}>{people(c.people)}</dd>
      </dl>
      <form method="post" action="/operator/clients/untrust">
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="client_id" value={c.clientId} />
        <button type="submit" class="danger">Untrust {c.name}</button>
      </form>
    </li>
  );
}

function Prefixes(props: ClientsPageProps) {
  const error = props.prefixError;
  return (
    <section aria-labelledby="prefixes-title">
      <h2 id="prefixes-title">Trusted metadata-document prefixes</h2>
      <p>
        A prefix trusts every install of an app whose metadata document (its client id, a URL) lives under it
        — for example <code class="url">https://claude.ai/oauth/</code>{" "}
        trusts Claude for everyone, without a request per install.
      </p>
      {props.configPrefixes.length === 0 && props.prefixes.length === 0
        ? <p class="muted" data-no-prefixes>No prefix is trusted.</p>
        : (
          <ul class="apps">
            {props.configPrefixes.map((p) => (
              <li key={`config:${p}`} data-config-prefix={p}>
                <code class="url">{p}</code>{" "}
                <span class="muted">set in TRUSTED_CLIENT_ID_PREFIXES (read-only here)</span>
              </li>
            ))}
            {props.prefixes.map((p) => (
              <li key={p.prefix} data-prefix={p.prefix}>
                <code class="url">{p.prefix}</code> <span class="muted">trusted {pageTime(p.createdAt)}</span>
                <form method="post" action="/operator/prefixes/untrust">
                  <input type="hidden" name="csrf" value={props.csrf} />
                  <input type="hidden" name="prefix" value={p.prefix} />
                  <button type="submit" class="danger">Remove {p.prefix}</button>
                </form>
              </li>
            ))}
          </ul>
        )}
      <form method="post" action="/operator/prefixes/trust">
        <input type="hidden" name="csrf" value={props.csrf} />
        <label for="prefix">Trust a prefix</label>
        {error && <p class="error" id="prefix-error" role="alert">{error.reason}</p>}
        <input
          type="text"
          id="prefix"
          name="prefix"
          required
          maxLength={500}
          placeholder="https://claude.ai/oauth/"
          value={error?.typed ?? ""}
          aria-invalid={error ? "true" : undefined}
          aria-describedby={error ? "prefix-error" : undefined}
          autocomplete="off"
          spellcheck={false}
        />
        <div class="actions">
          <button type="submit">Trust prefix</button>
        </div>
      </form>
    </section>
  );
}

function Decisions({ decisions }: { decisions: Decision[] }) {
  return (
    <section aria-labelledby="decisions-title">
      <h2 id="decisions-title">Recent decisions</h2>
      {decisions.length === 0 ? <p class="muted">None yet.</p> : (
        <ul class="apps" data-decisions>
          {decisions.map((d, i) => (
            <li key={i} data-action={d.action}>
              <span class="muted">{pageTime(d.at)}</span>{" "}
              {d.via === "cli" ? "the CLI" : d.operatorEmail ?? "a removed account"} {ACTION_TEXT[d.action]}
              {(d.clientId ?? d.subject) && (
                <>
                  {": "}
                  <code>{d.clientId ?? d.subject}</code>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function ClientsPage(props: ClientsPageProps) {
  const more = props.total - props.clients.length;
  return (
    <OperatorFrame
      title="Trusted apps"
      section="clients"
      account={props.account}
      csrf={props.csrf}
      notice={props.notice}
    >
      <section aria-labelledby="clients-title">
        <h2 id="clients-title">Apps trusted one by one</h2>
        <p>
          These apps registered themselves (or are metadata documents) and were approved: anyone may let them
          use workspace tools. <strong>Untrust</strong>{" "}
          ends their grants that carry workspace at once (their tokens stop at the next request); people then
          ask for approval again.
        </p>
        {props.clients.length === 0
          ? <p class="muted" data-no-clients>No app is trusted one by one.</p>
          : (
            <ul class="apps">
              {props.clients.map((c) => <ClientItem key={c.clientId} c={c} csrf={props.csrf} />)}
            </ul>
          )}
        {more > 0 && (
          <p class="muted" data-more={more}>
            {more} more not shown (the {props.clients.length} used most recently of {props.total}).
          </p>
        )}
      </section>
      <Prefixes {...props} />
      <Decisions decisions={props.decisions} />
    </OperatorFrame>
  );
}

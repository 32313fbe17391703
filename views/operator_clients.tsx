// /operator/clients: the apps operators trust one by one (each with Untrust), the trusted metadata-document URL
// prefixes (the configuration's, read-only, and the database's, each with Remove), a form to trust a new prefix,
// and the latest decisions. In the page's language (lib/i18n/*/operator.ts).
import type { Text } from "../lib/i18n/mod.ts";
import { textOf } from "../lib/i18n/mod.ts";
import type { Decision, TrustedClient, TrustedPrefix } from "../lib/oauth/approvals.ts";
import { HostsText, OperatorFrame } from "./operator.tsx";
import { useI18n } from "./page_context.ts";

export interface ClientsPageProps {
  csrf: string;
  account: { email: string };
  clients: TrustedClient[];
  total: number;
  /** TRUSTED_CLIENT_ID_PREFIXES */
  configPrefixes: readonly string[];
  prefixes: TrustedPrefix[];
  decisions: Decision[];
  notice?: Text;
  /** a refused new prefix: what was typed and why it was refused */
  prefixError?: { typed: string; reason: Text };
}

function ClientItem({ c, csrf }: { c: TrustedClient; csrf: string }) {
  const { fmt, t } = useI18n();
  const o = t.operator;
  return (
    <li data-client-id={c.clientId}>
      <strong>{c.name}</strong>{" "}
      <span class="badge" data-origin={c.origin}>
        {c.origin === "registered" ? o.registeredItself : o.metadataDocument}
      </span>
      <dl class="facts">
        <dt>{o.clientId}</dt>
        <dd>
          <code>{c.clientId}</code>
        </dd>
        <dt>{o.returnsTo}</dt>
        <dd>
          <HostsText uris={c.redirectUris} />
        </dd>
        <dt>{o.firstSeen}</dt>
        <dd>{fmt.time(c.createdAt)}</dd>
        <dt>{o.lastUsed}</dt>
        <dd>{c.lastUsedAt ? fmt.time(c.lastUsedAt) : o.never}</dd>
        <dt>{o.withWorkspace}</dt>
        <dd data-people={c.people}>{o.people(c.people)}</dd>
      </dl>
      <form method="post" action="/operator/clients/untrust">
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="client_id" value={c.clientId} />
        <button type="submit" class="danger">{o.untrust(c.name)}</button>
      </form>
    </li>
  );
}

function Prefixes(props: ClientsPageProps) {
  const { fmt, t } = useI18n();
  const o = t.operator;
  const error = props.prefixError;
  return (
    <section aria-labelledby="prefixes-title">
      <h2 id="prefixes-title">{o.prefixesHeading}</h2>
      <p>
        {o.prefixesIntroBefore} <code class="url">https://claude.ai/oauth/</code> {o.prefixesIntroAfter}
      </p>
      {props.configPrefixes.length === 0 && props.prefixes.length === 0
        ? <p class="muted" data-no-prefixes>{o.noPrefixes}</p>
        : (
          <ul class="apps">
            {props.configPrefixes.map((p) => (
              <li key={`config:${p}`} data-config-prefix={p}>
                <code class="url">{p}</code> <span class="muted">{o.configPrefix}</span>
              </li>
            ))}
            {props.prefixes.map((p) => (
              <li key={p.prefix} data-prefix={p.prefix}>
                <code class="url">{p.prefix}</code>{" "}
                <span class="muted">{o.trustedAt(fmt.time(p.createdAt))}</span>
                <form method="post" action="/operator/prefixes/untrust">
                  <input type="hidden" name="csrf" value={props.csrf} />
                  <input type="hidden" name="prefix" value={p.prefix} />
                  <button type="submit" class="danger">{o.remove(p.prefix)}</button>
                </form>
              </li>
            ))}
          </ul>
        )}
      <form method="post" action="/operator/prefixes/trust">
        <input type="hidden" name="csrf" value={props.csrf} />
        <label for="prefix">{o.trustPrefixLabel}</label>
        {error && <p class="error" id="prefix-error" role="alert">{textOf(t, error.reason)}</p>}
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
          <button type="submit">{o.trustPrefix}</button>
        </div>
      </form>
    </section>
  );
}

function Decisions({ decisions }: { decisions: Decision[] }) {
  const { fmt, t } = useI18n();
  const o = t.operator;
  return (
    <section aria-labelledby="decisions-title">
      <h2 id="decisions-title">{o.decisionsHeading}</h2>
      {decisions.length === 0 ? <p class="muted">{o.noDecisions}</p> : (
        <ul class="apps" data-decisions>
          {decisions.map((d, i) => (
            <li key={i} data-action={d.action}>
              <span class="muted">{fmt.time(d.at)}</span>{" "}
              {d.via === "cli" ? o.viaCli : d.operatorEmail ?? o.removedAccount}{" "}
              {Object.hasOwn(o.actions, d.action) ? o.actions[d.action] : d.action}
              {(d.clientId ?? d.subject) && (
                <>
                  {o.subjectSeparator}
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
  const { fmt, t } = useI18n();
  const o = t.operator;
  const more = props.total - props.clients.length;
  return (
    <OperatorFrame
      title={o.clientsTitle}
      section="clients"
      account={props.account}
      csrf={props.csrf}
      notice={props.notice}
    >
      <section aria-labelledby="clients-title">
        <h2 id="clients-title">{o.clientsHeading}</h2>
        <p>
          {o.clientsIntro} <strong>{o.untrustWord}</strong> {o.untrustMeans}
        </p>
        {props.clients.length === 0 ? <p class="muted" data-no-clients>{o.noClients}</p> : (
          <ul class="apps">
            {props.clients.map((c) => <ClientItem key={c.clientId} c={c} csrf={props.csrf} />)}
          </ul>
        )}
        {more > 0 && (
          <p class="muted" data-more={more}>
            {o.clientsMore(fmt.number(more), fmt.number(props.clients.length), fmt.number(props.total))}
          </p>
        )}
      </section>
      <Prefixes {...props} />
      <Decisions decisions={props.decisions} />
    </OperatorFrame>
  );
}

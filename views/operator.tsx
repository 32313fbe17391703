// /operator/requests: the approval requests waiting for an operator — who asked, where, for which app (its name,
// where it returns to, how it registered, first and last use), the scopes, the note — each with Approve and Deny
// (POST forms with CSRF); and the frame both operator pages share (the nav between them, who is signed in). In the
// page's language (lib/i18n/*/operator.ts).
import { type ComponentChildren, Fragment } from "preact";
import { type Text, textOf } from "../lib/i18n/mod.ts";
import type { PendingRequest } from "../lib/oauth/approvals.ts";
import { redirectHost } from "../lib/oauth/consent.ts";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";

/** How many distinct redirect hosts a row names before "and N more". */
export const MAX_SHOWN_HOSTS = 10;

/** The distinct places an app's redirect URIs lead to (consent.ts redirectHost), at most MAX_SHOWN_HOSTS. */
export function redirectHosts(uris: readonly string[]): { shown: string[]; more: number } {
  const all = [...new Set(uris.map(redirectHost))];
  return { shown: all.slice(0, MAX_SHOWN_HOSTS), more: Math.max(0, all.length - MAX_SHOWN_HOSTS) };
}

export function HostsText({ uris }: { uris: readonly string[] }) {
  const { t, fmt } = useI18n();
  const { shown, more } = redirectHosts(uris);
  return (
    <>
      {shown.map((h, i) => (
        <Fragment key={h}>
          {i > 0 && ", "}
          <code class="url" data-redirect-host>{h}</code>
        </Fragment>
      ))}
      {more > 0 && t.operator.andMore(fmt.number(more))}
    </>
  );
}

export type OperatorSection = "requests" | "clients";

export interface OperatorFrameProps {
  title: string;
  section: OperatorSection;
  account: { email: string };
  csrf: string;
  notice?: Text;
  children: ComponentChildren;
}

/** The operator pages' frame: heading, the nav between the two pages, the notice of the last action, sign-out. */
export function OperatorFrame(props: OperatorFrameProps) {
  const { t } = useI18n();
  const o = t.operator;
  const link = (section: OperatorSection, href: string, label: string) => (
    <a href={href} aria-current={props.section === section ? "page" : undefined}>{label}</a>
  );
  return (
    <Layout title={props.title} wide>
      <nav class="operator-nav" aria-label={o.navLabel}>
        {link("requests", "/operator/requests", o.requestsTitle)}
        {link("clients", "/operator/clients", o.clientsTitle)}
      </nav>
      <h1>{props.title}</h1>
      <p class="muted">{o.signedInAs(props.account.email)}</p>
      {props.notice && <p class="notice" role="status">{textOf(t, props.notice)}</p>}
      {props.children}
      <footer>
        <a href="/account/apps">{t.common.nav.apps}</a>
        <a href="/account/keys">{t.common.nav.keys}</a>
        <form method="post" action="/signout">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="return_to" value={`/operator/${props.section}`} />
          <button type="submit" class="link">{o.signOut}</button>
        </form>
      </footer>
    </Layout>
  );
}

export interface RequestsPageProps {
  csrf: string;
  account: { email: string };
  requests: PendingRequest[];
  total: number;
  notice?: Text;
}

function RequestItem({ r, csrf }: { r: PendingRequest; csrf: string }) {
  const { fmt, t } = useI18n();
  const o = t.operator;
  const origin = r.origin === "registered"
    ? o.registeredItself
    : o.metadataDocumentFrom(r.documentHost ?? "?");
  return (
    <li data-request-id={r.id}>
      <strong>{r.clientName}</strong> <span class="badge" data-origin={r.origin}>{origin}</span>
      <dl class="facts">
        <dt>{o.askedBy}</dt>
        <dd data-asked-by>
          {r.userName ? `${r.userName} ` : ""}&lt;{r.userEmail}&gt;
        </dd>
        <dt>{o.workspace}</dt>
        <dd data-workspace>
          {r.companyName ? o.workspaceOnly(r.workspaceName, r.companyName) : r.workspaceName}
        </dd>
        <dt>{o.returnsTo}</dt>
        <dd>
          <HostsText uris={r.redirectUris} />
        </dd>
        <dt>{o.clientId}</dt>
        <dd>
          <code data-client-id={r.clientId}>{r.clientId}</code>
        </dd>
        <dt>{o.firstSeen}</dt>
        <dd>{fmt.time(r.clientCreatedAt)}</dd>
        <dt>{o.lastUsed}</dt>
        <dd>{r.clientLastUsedAt ? fmt.time(r.clientLastUsedAt) : o.never}</dd>
        <dt>{o.scopes}</dt>
        <dd data-scopes>
          {r.scopes.map((s, i) => (
            <Fragment key={s}>
              {i > 0 && " "}
              <code>{s}</code>
            </Fragment>
          ))}
        </dd>
        <dt>{o.note}</dt>
        <dd data-note>{r.note || <span class="muted">{o.noNote}</span>}</dd>
        <dt>{o.asked}</dt>
        <dd>{fmt.time(r.askedAt)}</dd>
      </dl>
      <div class="actions">
        <form method="post" action="/operator/requests/approve">
          <input type="hidden" name="csrf" value={csrf} />
          <input type="hidden" name="request_id" value={r.id} />
          <button type="submit">{o.approve(r.clientName)}</button>
        </form>
        <form method="post" action="/operator/requests/deny">
          <input type="hidden" name="csrf" value={csrf} />
          <input type="hidden" name="request_id" value={r.id} />
          <button type="submit" class="danger">{o.deny(r.clientName)}</button>
        </form>
      </div>
    </li>
  );
}

export function RequestsPage(props: RequestsPageProps) {
  const { fmt, t } = useI18n();
  const o = t.operator;
  const more = props.total - props.requests.length;
  return (
    <OperatorFrame
      title={o.requestsTitle}
      section="requests"
      account={props.account}
      csrf={props.csrf}
      notice={props.notice}
    >
      <p>
        {o.requestsIntro} <strong>{o.approveWord}</strong> {o.approveMeans} <strong>{o.denyWord}</strong>{" "}
        {o.denyMeans}
      </p>
      {props.requests.length === 0 ? <p data-empty>{o.noRequests}</p> : (
        <ul class="apps">
          {props.requests.map((r) => <RequestItem key={r.id} r={r} csrf={props.csrf} />)}
        </ul>
      )}
      {more > 0 && (
        <p class="muted" data-more={more}>
          {o.requestsMore(fmt.number(more), fmt.number(props.requests.length), fmt.number(props.total))}{" "}
          <code>deno task admin client pending</code>
          {o.requestsMoreAfter}
        </p>
      )}
    </OperatorFrame>
  );
}

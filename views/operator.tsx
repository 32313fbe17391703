// /operator/requests: the approval requests waiting for an operator — who asked, where, for which app (its name,
// where it returns to, how it registered, first and last use), the scopes, the note — each with Approve and Deny
// (POST forms with CSRF); and the frame both operator pages share (the nav between them, who is signed in).
import { type ComponentChildren, Fragment } from "preact";
import { pageTime } from "../lib/account_apps.ts";
import type { PendingRequest } from "../lib/oauth/approvals.ts";
import { redirectHost } from "../lib/oauth/consent.ts";
import { Layout } from "./layout.tsx";

/** How many distinct redirect hosts a row names before "and N more". */
export const MAX_SHOWN_HOSTS = 10;

/** The distinct places an app's redirect URIs lead to (consent.ts redirectHost), at most MAX_SHOWN_HOSTS. */
export function redirectHosts(uris: readonly string[]): { shown: string[]; more: number } {
  const all = [...new Set(uris.map(redirectHost))];
  return { shown: all.slice(0, MAX_SHOWN_HOSTS), more: Math.max(0, all.length - MAX_SHOWN_HOSTS) };
}

export function HostsText({ uris }: { uris: readonly string[] }) {
  const { shown, more } = redirectHosts(uris);
  return (
    <>
      {shown.map((h, i) => (
        <Fragment key={h}>
          {i > 0 && ", "}
          <code class="url" data-redirect-host>{h}</code>
        </Fragment>
      ))}
      {more > 0 && ` and ${more} more`}
    </>
  );
}

export type OperatorSection = "requests" | "clients";

export interface OperatorFrameProps {
  title: string;
  section: OperatorSection;
  account: { email: string };
  csrf: string;
  notice?: string;
  children: ComponentChildren;
}

/** The operator pages' frame: heading, the nav between the two pages, the notice of the last action, sign-out. */
export function OperatorFrame(props: OperatorFrameProps) {
  const link = (section: OperatorSection, href: string, label: string) => (
    <a href={href} aria-current={props.section === section ? "page" : undefined}>{label}</a>
  );
  return (
    <Layout title={props.title} wide>
      <nav class="operator-nav" aria-label="Operator pages">
        {link("requests", "/operator/requests", "Approval requests")}
        {link("clients", "/operator/clients", "Trusted apps")}
      </nav>
      <h1>{props.title}</h1>
      <p class="muted">Signed in as {props.account.email} (operator)</p>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      {props.children}
      <footer>
        <a href="/account/apps">Connected apps</a>
        <a href="/account/keys">API keys</a>
        <form method="post" action="/signout">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="return_to" value={`/operator/${props.section}`} />
          <button type="submit" class="link">Sign out</button>
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
  notice?: string;
}

const ORIGIN_TEXT = {
  registered: () => "registered itself",
  metadata_document: (host: string | null) => `metadata document from ${host ?? "?"}`,
};

function RequestItem({ r, csrf }: { r: PendingRequest; csrf: string }) {
  const origin = r.origin === "registered"
    ? ORIGIN_TEXT.registered()
    : ORIGIN_TEXT.metadata_document(r.documentHost);
  return (
    <li data-request-id={r.id}>
      <strong>{r.clientName}</strong> <span class="badge" data-origin={r.origin}>{origin}</span>
      <dl class="facts">
        <dt>Asked by</dt>
        <dd data-asked-by>
          {r.userName ? `${r.userName} ` : ""}&lt;{r.userEmail}&gt;
        </dd>
        <dt>Workspace</dt>
        <dd data-workspace>
          {r.companyName ? `${r.workspaceName}, only ${r.companyName}` : r.workspaceName}
        </dd>
        <dt>Returns to</dt>
        <dd>
          <HostsText uris={r.redirectUris} />
        </dd>
        <dt>Client id</dt>
        <dd>
          <code data-client-id={r.clientId}>{r.clientId}</code>
        </dd>
        <dt>First seen</dt>
        <dd>{pageTime(r.clientCreatedAt)}</dd>
        <dt>Last used</dt>
        <dd>{r.clientLastUsedAt ? pageTime(r.clientLastUsedAt) : "never"}</dd>
        <dt>Scopes</dt>
        <dd data-scopes>
          {r.scopes.map((s, i) => (
            <Fragment key={s}>
              {i > 0 && " "}
              <code>{s}</code>
            </Fragment>
          ))}
        </dd>
        <dt>Note</dt>
        <dd data-note>{r.note || <span class="muted">none</span>}</dd>
        <dt>Asked</dt>
        <dd>{pageTime(r.askedAt)}</dd>
      </dl>
      <div class="actions">
        <form method="post" action="/operator/requests/approve">
          <input type="hidden" name="csrf" value={csrf} />
          <input type="hidden" name="request_id" value={r.id} />
          <button type="submit">Approve {r.clientName}</button>
        </form>
        <form method="post" action="/operator/requests/deny">
          <input type="hidden" name="csrf" value={csrf} />
          <input type="hidden" name="request_id" value={r.id} />
          <button type="submit" class="danger">Deny {r.clientName}</button>
        </form>
      </div>
    </li>
  );
}

export function RequestsPage(props: RequestsPageProps) {
  const more = props.total - props.requests.length;
  return (
    <OperatorFrame
      title="Approval requests"
      section="requests"
      account={props.account}
      csrf={props.csrf}
      notice={props.notice}
    >
      <p>
        People ask here for apps that may not use workspace tools on their own: apps that registered
        themselves, and metadata-document apps under no trusted prefix. <strong>Approve</strong>{" "}
        trusts the app for everyone on this server (every pending request for it is approved with this one;
        each person still allows it on their own consent page). <strong>Deny</strong>{" "}
        ends this person's request only; the app stays untrusted.
      </p>
      {props.requests.length === 0 ? <p data-empty>No requests are waiting.</p> : (
        <ul class="apps">
          {props.requests.map((r) => <RequestItem key={r.id} r={r} csrf={props.csrf} />)}
        </ul>
      )}
      {more > 0 && (
        <p class="muted" data-more={more}>
          {more} more not shown (newest {props.requests.length} of{" "}
          {props.total}). Decide these and reload, or list them all with{" "}
          <code>deno task admin client pending</code>.
        </p>
      )}
    </OperatorFrame>
  );
}

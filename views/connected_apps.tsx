// /account/apps: the applications a person has approved — each with its client id, registration, last use,
// granted scopes and who registered it, so two registrations of one app are told apart — and Disconnect,
// which leads to a confirmation page (GET) before anything happens.
import type { ConnectedAppDetail } from "../lib/account_apps.ts";
import { pageTime } from "../lib/account_apps.ts";
import { limitsText } from "../lib/mcp/toolsets.ts";
import { ConfirmPage } from "./confirm.tsx";
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";

export type ConnectedAppView = Omit<ConnectedAppDetail, "scopes"> & {
  scopes: Array<{ scope: string; text: string }>;
};

export interface ConnectedAppsProps {
  csrf: string;
  account: { email: string; name: string };
  apps: ConnectedAppView[];
  notice?: string;
  /** the account is an operator: the footer links to the operator pages */
  operator?: boolean;
}

const REGISTERED_BY: Record<ConnectedAppDetail["registeredBy"], string> = {
  itself: "registered itself",
  operator: "registered by the operator",
  metadata_document: "described by its own website",
};

function AppFacts({ app }: { app: ConnectedAppView }) {
  return (
    <dl class="facts">
      <dt>Client id</dt>
      <dd>
        <code data-client-id={app.clientId}>{app.shortId}</code>
      </dd>
      <dt>Returns to</dt>
      <dd>{app.redirectHost}</dd>
      <dt>Registered</dt>
      <dd>{pageTime(app.registeredAt)}</dd>
      <dt>Approved</dt>
      <dd>{pageTime(app.grantedAt)}</dd>
      <dt>Last used</dt>
      <dd data-last-used>{app.lastUsedAt ? pageTime(app.lastUsedAt) : "never"}</dd>
      {app.workspaceName && (
        <>
          <dt>Acts in</dt>
          <dd>{app.companyName ? `${app.workspaceName}, only ${app.companyName}` : app.workspaceName}</dd>
          <dt>Tools</dt>
          <dd data-limits>{limitsText(app)}</dd>
        </>
      )}
    </dl>
  );
}

export function ConnectedAppsPage(props: ConnectedAppsProps) {
  return (
    <Layout title="Connected apps" wide>
      <AccountNav current="apps" />
      <h1>Connected apps</h1>
      <p class="muted">Signed in as {props.account.email}</p>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      {props.apps.length === 0 ? <p>No application has access to your account.</p> : (
        <ul class="apps">
          {props.apps.map((app) => (
            <li key={app.clientId} data-client-id={app.clientId}>
              <strong>{app.name}</strong>{" "}
              <span class="badge" data-registered-by={app.registeredBy}>
                {REGISTERED_BY[app.registeredBy]}
              </span>
              <AppFacts app={app} />
              <p class="muted">It may:</p>
              <ul>
                {app.scopes.map((s) => <li key={s.scope} data-scope={s.scope}>{s.text}</li>)}
              </ul>
              <p>
                <a
                  href={`/account/activity?source=${encodeURIComponent(`app:${app.clientId}`)}`}
                  data-activity-link
                >
                  Activity of {app.name}
                </a>
              </p>
              <form method="get" action="/account/apps/disconnect">
                <input type="hidden" name="client_id" value={app.clientId} />
                <button type="submit" class="danger">Disconnect {app.name}</button>
              </form>
            </li>
          ))}
        </ul>
      )}
      <footer>
        <a href="/account/keys">API keys</a>
        {props.operator && <a href="/operator/requests">Operator pages</a>}
        <a href="/signin?return_to=%2Faccount%2Fapps">Switch account</a>
        <form method="post" action="/signout">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="return_to" value="/account/apps" />
          <button type="submit" class="link">Sign out</button>
        </form>
      </footer>
    </Layout>
  );
}

/** The second step of Disconnect: what ends, and a POST that does it. */
export function DisconnectConfirmPage(props: { csrf: string; app: ConnectedAppView }) {
  const { app } = props;
  return ConfirmPage({
    title: `Disconnect ${app.name}?`,
    csrf: props.csrf,
    action: "/account/apps/revoke",
    hidden: { client_id: app.clientId },
    confirmLabel: `Disconnect ${app.name}`,
    cancelHref: "/account/apps",
    children: (
      <>
        <p>
          {app.name}{" "}
          loses access to your account at once: its tokens stop working on their next use, and it has to ask
          for your approval again to come back.
        </p>
        <AppFacts app={app} />
      </>
    ),
  });
}

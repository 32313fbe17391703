// /account/apps: the applications a person has approved, each with a Disconnect button.
import { Layout } from "./layout.tsx";

export interface ConnectedAppsProps {
  csrf: string;
  account: { email: string; name: string };
  apps: Array<{
    clientId: string;
    name: string;
    redirectHost: string;
    selfRegistered: boolean;
    scopes: Array<{ scope: string; text: string }>;
    grantedAt: string;
  }>;
  notice?: string;
}

export function ConnectedAppsPage(props: ConnectedAppsProps) {
  return (
    <Layout title="Connected apps" wide>
      <h1>Connected apps</h1>
      <p class="muted">Signed in as {props.account.email}</p>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      {props.apps.length === 0 ? <p>No application has access to your account.</p> : (
        <ul class="apps">
          {props.apps.map((app) => (
            <li key={app.clientId}>
              <strong>{app.name}</strong>{" "}
              <span class="muted">
                ({app.redirectHost}
                {app.selfRegistered ? ", self-registered" : ""}, approved {app.grantedAt})
              </span>
              <ul>
                {app.scopes.map((s) => <li key={s.scope}>{s.text}</li>)}
              </ul>
              <form method="post" action="/account/apps/revoke">
                <input type="hidden" name="csrf" value={props.csrf} />
                <input type="hidden" name="client_id" value={app.clientId} />
                <button type="submit" class="danger">Disconnect {app.name}</button>
              </form>
            </li>
          ))}
        </ul>
      )}
      <footer>
        <a href="/account/keys">API keys</a>
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

// /account/apps: the applications a person has approved — each with its client id, registration, last use,
// granted scopes and who registered it, so two registrations of one app are told apart — and Disconnect,
// which leads to a confirmation page (GET) before anything happens.
import type { ConnectedAppDetail } from "../lib/account_apps.ts";
import { type Text, textOf } from "../lib/i18n/mod.ts";
import { ConfirmPage } from "./confirm.tsx";
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";
import { limitsText } from "./toolset_choice.tsx";

export type ConnectedAppView = Omit<ConnectedAppDetail, "scopes"> & {
  scopes: Array<{ scope: string; text: Text }>;
};

export interface ConnectedAppsProps {
  csrf: string;
  account: { email: string; name: string };
  apps: ConnectedAppView[];
  notice?: Text;
  /** the account is an operator: the footer links to the operator pages */
  operator?: boolean;
}

function AppFacts({ app }: { app: ConnectedAppView }) {
  const { t: all, fmt } = useI18n();
  const t = all.account.apps;
  return (
    <dl class="facts">
      <dt>{t.clientId}</dt>
      <dd>
        <code data-client-id={app.clientId}>{app.shortId}</code>
      </dd>
      <dt>{t.returnsTo}</dt>
      <dd>{app.redirectHost}</dd>
      <dt>{t.registered}</dt>
      <dd>{fmt.time(app.registeredAt)}</dd>
      <dt>{t.approved}</dt>
      <dd>{fmt.time(app.grantedAt)}</dd>
      <dt>{t.lastUsed}</dt>
      <dd data-last-used>{app.lastUsedAt ? fmt.time(app.lastUsedAt) : t.never}</dd>
      {app.workspaceName && (
        <>
          <dt>{t.actsIn}</dt>
          <dd>{app.companyName ? t.actsInCompany(app.workspaceName, app.companyName) : app.workspaceName}</dd>
          <dt>{t.tools}</dt>
          <dd data-limits>{limitsText(all, app)}</dd>
        </>
      )}
    </dl>
  );
}

export function ConnectedAppsPage(props: ConnectedAppsProps) {
  const { t: all } = useI18n();
  const t = all.account;
  const title = all.common.nav.apps;
  return (
    <Layout title={title} wide>
      <AccountNav current="apps" />
      <h1>{title}</h1>
      <p class="muted">{t.signedInAs(props.account.email)}</p>
      {props.notice && <p class="notice" role="status">{textOf(all, props.notice)}</p>}
      {props.apps.length === 0 ? <p>{t.apps.none}</p> : (
        <ul class="apps">
          {props.apps.map((app) => (
            <li key={app.clientId} data-client-id={app.clientId}>
              <strong>{app.name}</strong>{" "}
              <span class="badge" data-registered-by={app.registeredBy}>
                {t.apps.registeredBy[app.registeredBy]}
              </span>
              <AppFacts app={app} />
              <p class="muted">{t.apps.mayLabel}</p>
              <ul>
                {app.scopes.map((s) => <li key={s.scope} data-scope={s.scope}>{textOf(all, s.text)}</li>)}
              </ul>
              <p>
                <a
                  href={`/account/activity?source=${encodeURIComponent(`app:${app.clientId}`)}`}
                  data-activity-link
                >
                  {t.activityOf(app.name)}
                </a>
              </p>
              <form method="get" action="/account/apps/disconnect">
                <input type="hidden" name="client_id" value={app.clientId} />
                <button type="submit" class="danger">{t.apps.disconnect(app.name)}</button>
              </form>
            </li>
          ))}
        </ul>
      )}
      <footer>
        <a href="/account/keys">{all.common.nav.keys}</a>
        {props.operator && <a href="/operator/requests">{t.operatorPages}</a>}
        <a href="/signin?return_to=%2Faccount%2Fapps">{t.switchAccount}</a>
        <form method="post" action="/signout">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="return_to" value="/account/apps" />
          <button type="submit" class="link">{t.signOut}</button>
        </form>
      </footer>
    </Layout>
  );
}

/** The second step of Disconnect: what ends, and a POST that does it. */
export function DisconnectConfirmPage(props: { csrf: string; app: ConnectedAppView }) {
  const { app } = props;
  return ConfirmPage({
    title: (t) => t.account.apps.confirmTitle(app.name),
    csrf: props.csrf,
    action: "/account/apps/revoke",
    hidden: { client_id: app.clientId },
    confirmLabel: (t) => t.account.apps.disconnect(app.name),
    cancelHref: "/account/apps",
    children: (
      <>
        <DisconnectText name={app.name} />
        <AppFacts app={app} />
      </>
    ),
  });
}

function DisconnectText({ name }: { name: string }) {
  return <p>{useI18n().t.account.apps.confirmText(name)}</p>;
}

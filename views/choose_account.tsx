// The account chooser: every account signed in on this browser, "Use another account" and "Sign out".
import { Fill } from "./fill.tsx";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";

export interface ChooserAccount {
  userId: string;
  email: string;
  name: string;
}

export interface ChooseAccountProps {
  csrf: string;
  /** where choosing posts (`/oauth/authorize/select` or `/account/switch`) */
  action: string;
  /** hidden fields for every form: `ticket` or `return_to` */
  hidden: Record<string, string>;
  accounts: ChooserAccount[];
  clientName?: string;
}

function Hidden({ csrf, hidden }: { csrf: string; hidden: Record<string, string> }) {
  return (
    <>
      <input type="hidden" name="csrf" value={csrf} />
      {Object.entries(hidden).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
    </>
  );
}

export function ChooseAccountPage(props: ChooseAccountProps) {
  const { t } = useI18n();
  return (
    <Layout title={t.flow.chooser.title}>
      <h1>{t.flow.chooser.title}</h1>
      {props.clientName && (
        <p>
          <Fill text={t.flow.continueTo} app={<strong>{props.clientName}</strong>} />
        </p>
      )}
      <ul class="accounts">
        {props.accounts.map((a) => (
          <li key={a.userId}>
            <form method="post" action={props.action}>
              <Hidden csrf={props.csrf} hidden={props.hidden} />
              <input type="hidden" name="user_id" value={a.userId} />
              <button type="submit">
                <span class="name">{a.name || a.email}</span>
                <span class="muted">{a.email}</span>
              </button>
            </form>
          </li>
        ))}
      </ul>
      <div class="actions">
        <form method="post" action={props.action}>
          <Hidden csrf={props.csrf} hidden={props.hidden} />
          <input type="hidden" name="user_id" value="" />
          <button type="submit" class="secondary">{t.flow.chooser.another}</button>
        </form>
        <form method="post" action="/signout">
          <Hidden csrf={props.csrf} hidden={props.hidden} />
          <button type="submit" class="secondary">{t.flow.chooser.signOut}</button>
        </form>
      </div>
    </Layout>
  );
}

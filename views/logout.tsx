// RP-initiated logout pages (/oauth/logout): the question "Sign out of <brand>?" with the accounts that will be
// signed out and where the browser goes next (a form that POSTs with CSRF, and "Stay signed in"), and the page
// that says the person is signed out when no application asked to be returned to.
import { Fill } from "./fill.tsx";
import { BrandName, Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";

export interface LogoutConfirmProps {
  csrf: string;
  /** the sealed request (lib/oauth/logout.ts) */
  request: string;
  /** the accounts this browser signs out of */
  emails: string[];
  /** the application that asked, when known */
  clientName: string | null;
  /** the application's registered address afterwards: the page names where the browser goes */
  returnsToApp: boolean;
  /** where "Stay signed in" leads */
  stayHref: string;
}

export function LogoutConfirmPage(props: LogoutConfirmProps) {
  const { t } = useI18n();
  const l = t.flow.logout;
  return (
    <Layout title={l.title}>
      <h1>
        <Fill text={l.heading} brand={<BrandName />} />
      </h1>
      {props.clientName && (
        <p>
          <Fill text={l.asked} app={<strong>{props.clientName}</strong>} />
        </p>
      )}
      <p>{l.accounts}</p>
      <ul data-logout-accounts>
        {props.emails.map((e) => <li key={e}>{e}</li>)}
      </ul>
      {props.returnsToApp && props.clientName && <p class="muted">{l.afterwards(props.clientName)}</p>}
      <form method="post" action="/oauth/logout/confirm">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="request" value={props.request} />
        <div class="actions">
          <button type="submit" class="danger">{l.signOut}</button>
          <a class="button secondary" href={props.stayHref}>{l.stay}</a>
        </div>
      </form>
    </Layout>
  );
}

export function SignedOutPage() {
  const { t } = useI18n();
  const l = t.flow.logout;
  return (
    <Layout title={l.doneTitle}>
      <h1>{l.doneHeading}</h1>
      <p>
        <Fill text={l.done} brand={<BrandName />} />
      </p>
      <div class="actions">
        <a class="button secondary" href="/signin">{l.signInAgain}</a>
      </div>
    </Layout>
  );
}

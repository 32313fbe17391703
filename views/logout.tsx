// RP-initiated logout pages (/oauth/logout): the question "Sign out of <brand>?" with the accounts that will be
// signed out and where the browser goes next (a form that POSTs with CSRF, and "Stay signed in"), and the page
// that says the person is signed out when no application asked to be returned to.
import { BrandName, Layout } from "./layout.tsx";

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
  return (
    <Layout title="Sign out?">
      <h1>
        Sign out of <BrandName />?
      </h1>
      {props.clientName && (
        <p>
          <strong>{props.clientName}</strong> asked to sign you out.
        </p>
      )}
      <p>This browser will be signed out of:</p>
      <ul data-logout-accounts>
        {props.emails.map((e) => <li key={e}>{e}</li>)}
      </ul>
      {props.returnsToApp && props.clientName && (
        <p class="muted">Afterwards you go back to {props.clientName}.</p>
      )}
      <form method="post" action="/oauth/logout/confirm">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="request" value={props.request} />
        <div class="actions">
          <button type="submit" class="danger">Sign out</button>
          <a class="button secondary" href={props.stayHref}>Stay signed in</a>
        </div>
      </form>
    </Layout>
  );
}

export function SignedOutPage() {
  return (
    <Layout title="Signed out">
      <h1>You are signed out</h1>
      <p>
        Your account is signed out of <BrandName /> in this browser.
      </p>
      <div class="actions">
        <a class="button secondary" href="/signin">Sign in again</a>
      </div>
    </Layout>
  );
}

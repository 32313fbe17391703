// The sign-in page: email and password, one message for every failed attempt, hidden fields to continue after.
import { Layout } from "./layout.tsx";
import { PasskeySignIn } from "./passkeys.tsx";

export interface SignInProps {
  csrf: string;
  /** hidden fields that say where to continue: `ticket` (authorization) or `return_to` (account pages) */
  hidden: Record<string, string>;
  email?: string;
  problem?: "invalid_credentials" | "throttled" | "disabled";
  /** the application asking, when signing in for an authorization request */
  clientName?: string;
  /** a notice above the form (the password was just reset) */
  notice?: string;
  /** a link back to the account chooser when other accounts are signed in */
  backHref?: string;
}

export const SIGN_IN_MESSAGES = {
  invalid_credentials: "That email and password do not match an account.",
  disabled: "This account is disabled. Ask the operator of this service to enable it again.",
  // The wait grows with each further attempt (1 to 15 minutes), so no fixed figure here.
  throttled: "Too many failed attempts. Wait a few minutes and try again.",
} as const;

export function SignInPage(props: SignInProps) {
  return (
    <Layout title="Sign in">
      <h1>Sign in</h1>
      {props.clientName && (
        <p>
          to continue to <strong>{props.clientName}</strong>
        </p>
      )}
      {props.notice && <p role="status">{props.notice}</p>}
      {props.problem && (
        <p class="error" role="alert">
          {SIGN_IN_MESSAGES[props.problem]}
        </p>
      )}
      <form id="sign-in" method="post" action="/signin">
        <input type="hidden" name="csrf" value={props.csrf} />
        {Object.entries(props.hidden).map(([name, value]) => (
          <input
            type="hidden"
            name={name}
            value={value}
          />
        ))}
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          // "webauthn": the browser may offer this site's passkeys in the field's autofill (conditional UI).
          autocomplete="username webauthn"
          // The one field every visitor types first; the page has nothing else to read before it.
          autofocus
          required
          value={props.email ?? ""}
        />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <div class="actions">
          <button type="submit">Sign in</button>
          <a class="button secondary" href="/signin/forgot">Forgot password?</a>
          {props.backHref && <a class="button secondary" href={props.backHref}>Back</a>}
        </div>
      </form>
      {/* Shown by /assets/passkeys.js when the browser has WebAuthn; the route sends PASSKEY_CSP. */}
      <PasskeySignIn formId="sign-in" />
    </Layout>
  );
}

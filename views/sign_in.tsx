// The sign-in page: email and password, one message for every failed attempt, hidden fields to continue after.
import type { SignInProblem } from "../lib/oauth/authorize.ts";
import { type Text, textOf } from "../lib/i18n/mod.ts";
import { Fill } from "./fill.tsx";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";
import { PasskeySignIn } from "./passkeys.tsx";

export interface SignInProps {
  csrf: string;
  /** hidden fields that say where to continue: `ticket` (authorization) or `return_to` (account pages) */
  hidden: Record<string, string>;
  email?: string;
  /** why the last attempt failed: one message each (the catalogue's flow.signIn.problems) */
  problem?: SignInProblem;
  /** the application asking, when signing in for an authorization request */
  clientName?: string;
  /** a notice above the form (the password was just reset) */
  notice?: Text;
  /** a link back to the account chooser when other accounts are signed in */
  backHref?: string;
}

export function SignInPage(props: SignInProps) {
  const { t } = useI18n();
  const s = t.flow.signIn;
  return (
    <Layout title={s.title}>
      <h1>{s.title}</h1>
      {props.clientName && (
        <p>
          <Fill text={t.flow.continueTo} app={<strong>{props.clientName}</strong>} />
        </p>
      )}
      {props.notice && <p role="status">{textOf(t, props.notice)}</p>}
      {props.problem && (
        <p class="error" role="alert">
          {s.problems[props.problem]}
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
        <label for="email">{s.email}</label>
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
        <label for="password">{s.password}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <div class="actions">
          <button type="submit">{s.submit}</button>
          <a class="button secondary" href="/signin/forgot">{s.forgot}</a>
          {props.backHref && <a class="button secondary" href={props.backHref}>{s.back}</a>}
        </div>
      </form>
      {/* Shown by /assets/passkeys.js when the browser has WebAuthn; the route sends PASSKEY_CSP. */}
      <PasskeySignIn formId="sign-in" />
    </Layout>
  );
}

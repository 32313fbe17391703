// /account/security: the overview (password, two-step sign-in, passkeys, recovery codes, the browsers signed in,
// and the person's recent security events), and /account/security/password (change the password: the current one,
// then the new one twice; in "required" mode after a sign-in whose password falls short of the policy).
//
// Exports: `SecurityOverviewPage`, `ChangePasswordPage`, `PASSWORD_RULE` (the policy in one sentence, also on the
// reset page).
import { pageTime } from "../lib/account_apps.ts";
import { deviceSummary } from "../lib/oauth/session_list.ts";
import {
  SECURITY_EVENT_KINDS,
  type SecurityEventKind,
  type SecurityEventRow,
} from "../lib/security/events.ts";
import type { Factors } from "../lib/security/factors.ts";
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";

export const PASSWORD_RULE =
  "At least 12 characters. Several unrelated words make a strong password that is easy " +
  "to remember; common passwords and ones made from your email address are refused.";

function eventText(kind: string): string {
  return SECURITY_EVENT_KINDS[kind as SecurityEventKind] ?? kind;
}

export interface SecurityOverviewProps {
  csrf: string;
  account: { email: string };
  passwordChangedAt: Date | null;
  factors: Factors;
  events: SecurityEventRow[];
  notice?: string;
}

export function SecurityOverviewPage(props: SecurityOverviewProps) {
  const { factors } = props;
  return (
    <Layout title="Security" wide>
      <AccountNav current="security" />
      <h1>Security</h1>
      <p class="muted">Signed in as {props.account.email}</p>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      <section aria-labelledby="password-title">
        <h2 id="password-title">Password</h2>
        <p data-password-changed>
          {props.passwordChangedAt
            ? `Last changed ${pageTime(props.passwordChangedAt)}.`
            : "Not changed since the account was created."}{" "}
          <a href="/account/security/password">Change password</a>
        </p>
      </section>
      <section aria-labelledby="two-step-title">
        <h2 id="two-step-title">Two-step sign-in</h2>
        <dl class="facts">
          <dt>Authenticator app</dt>
          <dd data-totp={factors.totp ? "on" : "off"}>
            {factors.totp ? "On" : "Off"} ·{" "}
            <a href="/account/security/two-step">{factors.totp ? "Manage" : "Set up"}</a>
          </dd>
          <dt>Passkeys</dt>
          <dd data-passkeys={factors.passkeys}>
            {factors.passkeys === 0
              ? "None"
              : factors.passkeys === 1
              ? "1 passkey"
              : `${factors.passkeys} passkeys`}
            {" · "}
            <a href="/account/security/passkeys">
              {factors.passkeys === 0 ? "Add a passkey" : "Manage passkeys"}
            </a>
          </dd>
          <dt>Recovery codes</dt>
          <dd data-recovery-codes={factors.recoveryCodesLeft}>
            {factors.recoveryCodesLeft === 0 ? "None left" : `${factors.recoveryCodesLeft} left`}
          </dd>
        </dl>
      </section>
      <section aria-labelledby="sessions-title">
        <h2 id="sessions-title">Where you are signed in</h2>
        <p>
          <a href="/account/sessions">See the browsers signed in to your account</a>, and sign out of the ones
          you do not know.
        </p>
      </section>
      <section aria-labelledby="events-title">
        <h2 id="events-title">Recent security events</h2>
        {props.events.length === 0 ? <p class="muted">Nothing recorded yet.</p> : (
          <ul class="events">
            {props.events.map((e, i) => (
              <li key={i} data-event={e.kind}>
                <strong>{eventText(e.kind)}</strong>{" "}
                <span class="muted">
                  {pageTime(e.at)} · {e.ip || "unknown address"} · {deviceSummary(e.userAgent)}
                </span>
              </li>
            ))}
          </ul>
        )}
        <p class="muted">
          The {props.events.length === 50 ? "50 newest" : "newest"}{" "}
          events: sign-ins and failed attempts, changes to your password and second factors, sign-outs.
        </p>
      </section>
      <footer>
        <a href={`/signin?return_to=${encodeURIComponent("/account/security")}`}>Switch account</a>
        <form method="post" action="/signout">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="return_to" value="/account/security" />
          <button type="submit" class="link">Sign out</button>
        </form>
      </footer>
    </Layout>
  );
}

export interface ChangePasswordProps {
  csrf: string;
  account: { email: string };
  /** after a sign-in with a password that falls short of the policy: no way on but changing it */
  required?: boolean;
  /** where to go afterwards (a same-origin path), carried in the form */
  next?: string;
  problem?: string;
}

export function ChangePasswordPage(props: ChangePasswordProps) {
  const required = props.required;
  return (
    <Layout title={required ? "Choose a new password" : "Change password"}>
      {!required && <AccountNav current="security" />}
      <h1>{required ? "Choose a new password" : "Change password"}</h1>
      <p class="muted">Signed in as {props.account.email}</p>
      {required && (
        <p data-required>
          Your password falls short of our password rules: it is shorter than 12 characters, or it is common
          or easy to guess (attackers try such passwords first). Choose a new one to go on; you stay signed in
          here, and other browsers are signed out.
        </p>
      )}
      {props.problem && <p class="error" role="alert">{props.problem}</p>}
      <form method="post" action="/account/security/password">
        <input type="hidden" name="csrf" value={props.csrf} />
        {required && <input type="hidden" name="required" value="1" />}
        {props.next && <input type="hidden" name="next" value={props.next} />}
        <label for="current">Current password</label>
        <input
          id="current"
          name="current"
          type="password"
          autocomplete="current-password"
          required
          autofocus
        />
        <label for="password">New password</label>
        <p class="muted" id="password-rule">{PASSWORD_RULE}</p>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          aria-describedby="password-rule"
          minLength={12}
          required
        />
        <label for="confirm">New password again</label>
        <input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
        <div class="actions">
          <button type="submit">Change password</button>
          {!required && <a class="button secondary" href="/account/security">Cancel</a>}
        </div>
      </form>
    </Layout>
  );
}

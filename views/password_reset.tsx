// The "Forgot password?" pages: ask for a link, the one answer every request gets, choose a new password, and
// the page for a link that no longer works. Plus the dev mailbox (`deno task dev` without SMTP_URL).
import type { DevMail } from "../lib/mail.ts";
import { PASSWORD_RULE } from "./account_security.tsx";
import { Layout } from "./layout.tsx";

export function ForgotPasswordPage(props: { csrf: string }) {
  return (
    <Layout title="Forgot password">
      <h1>Forgot password</h1>
      <p>Enter the email address of your account. We will send a link to choose a new password.</p>
      <form method="post" action="/signin/forgot">
        <input type="hidden" name="csrf" value={props.csrf} />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" autofocus required />
        <div class="actions">
          <button type="submit">Send link</button>
          <a class="button secondary" href="/signin">Back to sign-in</a>
        </div>
      </form>
    </Layout>
  );
}

/** The same words for every request: an account or not, disabled, throttled. */
export const RESET_SENT_MESSAGE =
  "If an account exists for that address, we sent a link to choose a new password. It works once, for 30 minutes.";

export function ResetSentPage() {
  return (
    <Layout title="Check your email">
      <h1>Check your email</h1>
      <p role="status">{RESET_SENT_MESSAGE}</p>
      <p>No mail after a few minutes? Check the spam folder, or ask for a new link later.</p>
      <div class="actions">
        <a class="button secondary" href="/signin">Back to sign-in</a>
      </div>
    </Layout>
  );
}

export function ResetPasswordPage(props: { csrf: string; token: string; problem?: string }) {
  return (
    <Layout title="Choose a new password">
      <h1>Choose a new password</h1>
      {props.problem && <p class="error" role="alert">{props.problem}</p>}
      <form method="post" action="/signin/reset">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="token" value={props.token} />
        <label for="password">New password (at least 12 characters)</label>
        <p class="muted" id="password-rule">{PASSWORD_RULE}</p>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          aria-describedby="password-rule"
          minLength={12}
          autofocus
          required
        />
        <label for="confirm">New password again</label>
        <input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
        <div class="actions">
          <button type="submit">Set password</button>
        </div>
      </form>
    </Layout>
  );
}

export function ResetLinkInvalidPage() {
  return (
    <Layout title="Link not valid">
      <h1>This link does not work any more</h1>
      <p role="alert">
        A password reset link works once and for 30 minutes, and only the newest one sent works. Nothing was
        changed.
      </p>
      <div class="actions">
        <a class="button" href="/signin/forgot">Ask for a new link</a>
        <a class="button secondary" href="/signin">Back to sign-in</a>
      </div>
    </Layout>
  );
}

export function DevMailboxPage(props: { mails: readonly DevMail[] }) {
  return (
    <Layout title="Dev mailbox" wide>
      <h1>Dev mailbox</h1>
      <p>
        Mail this server would have sent (no <code>SMTP_URL</code>{" "}
        is set; shown only with the embedded database). Newest first, the last 50.
      </p>
      {props.mails.length === 0 ? <p>No mail yet.</p> : props.mails.map((m, n) => (
        <section key={n}>
          <h2>{m.subject}</h2>
          <p>
            To {m.to}, {m.at.toISOString()}
          </p>
          <pre>{m.text.split(/(https?:\/\/\S+)/).map((part, i) => i % 2 === 1 ? <a key={i} href={part}>{part}</a> : part)}</pre>
        </section>
      ))}
    </Layout>
  );
}

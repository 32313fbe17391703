// The "Forgot password?" pages: ask for a link, the one answer every request gets, choose a new password, and
// the page for a link that no longer works. Plus the dev mailbox (`deno task dev` without SMTP_URL).
import { type Text, textOf } from "../lib/i18n/mod.ts";
import type { DevMail } from "../lib/mail.ts";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";

export function ForgotPasswordPage(props: { csrf: string }) {
  const t = useI18n().t.security.reset;
  return (
    <Layout title={t.forgotTitle}>
      <h1>{t.forgotTitle}</h1>
      <p>{t.forgotIntro}</p>
      <form method="post" action="/signin/forgot">
        <input type="hidden" name="csrf" value={props.csrf} />
        <label for="email">{t.email}</label>
        <input id="email" name="email" type="email" autocomplete="username" autofocus required />
        <div class="actions">
          <button type="submit">{t.sendLink}</button>
          <a class="button secondary" href="/signin">{t.backToSignIn}</a>
        </div>
      </form>
    </Layout>
  );
}

/** The same words for every request: an account or not, disabled, throttled. */
export function ResetSentPage() {
  const t = useI18n().t.security.reset;
  return (
    <Layout title={t.sentTitle}>
      <h1>{t.sentTitle}</h1>
      <p role="status">{t.sent}</p>
      <p>{t.noMail}</p>
      <div class="actions">
        <a class="button secondary" href="/signin">{t.backToSignIn}</a>
      </div>
    </Layout>
  );
}

export function ResetPasswordPage(props: { csrf: string; token: string; problem?: Text }) {
  const { t: all } = useI18n();
  const t = all.security;
  const problem = textOf(all, props.problem);
  return (
    <Layout title={t.password.chooseNew}>
      <h1>{t.password.chooseNew}</h1>
      {problem && <p class="error" role="alert">{problem}</p>}
      <form method="post" action="/signin/reset">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="token" value={props.token} />
        <label for="password">{t.reset.newPasswordMin}</label>
        <p class="muted" id="password-rule">{t.password.rule}</p>
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
        <label for="confirm">{t.password.newAgain}</label>
        <input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
        <div class="actions">
          <button type="submit">{t.reset.setPassword}</button>
        </div>
      </form>
    </Layout>
  );
}

export function ResetLinkInvalidPage() {
  const t = useI18n().t.security.reset;
  return (
    <Layout title={t.invalidTitle}>
      <h1>{t.invalidHeading}</h1>
      <p role="alert">{t.invalidMessage}</p>
      <div class="actions">
        <a class="button" href="/signin/forgot">{t.askNewLink}</a>
        <a class="button secondary" href="/signin">{t.backToSignIn}</a>
      </div>
    </Layout>
  );
}

export function DevMailboxPage(props: { mails: readonly DevMail[] }) {
  const t = useI18n().t.security.reset;
  return (
    <Layout title={t.mailboxTitle} wide>
      <h1>{t.mailboxTitle}</h1>
      <p>
        {t.mailboxBefore}
        <code>SMTP_URL</code>
        {t.mailboxAfter}
      </p>
      {props.mails.length === 0 ? <p>{t.mailboxEmpty}</p> : props.mails.map((m, n) => (
        <section key={n}>
          <h2>{m.subject}</h2>
          <p>{t.mailTo(m.to, m.at.toISOString())}</p>
          <pre>{m.text.split(/(https?:\/\/\S+)/).map((part, i) => i % 2 === 1 ? <a key={i} href={part}>{part}</a> : part)}</pre>
        </section>
      ))}
    </Layout>
  );
}

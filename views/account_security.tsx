// /account/security: the overview (password, two-step sign-in, passkeys, recovery codes, the browsers signed in,
// and the person's recent security events), and /account/security/password (change the password: the current one,
// then the new one twice; in "required" mode after a sign-in whose password falls short of the policy).
//
// Export: `SecurityOverviewPage`, `ChangePasswordPage` (the policy in one sentence, t.security.password.rule, is
// also on the reset page).
import { type Text, textOf } from "../lib/i18n/mod.ts";
import { deviceSummary } from "../lib/oauth/session_list.ts";
import type { SecurityEventKind, SecurityEventRow } from "../lib/security/events.ts";
import type { Factors } from "../lib/security/factors.ts";
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";

export interface SecurityOverviewProps {
  csrf: string;
  account: { email: string };
  passwordChangedAt: Date | null;
  factors: Factors;
  events: SecurityEventRow[];
  notice?: Text;
}

export function SecurityOverviewPage(props: SecurityOverviewProps) {
  const { t: all, fmt } = useI18n();
  const t = all.security.overview;
  const s = all.security;
  const { factors } = props;
  const eventText = (kind: string) => s.events[kind as SecurityEventKind] ?? kind;
  return (
    <Layout title={t.title} wide>
      <AccountNav current="security" />
      <h1>{t.title}</h1>
      <p class="muted">{s.signedInAs(props.account.email)}</p>
      {props.notice && <p class="notice" role="status">{textOf(all, props.notice)}</p>}
      <section aria-labelledby="password-title">
        <h2 id="password-title">{t.password}</h2>
        <p data-password-changed>
          {props.passwordChangedAt ? t.lastChanged(fmt.time(props.passwordChangedAt)) : t.neverChanged}{" "}
          <a href="/account/security/password">{s.password.changeTitle}</a>
        </p>
      </section>
      <section aria-labelledby="two-step-title">
        <h2 id="two-step-title">{s.twoStepTitle}</h2>
        <dl class="facts">
          <dt>{s.authenticatorApp}</dt>
          <dd data-totp={factors.totp ? "on" : "off"}>
            {factors.totp ? t.on : t.off} ·{" "}
            <a href="/account/security/two-step">{factors.totp ? t.manage : t.setUp}</a>
          </dd>
          <dt>{s.passkeys.title}</dt>
          <dd data-passkeys={factors.passkeys}>
            {factors.passkeys === 0 ? t.none : t.passkeyCount(factors.passkeys)}
            {" · "}
            <a href="/account/security/passkeys">
              {factors.passkeys === 0 ? s.passkeys.add : t.managePasskeys}
            </a>
          </dd>
          <dt>{s.recoveryCodes}</dt>
          <dd data-recovery-codes={factors.recoveryCodesLeft}>
            {factors.recoveryCodesLeft === 0 ? t.noneLeft : t.left(factors.recoveryCodesLeft)}
          </dd>
        </dl>
      </section>
      <section aria-labelledby="sessions-title">
        <h2 id="sessions-title">{t.whereSignedIn}</h2>
        <p>
          <a href="/account/sessions">{t.seeBrowsers}</a>
          {t.signOutUnknown}
        </p>
      </section>
      <section aria-labelledby="events-title">
        <h2 id="events-title">{t.recentEvents}</h2>
        {props.events.length === 0 ? <p class="muted">{t.nothingYet}</p> : (
          <ul class="events">
            {props.events.map((e, i) => (
              <li key={i} data-event={e.kind}>
                <strong>{eventText(e.kind)}</strong>{" "}
                <span class="muted">
                  {fmt.time(e.at)} · {e.ip || t.unknownAddress} ·{" "}
                  {deviceSummary(e.userAgent, all.account.sessions)}
                </span>
              </li>
            ))}
          </ul>
        )}
        <p class="muted">{t.eventsNote(props.events.length === 50 ? 50 : null)}</p>
      </section>
      <footer>
        <a href={`/signin?return_to=${encodeURIComponent("/account/security")}`}>{t.switchAccount}</a>
        <form method="post" action="/signout">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="return_to" value="/account/security" />
          <button type="submit" class="link">{s.signOut}</button>
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
  problem?: Text;
}

export function ChangePasswordPage(props: ChangePasswordProps) {
  const { t: all } = useI18n();
  const t = all.security.password;
  const required = props.required;
  const problem = textOf(all, props.problem);
  return (
    <Layout title={required ? t.chooseNew : t.changeTitle}>
      {!required && <AccountNav current="security" />}
      <h1>{required ? t.chooseNew : t.changeTitle}</h1>
      <p class="muted">{all.security.signedInAs(props.account.email)}</p>
      {required && <p data-required>{t.required}</p>}
      {problem && <p class="error" role="alert">{problem}</p>}
      <form method="post" action="/account/security/password">
        <input type="hidden" name="csrf" value={props.csrf} />
        {required && <input type="hidden" name="required" value="1" />}
        {props.next && <input type="hidden" name="next" value={props.next} />}
        <label for="current">{t.current}</label>
        <input
          id="current"
          name="current"
          type="password"
          autocomplete="current-password"
          required
          autofocus
        />
        <label for="password">{t.new}</label>
        <p class="muted" id="password-rule">{t.rule}</p>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          aria-describedby="password-rule"
          minLength={12}
          required
        />
        <label for="confirm">{t.newAgain}</label>
        <input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
        <div class="actions">
          <button type="submit">{t.changeTitle}</button>
          {!required && <a class="button secondary" href="/account/security">{all.security.cancel}</a>}
        </div>
      </form>
    </Layout>
  );
}

// /account/sessions: every browser where this person is signed in — device, address, when they signed in and
// how, when it was last seen, which one is this browser — with "Sign out" for each and "Sign out everywhere
// else". Plain forms that POST with CSRF: no JavaScript.
import { type Text, textOf } from "../lib/i18n/mod.ts";
import { deviceSummary, type SessionListEntry, signInMethod } from "../lib/oauth/session_list.ts";
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";

export interface SessionsPageProps {
  csrf: string;
  account: { email: string };
  sessions: SessionListEntry[];
  /** the session of the browser looking at the page */
  currentSessionId: string;
  notice?: Text;
  /** the list was cut at its limit */
  truncated?: boolean;
}

function SessionItem({ s, current, csrf }: { s: SessionListEntry; current: boolean; csrf: string }) {
  const { t: all, fmt } = useI18n();
  const t = all.account.sessions;
  const device = deviceSummary(s.userAgent, t);
  return (
    <li data-session={s.sessionId} data-current={current ? "1" : undefined}>
      <strong>{device}</strong> {current && <span class="badge" data-this-browser>{t.thisBrowser}</span>}
      <dl class="facts">
        <dt>{t.address}</dt>
        <dd data-ip>{s.ip || t.unknownAddress}</dd>
        <dt>{t.signedIn}</dt>
        <dd>{fmt.time(s.authTime)}</dd>
        <dt>{t.how}</dt>
        <dd data-method>{signInMethod(s.amr, t)}</dd>
        <dt>{t.lastSeen}</dt>
        <dd>{current ? t.now : fmt.time(s.lastSeenAt)}</dd>
      </dl>
      <form method="post" action="/account/sessions/end">
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="session_id" value={s.sessionId} />
        {current ? <button type="submit" class="secondary">{t.signOutHere}</button> : (
          // The visible words begin the accessible name (WCAG 2.5.3); the rest tells the buttons apart.
          <button
            type="submit"
            class="secondary"
            aria-label={t.signOutOf(device, fmt.time(s.lastSeenAt))}
          >
            {all.account.signOut}
          </button>
        )}
      </form>
    </li>
  );
}

export function SessionsPage(props: SessionsPageProps) {
  const { t: all } = useI18n();
  const t = all.account.sessions;
  // This browser first, then the others by last use.
  const current = props.sessions.filter((s) => s.sessionId === props.currentSessionId);
  const rest = props.sessions.filter((s) => s.sessionId !== props.currentSessionId);
  const others = rest.length;
  return (
    <Layout title={all.common.nav.sessions} wide>
      <AccountNav current="sessions" />
      <h1>{t.heading}</h1>
      <p class="muted">{all.account.signedInAs(props.account.email)}</p>
      {props.notice && <p class="notice" role="status">{textOf(all, props.notice)}</p>}
      <p>{t.intro}</p>
      <ul class="apps" data-sessions>
        {[...current, ...rest].map((s) => (
          <SessionItem
            key={s.sessionId}
            s={s}
            current={s.sessionId === props.currentSessionId}
            csrf={props.csrf}
          />
        ))}
      </ul>
      {props.truncated && <p class="muted">{t.truncated(props.sessions.length)}</p>}
      {others > 0 && (
        <form method="post" action="/account/sessions/end-others">
          <input type="hidden" name="csrf" value={props.csrf} />
          <div class="actions">
            <button type="submit" class="danger">{t.signOutElsewhere}</button>
          </div>
        </form>
      )}
      <footer>
        <a href="/account/apps">{all.common.nav.apps}</a>
        <a href="/account/keys">{all.common.nav.keys}</a>
      </footer>
    </Layout>
  );
}

// /account/sessions: every browser where this person is signed in — device, address, when they signed in and
// how, when it was last seen, which one is this browser — with "Sign out" for each and "Sign out everywhere
// else". Plain forms that POST with CSRF: no JavaScript.
import { pageTime } from "../lib/account_apps.ts";
import { deviceSummary, type SessionListEntry, signInMethod } from "../lib/oauth/session_list.ts";
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";

export interface SessionsPageProps {
  csrf: string;
  account: { email: string };
  sessions: SessionListEntry[];
  /** the session of the browser looking at the page */
  currentSessionId: string;
  notice?: string;
  /** the list was cut at its limit */
  truncated?: boolean;
}

function SessionItem({ s, current, csrf }: { s: SessionListEntry; current: boolean; csrf: string }) {
  const device = deviceSummary(s.userAgent);
  return (
    <li data-session={s.sessionId} data-current={current ? "1" : undefined}>
      <strong>{device}</strong> {current && <span class="badge" data-this-browser>This browser</span>}
      <dl class="facts">
        <dt>Address</dt>
        <dd data-ip>{s.ip || "unknown"}</dd>
        <dt>Signed in</dt>
        <dd>{pageTime(s.authTime)}</dd>
        <dt>How</dt>
        <dd data-method>{signInMethod(s.amr)}</dd>
        <dt>Last seen</dt>
        <dd>{current ? "now" : pageTime(s.lastSeenAt)}</dd>
      </dl>
      <form method="post" action="/account/sessions/end">
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="session_id" value={s.sessionId} />
        {current ? <button type="submit" class="secondary">Sign out of this browser</button> : (
          // The visible words begin the accessible name (WCAG 2.5.3); the rest tells the buttons apart.
          <button
            type="submit"
            class="secondary"
            aria-label={`Sign out of ${device}, seen ${pageTime(s.lastSeenAt)}`}
          >
            Sign out
          </button>
        )}
      </form>
    </li>
  );
}

export function SessionsPage(props: SessionsPageProps) {
  // This browser first, then the others by last use.
  const current = props.sessions.filter((s) => s.sessionId === props.currentSessionId);
  const rest = props.sessions.filter((s) => s.sessionId !== props.currentSessionId);
  const others = rest.length;
  return (
    <Layout title="Sessions" wide>
      <AccountNav current="sessions" />
      <h1>Where you are signed in</h1>
      <p class="muted">Signed in as {props.account.email}</p>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      <p>
        Each browser where you signed in. If you do not recognise one, sign out of it and change your
        password.
      </p>
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
      {props.truncated && <p class="muted">Only the {props.sessions.length} most recently used are shown.</p>}
      {others > 0 && (
        <form method="post" action="/account/sessions/end-others">
          <input type="hidden" name="csrf" value={props.csrf} />
          <div class="actions">
            <button type="submit" class="danger">Sign out everywhere else</button>
          </div>
        </form>
      )}
      <footer>
        <a href="/account/apps">Connected apps</a>
        <a href="/account/keys">API keys</a>
      </footer>
    </Layout>
  );
}

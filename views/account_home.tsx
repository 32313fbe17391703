// /account: the person's home — their profile (name and picture, which apps with `profile` receive at UserInfo),
// and what each account page holds, one line each with its link.
import type { AccountSummary } from "../lib/account_home.ts";
import { NAME_MAX, PICTURE_MAX } from "../lib/account_home.ts";
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";

export interface AccountHomeProps {
  csrf: string;
  summary: AccountSummary;
  /** the submitted values shown again with a problem, else the stored ones */
  form?: { name: string; picture: string };
  problem?: string;
  notice?: string;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function AccountHomePage(props: AccountHomeProps) {
  const s = props.summary;
  const twoStep = s.factors.totp || s.factors.passkeys > 0
    ? [
      s.factors.totp ? "authenticator app" : "",
      s.factors.passkeys > 0 ? plural(s.factors.passkeys, "passkey", "passkeys") : "",
    ]
      .filter(Boolean).join(" and ")
    : "off";
  const form = props.form ?? { name: s.name, picture: s.picture ?? "" };
  return (
    <Layout title="Your account" wide>
      <AccountNav current="home" />
      <h1>Your account</h1>
      <p class="muted">Signed in as {s.email}</p>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      <ul class="summary">
        <li data-summary="apps">
          <a href="/account/apps">Connected apps</a>: {plural(s.apps, "application", "applications")}
        </li>
        <li data-summary="keys">
          <a href="/account/keys">API keys</a>: {plural(s.keys, "key", "keys")} in use
        </li>
        <li data-summary="two-step">
          <a href="/account/security">Two-step sign-in</a>: {twoStep}
        </li>
        <li data-summary="sessions">
          <a href="/account/sessions">Signed in</a> on {plural(s.sessions, "browser", "browsers")}
        </li>
        <li data-summary="workspaces">
          <a href="/account/workspaces">Workspaces</a>: {s.workspaces}
        </li>
      </ul>
      <h2>Profile</h2>
      <p class="muted">Applications you allow to see your profile receive these.</p>
      {props.problem && <p class="error" role="alert" id="profile-problem">{props.problem}</p>}
      <form method="post" action="/account/profile">
        <input type="hidden" name="csrf" value={props.csrf} />
        <label for="name">Name</label>
        <input
          id="name"
          name="name"
          value={form.name}
          maxLength={NAME_MAX}
          autocomplete="name"
          required
          aria-describedby={props.problem ? "profile-problem" : undefined}
        />
        <label for="picture">Picture (the web address of an image, optional)</label>
        <input
          id="picture"
          name="picture"
          type="url"
          value={form.picture}
          maxLength={PICTURE_MAX}
          placeholder="https://"
          autocomplete="photo"
        />
        <div class="actions">
          <button type="submit">Save profile</button>
        </div>
      </form>
    </Layout>
  );
}

// /account/workspaces: the person's workspaces and each one's sign-in policy; owners and admins switch "require
// two-step sign-in" on or off (a POST form with CSRF), see how many members have no second factor yet, and find the
// workspace's activity page (every app and key acting there).
import type { PolicyWorkspace } from "../lib/security/workspace_policy.ts";
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";

export interface AccountWorkspacesProps {
  csrf: string;
  account: { email: string };
  workspaces: PolicyWorkspace[];
  notice?: string;
  error?: string;
}

function Policy({ w, csrf }: { w: PolicyWorkspace; csrf: string }) {
  const state = w.requireTwoFactor ? "required" : "not required";
  return (
    <li data-workspace-id={w.id}>
      <strong>{w.name}</strong> <span class="muted">your role: {w.role}</span>
      <p data-policy={w.requireTwoFactor ? "required" : "off"}>Two-step sign-in: {state} for members.</p>
      {w.mayChange && (
        <>
          {w.membersWithoutFactor !== null && w.membersWithoutFactor > 0 && (
            <p class="muted" data-without-factor={w.membersWithoutFactor}>
              {w.membersWithoutFactor === 1 ? "1 member has" : `${w.membersWithoutFactor} members have`}{" "}
              no second factor yet; they are walked through setting one up at their next sign-in.
            </p>
          )}
          <p>
            <a href={`/account/workspaces/${w.id}/activity`} data-workspace-activity>
              Activity in {w.name}
            </a>{" "}
            <span class="muted">(every app and key of the workspace)</span>
          </p>
          <form method="post" action="/account/workspaces/two-step">
            <input type="hidden" name="csrf" value={csrf} />
            <input type="hidden" name="workspace_id" value={w.id} />
            <input type="hidden" name="require" value={w.requireTwoFactor ? "off" : "on"} />
            <button type="submit" class={w.requireTwoFactor ? "secondary" : undefined}>
              {w.requireTwoFactor ? "Stop requiring" : "Require"} two-step sign-in in {w.name}
            </button>
          </form>
        </>
      )}
    </li>
  );
}

export function AccountWorkspacesPage(props: AccountWorkspacesProps) {
  return (
    <Layout title="Workspaces" wide>
      <AccountNav current="workspaces" />
      <h1>Workspaces</h1>
      <p class="muted">Signed in as {props.account.email}</p>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      {props.error && <p class="error" role="alert">{props.error}</p>}
      <p>
        A workspace that requires two-step sign-in asks each member for a one-time code or a passkey after the
        password, and again before an app may act in it for a sign-in made without one.
      </p>
      {props.workspaces.length === 0 ? <p>You are not a member of any workspace.</p> : (
        <ul class="apps">
          {props.workspaces.map((w) => <Policy key={w.id} w={w} csrf={props.csrf} />)}
        </ul>
      )}
    </Layout>
  );
}

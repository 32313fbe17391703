// /account/workspaces: the person's workspaces and each one's sign-in policy; owners and admins switch "require
// two-step sign-in" on or off (a POST form with CSRF), see how many members have no second factor yet, and find the
// workspace's activity page (every app and key acting there).
import { type Text, textOf } from "../lib/i18n/mod.ts";
import type { PolicyWorkspace } from "../lib/security/workspace_policy.ts";
import { AccountNav } from "./account_nav.tsx";
import { roleName } from "./account_text.tsx";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";

export interface AccountWorkspacesProps {
  csrf: string;
  account: { email: string };
  workspaces: PolicyWorkspace[];
  notice?: Text;
  error?: Text;
}

function Policy({ w, csrf }: { w: PolicyWorkspace; csrf: string }) {
  const { t: all } = useI18n();
  const t = all.account.workspaces;
  return (
    <li data-workspace-id={w.id}>
      <strong>{w.name}</strong> <span class="muted">{t.yourRole(roleName(all, w.role))}</span>
      <p data-policy={w.requireTwoFactor ? "required" : "off"}>
        {w.requireTwoFactor ? t.policyRequired : t.policyOff}
      </p>
      {w.mayChange && (
        <>
          {w.membersWithoutFactor !== null && w.membersWithoutFactor > 0 && (
            <p class="muted" data-without-factor={w.membersWithoutFactor}>
              {t.withoutFactor(w.membersWithoutFactor)}
            </p>
          )}
          <p>
            <a href={`/account/workspaces/${w.id}/activity`} data-workspace-activity>
              {t.activityIn(w.name)}
            </a>{" "}
            <span class="muted">{t.activityHint}</span>
          </p>
          <form method="post" action="/account/workspaces/two-step">
            <input type="hidden" name="csrf" value={csrf} />
            <input type="hidden" name="workspace_id" value={w.id} />
            <input type="hidden" name="require" value={w.requireTwoFactor ? "off" : "on"} />
            <button type="submit" class={w.requireTwoFactor ? "secondary" : undefined}>
              {w.requireTwoFactor ? t.stopRequiring(w.name) : t.require(w.name)}
            </button>
          </form>
        </>
      )}
    </li>
  );
}

export function AccountWorkspacesPage(props: AccountWorkspacesProps) {
  const { t: all } = useI18n();
  const t = all.account.workspaces;
  const title = all.common.nav.workspaces;
  return (
    <Layout title={title} wide>
      <AccountNav current="workspaces" />
      <h1>{title}</h1>
      <p class="muted">{all.account.signedInAs(props.account.email)}</p>
      {props.notice && <p class="notice" role="status">{textOf(all, props.notice)}</p>}
      {props.error && <p class="error" role="alert">{textOf(all, props.error)}</p>}
      <p>{t.intro}</p>
      {props.workspaces.length === 0 ? <p>{t.none}</p> : (
        <ul class="apps">
          {props.workspaces.map((w) => <Policy key={w.id} w={w} csrf={props.csrf} />)}
        </ul>
      )}
    </Layout>
  );
}

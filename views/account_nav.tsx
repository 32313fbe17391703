// The navigation between a person's account pages, shown at the top of each: Account (the home: profile and
// a summary), Connected apps, API keys, Activity (what each app and key did), Security
// (password, two-step sign-in, passkeys, the security log), Sessions (the browsers signed in) and Workspaces
// (each workspace's sign-in policy).
//
// Export: `AccountNav({ current })`; `ACCOUNT_SECTIONS` (section → path).

import { useI18n } from "./page_context.ts";

/** Each section's path; its label is `t.common.nav[section]`. */
export const ACCOUNT_SECTIONS = {
  home: "/account",
  apps: "/account/apps",
  keys: "/account/keys",
  activity: "/account/activity",
  security: "/account/security",
  sessions: "/account/sessions",
  workspaces: "/account/workspaces",
} as const;

export type AccountSection = keyof typeof ACCOUNT_SECTIONS;

/** The account pages' links; the current section's link carries aria-current="page". */
export function AccountNav({ current }: { current?: AccountSection }) {
  const { nav } = useI18n().t.common;
  return (
    <nav class="account-nav" aria-label={nav.label}>
      {(Object.keys(ACCOUNT_SECTIONS) as AccountSection[]).map((section) => (
        <a
          key={section}
          href={ACCOUNT_SECTIONS[section]}
          aria-current={section === current ? "page" : undefined}
        >
          {nav[section]}
        </a>
      ))}
    </nav>
  );
}

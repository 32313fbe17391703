// The navigation between a person's account pages, shown at the top of each: Account (the home: profile and
// a summary), Connected apps, API keys, Activity (what each app and key did), Security
// (password, two-step sign-in, passkeys, the security log), Sessions (the browsers signed in) and Workspaces
// (each workspace's sign-in policy).
//
// Export: `AccountNav({ current })`; `ACCOUNT_SECTIONS` (section → path and label).

export const ACCOUNT_SECTIONS = {
  home: { href: "/account", label: "Account" },
  apps: { href: "/account/apps", label: "Connected apps" },
  keys: { href: "/account/keys", label: "API keys" },
  activity: { href: "/account/activity", label: "Activity" },
  security: { href: "/account/security", label: "Security" },
  sessions: { href: "/account/sessions", label: "Sessions" },
  workspaces: { href: "/account/workspaces", label: "Workspaces" },
} as const;

export type AccountSection = keyof typeof ACCOUNT_SECTIONS;

/** The account pages' links; the current section's link carries aria-current="page". */
export function AccountNav({ current }: { current?: AccountSection }) {
  return (
    <nav class="account-nav" aria-label="Your account">
      {(Object.keys(ACCOUNT_SECTIONS) as AccountSection[]).map((section) => (
        <a
          key={section}
          href={ACCOUNT_SECTIONS[section].href}
          aria-current={section === current ? "page" : undefined}
        >
          {ACCOUNT_SECTIONS[section].label}
        </a>
      ))}
    </nav>
  );
}

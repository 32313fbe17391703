// English: the person's account pages — Connected apps, Sessions, Workspaces, the confirmation pages — and, from
// account_keys.ts, API keys and the toolset words (views/connected_apps.tsx, sessions.tsx, account_workspaces.tsx,
// confirm.tsx, keys.tsx, toolset_choice.tsx).
import { accountKeys } from "./account_keys.ts";

/** The roles of a workspace (workspace_members.role), as the pages name them. */
const roles = {
  owner: "owner",
  admin: "admin",
  manager: "manager",
  accounting: "accounting",
  member: "member",
  guest: "guest",
};

export const account = {
  signedInAs: (email: string) => `Signed in as ${email}`,
  operatorPages: "Operator pages",
  switchAccount: "Switch account",
  signOut: "Sign out",
  /** the link to a source's activity (an app, a key) */
  activityOf: (name: string) => `Activity of ${name}`,
  roles,
  confirm: {
    cancel: "Cancel",
  },
  apps: {
    disconnected: "The application was disconnected.",
    none: "No application has access to your account.",
    registeredBy: {
      itself: "registered itself",
      operator: "registered by the operator",
      metadata_document: "described by its own website",
    },
    clientId: "Client id",
    returnsTo: "Returns to",
    registered: "Registered",
    approved: "Approved",
    lastUsed: "Last used",
    never: "never",
    actsIn: "Acts in",
    actsInCompany: (workspace: string, company: string) => `${workspace}, only ${company}`,
    tools: "Tools",
    mayLabel: "It may:",
    disconnect: (name: string) => `Disconnect ${name}`,
    confirmTitle: (name: string) => `Disconnect ${name}?`,
    confirmText: (name: string) =>
      `${name} loses access to your account at once: its tokens stop working on their next use, and it has to ask for your approval again to come back.`,
    notConnectedTitle: "Not connected",
    notConnectedMessage:
      "That application is not connected to your account (any more). Go back to Connected apps.",
  },
  sessions: {
    heading: "Where you are signed in",
    intro:
      "Each browser where you signed in. If you do not recognise one, sign out of it and change your password.",
    thisBrowser: "This browser",
    address: "Address",
    unknownAddress: "unknown",
    signedIn: "Signed in",
    how: "How",
    lastSeen: "Last seen",
    now: "now",
    signOutHere: "Sign out of this browser",
    /** the accessible name of another browser's "Sign out": the visible words first (WCAG 2.5.3) */
    signOutOf: (device: string, seen: string) => `Sign out of ${device}, seen ${seen}`,
    truncated: (n: number) => `Only the ${n} most recently used are shown.`,
    signOutElsewhere: "Sign out everywhere else",
    endedOne: "You were signed out of that browser.",
    endedOthers: "You were signed out everywhere else.",
    endedNone: "You were not signed in there any more.",
    /** a browser from its User-Agent (lib/oauth/session_list.ts deviceSummary) */
    device: {
      on: (browser: string, system: string) => `${browser} on ${system}`,
      anyOn: (system: string) => `A browser on ${system}`,
      unknown: "Unknown browser",
    },
    /** how the account signed in, from its amr (lib/oauth/session_list.ts signInMethod) */
    methods: {
      password: "Password",
      passkey: "Passkey",
      passwordAndPasskey: "Password and passkey",
      passwordAndCode: "Password and one-time code",
    },
  },
  workspaces: {
    intro:
      "A workspace that requires two-step sign-in asks each member for a one-time code or a passkey after the " +
      "password, and again before an app may act in it for a sign-in made without one.",
    none: "You are not a member of any workspace.",
    yourRole: (role: string) => `your role: ${role}`,
    policyRequired: "Two-step sign-in: required for members.",
    policyOff: "Two-step sign-in: not required for members.",
    withoutFactor: (n: number) =>
      `${
        n === 1 ? "1 member has" : `${n} members have`
      } no second factor yet; they are walked through setting one up at their next sign-in.`,
    activityIn: (workspace: string) => `Activity in ${workspace}`,
    activityHint: "(every app and key of the workspace)",
    require: (workspace: string) => `Require two-step sign-in in ${workspace}`,
    stopRequiring: (workspace: string) => `Stop requiring two-step sign-in in ${workspace}`,
    nowRequired: "Two-step sign-in is now required for the workspace's members.",
    noLongerRequired: "Two-step sign-in is no longer required.",
    invalidTitle: "Not a valid request",
    invalidMessage: (field: string) => `The form's ${field} is missing or not valid.`,
    /** the field named by invalidMessage when `require` is wrong */
    requireField: "require (on or off)",
    forbiddenTitle: "Not allowed",
    forbiddenMessage: "Only an owner or admin of the workspace can change its sign-in policy.",
  },
  ...accountKeys,
};

export type AccountMessages = typeof account;
export type Role = keyof typeof roles;

// English: the operator pages (views/operator.tsx, views/operator_clients.tsx, routes/operator.ts) — approval
// requests, trusted apps and metadata-document prefixes, recent decisions, and their notices and refusals.
import type { ApprovalStatus, DecisionAction } from "../../oauth/approvals.ts";

export const operator = {
  navLabel: "Operator pages",
  requestsTitle: "Approval requests",
  clientsTitle: "Trusted apps",
  signedInAs: (email: string) => `Signed in as ${email} (operator)`,
  signOut: "Sign out",
  andMore: (n: string) => ` and ${n} more`,
  /** how an app came to the server */
  registeredItself: "registered itself",
  metadataDocument: "metadata document",
  metadataDocumentFrom: (host: string) => `metadata document from ${host}`,
  askedBy: "Asked by",
  workspace: "Workspace",
  workspaceOnly: (workspace: string, company: string) => `${workspace}, only ${company}`,
  returnsTo: "Returns to",
  clientId: "Client id",
  firstSeen: "First seen",
  lastUsed: "Last used",
  never: "never",
  scopes: "Scopes",
  note: "Note",
  noNote: "none",
  asked: "Asked",
  approve: (app: string) => `Approve ${app}`,
  deny: (app: string) => `Deny ${app}`,
  /** the requests page's explanation, around the words Approve and Deny (in <strong>) */
  requestsIntro:
    "People ask here for apps that may not use workspace tools on their own: apps that registered themselves, " +
    "and metadata-document apps under no trusted prefix.",
  approveWord: "Approve",
  approveMeans:
    "trusts the app for everyone on this server (every pending request for it is approved with this " +
    "one; each person still allows it on their own consent page).",
  denyWord: "Deny",
  denyMeans: "ends this person's request only; the app stays untrusted.",
  noRequests: "No requests are waiting.",
  /** around the command that lists them all (in <code>) */
  requestsMore: (more: string, shown: string, total: string) =>
    `${more} more not shown (newest ${shown} of ${total}). Decide these and reload, or list them all with`,
  requestsMoreAfter: ".",
  clientsHeading: "Apps trusted one by one",
  /** the trusted apps' explanation, around the word Untrust (in <strong>) */
  clientsIntro:
    "These apps registered themselves (or are metadata documents) and were approved: anyone may let " +
    "them use workspace tools.",
  untrustWord: "Untrust",
  untrustMeans:
    "ends their grants that carry workspace at once (their tokens stop at the next request); people " +
    "then ask for approval again.",
  noClients: "No app is trusted one by one.",
  clientsMore: (more: string, shown: string, total: string) =>
    `${more} more not shown (the ${shown} used most recently of ${total}).`,
  withWorkspace: "With workspace",
  people: (n: number) => (n === 1 ? "1 person uses it" : `${n} people use it`),
  untrust: (app: string) => `Untrust ${app}`,
  prefixesHeading: "Trusted metadata-document prefixes",
  /** around an example prefix (in <code>) */
  prefixesIntroBefore:
    "A prefix trusts every install of an app whose metadata document (its client id, a URL) lives under it " +
    "— for example",
  prefixesIntroAfter: "trusts Claude for everyone, without a request per install.",
  noPrefixes: "No prefix is trusted.",
  configPrefix: "set in TRUSTED_CLIENT_ID_PREFIXES (read-only here)",
  trustedAt: (time: string) => `trusted ${time}`,
  remove: (prefix: string) => `Remove ${prefix}`,
  trustPrefixLabel: "Trust a prefix",
  trustPrefix: "Trust prefix",
  badPrefix: "A prefix is an https URL with at least the host and a slash " +
    "(https://claude.ai/oauth/), or for development a loopback http one (http://127.0.0.1:3000/); no ? or #, no " +
    "spaces, at most 500 characters. Nothing was trusted.",
  decisionsHeading: "Recent decisions",
  noDecisions: "None yet.",
  /** between a decision and what it was about (a client id, a prefix) */
  subjectSeparator: ": ",
  viaCli: "the CLI",
  removedAccount: "a removed account",
  /** what an operator did, after who did it */
  actions: {
    approve: "approved a request",
    deny: "denied a request",
    trust: "trusted an app",
    untrust: "untrusted an app",
    trust_prefix: "trusted a prefix",
    untrust_prefix: "removed a prefix",
    grant_operator: "made an account an operator",
    revoke_operator: "ended an account's operator role",
  } satisfies Record<DecisionAction, string>,
  /** the notice after an action (the code in `?done=`) */
  notices: {
    approved:
      "Approved. The app is now trusted for everyone on this server; every pending request for it was " +
      "approved with this one.",
    denied: "Denied. That person's request ended; the app stays untrusted.",
    untrusted: "Untrusted. Its grants that carried workspace ended; people have to ask for approval again.",
    prefix_trusted: "Prefix trusted. Every metadata-document app under it may now use workspace tools.",
    prefix_known: "That prefix was already trusted. Nothing changed.",
    prefix_removed:
      "Prefix removed. Apps under it that are not trusted otherwise lost their grants that carried " +
      "workspace.",
  },
  operatorsOnlyTitle: "Operators only",
  operatorsOnly: (email: string) =>
    `This page is for operators of this service, and ${email} is not one. Nothing was changed. ` +
    "An operator can make an account one with deno task admin user operator --email ….",
  noRequestTitle: "No such request",
  noRequest: "There is no approval request with that id. Nothing changed.",
  alreadyDecidedTitle: "Already decided",
  alreadyDecided: (status: ApprovalStatus) =>
    `This request was already ${status}. Nothing changed. Go back to the approval requests.`,
  noAppTitle: "No such app",
  noApp: "There is no app with that client id. Nothing changed.",
  inConfigTitle: "Set in the configuration",
  inConfig:
    "That prefix is trusted by TRUSTED_CLIENT_ID_PREFIXES: remove it there and restart. Nothing changed.",
  noPrefixTitle: "No such prefix",
  noPrefix: "That prefix is not trusted. Nothing changed.",
};

export type OperatorMessages = typeof operator;

// English: passkeys — the sign-in page's passkey block, the second step with a passkey, the account's passkeys
// (list, add, rename, remove), what the passkey script says while it runs (handed to it by the page in data-
// attributes) and the ceremony endpoints' JSON errors, which the script shows. Part of `t.security`.
export const passkeys = {
  orSignIn: "Or sign in with a passkey, without a password:",
  use: "Use a passkey",
  never: "never",
  confirmTitle: "Confirm with a passkey",
  /** "Signing in as <email>. Use one …" */
  signingInAs: "Signing in as",
  finishSigningIn: ". Use one of your passkeys to finish signing in.",
  needsScript: "A passkey needs JavaScript in this browser. Use another way to sign in.",
  useAnotherWay: "Use another way",
  startAgain: "Start again from the sign-in page.",

  // /account/security/passkeys
  title: "Passkeys",
  intro: "A passkey signs you in with your device's screen lock (fingerprint, face or PIN) instead of a " +
    "password, and can confirm a sign-in as a second step after your password.",
  yours: "Your passkeys",
  none: "No passkeys yet.",
  add: "Add a passkey",
  full: "You have as many passkeys as an account may have. Remove one to add another.",
  addNeedsScript: "Adding a passkey needs JavaScript in this browser.",
  name: "Name",
  synced: "synced by your passkey provider",
  oneDevice: "on one device only",
  /** one passkey's facts: where it lives (synced or oneDevice), when added, when last used (a time or never) */
  facts: (where: string, added: string, used: string) => `${where}, added ${added}, last used ${used}`,
  rename: (name: string) => `Rename ${name}`,
  remove: (name: string) => `Remove ${name}`,
  removeQuestion: (name: string) => `Remove ${name}?`,
  newName: "New name",
  save: "Save",
  /** "The passkey <name> stops working …" */
  removeBefore: "The passkey",
  removeAfter:
    "stops working here at once: neither sign-in nor a second step accepts it any more. It stays " +
    "on your device or in your passkey provider until you delete it there.",
  lastOne: "It is your last passkey: you will sign in with your password again.",
  notices: {
    added: "The passkey was added. You can sign in with it now.",
    renamed: "The passkey was renamed.",
    removed: "The passkey was removed. It no longer works here.",
  },
  noSuchPasskey: "There is no such passkey (any more).",
  nameProblem: "Give the passkey a name of 1-100 characters.",

  /** what the script says (data-say-* attributes of each ceremony's element) */
  script: {
    waiting: "Waiting for your passkey…",
    failed: "Something went wrong. Reload the page.",
    duplicate: "This passkey is already registered here.",
    cancelled: "No passkey was used (cancelled or timed out). Try again.",
    refused: "The passkey was not accepted. Try again.",
    offline: "The server could not be reached. Try again.",
  },
  /** the ceremony endpoints' error_description */
  errors: {
    pageExpired: "The page has expired. Reload it and try again.",
    challengeExpired: "The passkey request has expired. Try again.",
    refused: "That passkey was not accepted here. Try again or use another way.",
    pendingExpired: "This sign-in has expired. Start again from the sign-in page.",
    malformed: "The passkey's answer is malformed.",
    requestExpired: "The sign-in request is no longer valid. Start again.",
    throttled: (minutes: number) => `Too many attempts. Try again in ${minutes} min.`,
    signedOut: "You are signed out. Reload the page and sign in again.",
    alreadyRegistered: "This passkey is already registered here.",
    tooMany: "You have as many passkeys as an account may have.",
    notVerified: "The passkey could not be verified. Try again.",
  },
};

export type SecurityPasskeysMessages = typeof passkeys;

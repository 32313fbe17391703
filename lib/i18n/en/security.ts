// English: the sign-in security pages — the second step of a sign-in (/signin/verify, the set-up walk), the
// two-step sign-in settings (/account/security/two-step) and the brake on wrong codes. Passkeys
// (security_passkeys.ts) and passwords — the security overview, changing and resetting a password, the reset
// mail, the security log's events (security_passwords.ts) — are spread in, so `t.security` is one area.
import { passkeys } from "./security_passkeys.ts";
import { passwords } from "./security_passwords.ts";

const core = {
  cancel: "Cancel",
  continue: "Continue",
  back: "Back",
  signedInAs: (email: string) => `Signed in as ${email}`,
  signInAgain: "Sign in again",
  /** the next step on a "Form expired" page of the sign-in's second step */
  signInAgainThen: "Sign in again.",
  signOut: "Sign out",
  yourPassword: "Your password",

  // /signin/verify
  twoStepTitle: "Two-step sign-in",
  confirmItIsYou: "Confirm it is you",
  typeCode: "Type the 6-digit code your authenticator app shows for this account.",
  code: "Code",
  verify: "Verify",
  usePasskeyInstead: "Use a passkey instead",
  useRecoveryCode: "Use a recovery code",
  recoveryCode: "Recovery code",
  useRecoveryCodeButton: "Use recovery code",
  /** what went wrong with a code (lib/security/totp.ts reasons, a recovery code, an expired set-up) */
  codeProblems: {
    wrongCode: "That code is not right. Check the app shows this account, and type the newest code.",
    used: "That code was used already. Wait for the next code in the app.",
    notSetUp: "That code is not right.",
    recovery: "That recovery code is not right, or was used already.",
    setupExpired: "The set-up took too long. Scan the new QR code (or type the new key) and try again.",
  },

  // a workspace requires two-step sign-in: the set-up walk
  setUpTwoStep: "Set up two-step sign-in",
  /** after the workspace's name, in bold */
  workspaceRequires: "requires two-step sign-in",
  requestRequires: "This request needs two-step sign-in",
  /** follows workspaceRequires or requestRequires */
  setUpWhy:
    ": after your password, a code from an authenticator app on your phone. It takes a minute to set up, and " +
    "then you continue where you were.",
  setUpNow: "Set up now",
  setUpApp: "Set up an authenticator app",
  twoStepIsOn: "Two-step sign-in is on",
  savedContinue: "I saved them, continue",
  lowTitle: "Few recovery codes left",
  lowLeft: (n: number) =>
    n === 0
      ? "That was your last recovery code."
      : n === 1
      ? "You have 1 recovery code left."
      : `You have ${n} recovery codes left.`,
  createNewUnder: "Create new ones under Security, Two-step sign-in, in your account, before you need one.",
  expiredTitle: "Sign-in expired",
  expiredHeading: "This sign-in has expired",
  expiredMessage: "The second step of a sign-in must follow the password within 10 minutes, in the same " +
    "browser, and works once. Nothing was changed. Sign in again.",
  tooManyTitle: "Too many attempts",
  tooManyCodes: (minutes: number) =>
    `Too many wrong codes. Try again in ${minutes === 1 ? "1 minute" : `${minutes} minutes`}.`,

  // setting up an app (the account page and the sign-in walk)
  setupStep1:
    "Open an authenticator app on your phone (for example Google Authenticator, 1Password or Aegis).",
  setupStep2: "Scan this QR code, or type the key below into the app.",
  setupStep3: "Type the 6-digit code the app shows.",
  qrLabel: "QR code for your authenticator app",
  keyInstead: "Key to type instead:",
  codeFromApp: "Code from the app",
  turnOn: "Turn on two-step sign-in",
  yourRecoveryCodes: "Your recovery codes",
  saveCodes:
    "Save these codes now, somewhere safe (a password manager, or printed): they are shown only this " +
    "once. Each works one time, if you lose the phone with your authenticator app. Earlier recovery codes no " +
    "longer work.",

  // /account/security/two-step
  authenticatorApp: "Authenticator app",
  totpOn: "On. After your password, sign-in asks for a code from your authenticator app.",
  turnOffApp: "Turn off the authenticator app",
  turnOff: "Turn off",
  totpOff: "Off. Sign-in asks for your password only.",
  recoveryCodes: "Recovery codes",
  unusedLeft: (n: number) => n === 1 ? "1 unused recovery code left." : `${n} unused recovery codes left.`,
  runningOut: "Create new ones before you run out.",
  createNewCodes: "Create new recovery codes",
  codesStop: "The codes you have now stop working.",
  codesComeWith: "Recovery codes come with an authenticator app or a passkey.",
  backToSecurity: "Back to security",
  twoStepNotices: {
    on: "Two-step sign-in is on. Sign-in now asks for a code from your app after your password.",
    off: "The authenticator app is turned off.",
    codes: "New recovery codes were created. The earlier ones no longer work.",
  },
  twoStepErrors: {
    password: "That password is not right. Nothing was changed.",
    noFactor: "Set up an authenticator app or a passkey first.",
  },
};

export const security = { ...core, passkeys, ...passwords };

export type SecurityMessages = typeof security;
/** The part of the area this file holds (German and French type theirs by it). */
export type SecurityCoreMessages = typeof core;

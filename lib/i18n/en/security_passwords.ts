// English: passwords and the security overview — /account/security with the person's security log, changing the
// password, the password policy's reasons (with zxcvbn's warnings in our words), "Forgot password?" with its
// mail and the dev mailbox. Spread into `t.security`.
import type { SecurityEventKind } from "../../security/events.ts";

/** What /account/security calls each event of the person's security log. */
const events = {
  sign_in: "Signed in",
  sign_in_failed: "Sign-in failed",
  sign_in_throttled: "Sign-in slowed down after failed attempts",
  second_factor_failed: "Wrong second-factor code or passkey",
  second_factor_throttled: "Second factor slowed down after failed attempts",
  step_up: "Confirmed with a second factor",
  factor_added: "Second factor added",
  factor_removed: "Second factor removed",
  recovery_codes_created: "New recovery codes created",
  recovery_code_used: "Recovery code used",
  password_changed: "Password changed",
  password_reset: "Password reset by email",
  password_reset_requested: "Password reset requested",
  session_ended: "Signed out of a browser",
  sessions_ended: "Signed out everywhere else",
  signed_out: "Signed out",
  workspace_policy_changed: "Changed a workspace's two-step sign-in policy",
} satisfies Record<SecurityEventKind, string>;

export const passwords = {
  events,
  overview: {
    title: "Security",
    changed: "Your password was changed, and your other browsers were signed out. Apps you connected keep " +
      "their access: disconnect any you do not trust under Connected apps.",
    password: "Password",
    lastChanged: (time: string) => `Last changed ${time}.`,
    neverChanged: "Not changed since the account was created.",
    on: "On",
    off: "Off",
    manage: "Manage",
    setUp: "Set up",
    none: "None",
    passkeyCount: (n: number) => n === 1 ? "1 passkey" : `${n} passkeys`,
    managePasskeys: "Manage passkeys",
    noneLeft: "None left",
    left: (n: number) => `${n} left`,
    whereSignedIn: "Where you are signed in",
    seeBrowsers: "See the browsers signed in to your account",
    /** after the seeBrowsers link */
    signOutUnknown: ", and sign out of the ones you do not know.",
    recentEvents: "Recent security events",
    nothingYet: "Nothing recorded yet.",
    unknownAddress: "unknown address",
    /** under the list: `newest` is the number shown when the list is cut there, else null */
    eventsNote: (newest: number | null) =>
      `The ${
        newest === null ? "newest" : `${newest} newest`
      } events: sign-ins and failed attempts, changes to ` +
      "your password and second factors, sign-outs.",
    switchAccount: "Switch account",
  },
  password: {
    /** the policy in one sentence, on the change and reset pages */
    rule:
      "At least 12 characters. Several unrelated words make a strong password that is easy to remember; " +
      "common passwords and ones made from your email address are refused.",
    changeTitle: "Change password",
    chooseNew: "Choose a new password",
    required: "Your password falls short of our password rules: it is shorter than 12 characters, or it is " +
      "common or easy to guess (attackers try such passwords first). Choose a new one to go on; you stay signed " +
      "in here, and other browsers are signed out.",
    current: "Current password",
    new: "New password",
    newAgain: "New password again",
    // why a change is refused (lib/security/password_change.ts)
    gone: "This account cannot change its password.",
    throttled: (minutes: number) =>
      `Too many wrong passwords. Wait ${minutes} minute${minutes === 1 ? "" : "s"} and try again.`,
    wrongCurrent: "The current password is not right.",
    mismatch: "The two new passwords are not the same.",
    same: "The new password is the same as the current one.",
    // why the policy refuses a password (lib/security/password_policy.ts)
    tooShort: (min: number) =>
      `Use at least ${min} characters. Several words you can remember make a good password.`,
    tooLong: (max: number) => `Use at most ${max} characters.`,
    personal:
      "The password contains your email address or name, which others can guess. Choose something else.",
    common: "This password is on lists of common passwords that attackers try first. Choose another one.",
    /** `warning`: one of `warnings` below, or "" */
    guessable: (warning: string) =>
      `This password is too easy to guess. ${
        warning ? `${warning} ` : ""
      }Add more words or characters that ` +
      "follow no pattern.",
    /** zxcvbn's warnings (@zxcvbn-ts/core 4 feedback keys), in the catalogue's words */
    warnings: {
      straightRow: "Straight rows of keys on your keyboard are easy to guess.",
      keyPattern: "Short keyboard patterns are easy to guess.",
      simpleRepeat: 'Repeated characters like "aaa" are easy to guess.',
      extendedRepeat: 'Repeated character patterns like "abcabcabc" are easy to guess.',
      sequences: 'Common character sequences like "abc" are easy to guess.',
      recentYears: "Recent years are easy to guess.",
      dates: "Dates are easy to guess.",
      topTen: "This is a heavily used password.",
      topHundred: "This is a frequently used password.",
      common: "This is a commonly used password.",
      similarToCommon: "This is similar to a commonly used password.",
      wordByItself: "Single words are easy to guess.",
      namesByThemselves: "Single names or surnames are easy to guess.",
      commonNames: "Common names and surnames are easy to guess.",
      userInputs: "There should not be any personal or page related data.",
      pwned: "Your password was exposed by a data breach on the Internet.",
    },
  },
  reset: {
    forgotTitle: "Forgot password",
    forgotIntro: "Enter the email address of your account. We will send a link to choose a new password.",
    email: "Email",
    sendLink: "Send link",
    backToSignIn: "Back to sign-in",
    sentTitle: "Check your email",
    /** the same words for every request: an account or not, disabled, throttled */
    sent:
      "If an account exists for that address, we sent a link to choose a new password. It works once, for " +
      "30 minutes.",
    noMail: "No mail after a few minutes? Check the spam folder, or ask for a new link later.",
    newPasswordMin: "New password (at least 12 characters)",
    setPassword: "Set password",
    invalidTitle: "Link not valid",
    invalidHeading: "This link does not work any more",
    invalidMessage:
      "A password reset link works once and for 30 minutes, and only the newest one sent works. " +
      "Nothing was changed.",
    askNewLink: "Ask for a new link",
    mismatch: "The two passwords are not the same.",
    tooManyTries: "Too many tries with this link. Ask for a new link.",
    mailboxTitle: "Dev mailbox",
    /** "… (no <code>SMTP_URL</code> is set; …)" */
    mailboxBefore: "Mail this server would have sent (no ",
    mailboxAfter: " is set; shown only with the embedded database). Newest first, the last 50.",
    mailboxEmpty: "No mail yet.",
    mailTo: (to: string, at: string) => `To ${to}, ${at}`,
    /** the mail with the link: its subject, and its paragraphs around the link */
    mail: {
      subject: "Reset your password",
      asked: "Someone (hopefully you) asked to reset the password of your account.",
      openLink: "To choose a new password, open this link within 30 minutes (it works once):",
      ignore: "If you did not ask for this, ignore this mail: your password stays as it is.",
    },
  },
};

export type SecurityPasswordsMessages = typeof passwords;

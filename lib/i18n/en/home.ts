// English: /account, the person's home (views/account_home.tsx) and its profile form.
export const home = {
  title: "Your account",
  signedInAs: (email: string) => `Signed in as ${email}`,
  saved: "Your profile was saved.",
  apps: (n: number) => (n === 1 ? "1 application" : `${n} applications`),
  keys: (n: number) => (n === 1 ? "1 key in use" : `${n} keys in use`),
  twoStepOff: "off",
  authenticatorApp: "authenticator app",
  passkeys: (n: number) => (n === 1 ? "1 passkey" : `${n} passkeys`),
  and: " and ",
  /** one line of the summary: the linked page's name, then what it holds */
  appsLine: "Connected apps",
  keysLine: "API keys",
  twoStepLine: "Two-step sign-in",
  sessionsLinePrefix: "Signed in",
  sessionsLine: (n: number) => (n === 1 ? " on 1 browser" : ` on ${n} browsers`),
  workspacesLine: "Workspaces",
  profile: "Profile",
  profileHint: "Applications you allow to see your profile receive these.",
  name: "Name",
  picture: "Picture (the web address of an image, optional)",
  language: "Language of these pages and of mails",
  languageAuto: "As my browser asks",
  save: "Save profile",
  nameMissing: "Enter a name.",
  nameTooLong: (max: number) => `Use at most ${max} characters for your name.`,
  nameControl: "Your name cannot contain control characters.",
  pictureTooLong: (max: number) => `The picture's address is longer than ${max} characters.`,
  pictureNotHttps: "The picture must be a web address starting with https://.",
  languageUnknown: "Choose a language from the list.",
};

export type HomeMessages = typeof home;

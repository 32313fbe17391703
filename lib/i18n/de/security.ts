// Deutsch: die Sicherheitsseiten der Anmeldung — der zweite Schritt, die Einstellungen der zweistufigen Anmeldung
// und die Bremse bei falschen Codes; Passkeys und Passwörter kommen aus den Nachbardateien dazu.
import type { SecurityCoreMessages, SecurityMessages } from "../en/security.ts";
import { passkeys } from "./security_passkeys.ts";
import { passwords } from "./security_passwords.ts";

const core: SecurityCoreMessages = {
  cancel: "Abbrechen",
  continue: "Weiter",
  back: "Zurück",
  signedInAs: (email: string) => `Angemeldet als ${email}`,
  signInAgain: "Erneut anmelden",
  signInAgainThen: "Melden Sie sich erneut an.",
  signOut: "Abmelden",
  yourPassword: "Ihr Passwort",

  twoStepTitle: "Zweistufige Anmeldung",
  confirmItIsYou: "Bestätigen Sie, dass Sie es sind",
  typeCode: "Geben Sie den 6-stelligen Code ein, den Ihre Authenticator-App für dieses Konto anzeigt.",
  code: "Bestätigungscode",
  verify: "Bestätigen",
  usePasskeyInstead: "Stattdessen einen Passkey verwenden",
  useRecoveryCode: "Einen Wiederherstellungscode verwenden",
  recoveryCode: "Wiederherstellungscode",
  useRecoveryCodeButton: "Wiederherstellungscode verwenden",
  codeProblems: {
    wrongCode:
      "Dieser Code ist nicht richtig. Prüfen Sie, ob die App dieses Konto anzeigt, und geben Sie den " +
      "neuesten Code ein.",
    used: "Dieser Code wurde bereits verwendet. Warten Sie auf den nächsten Code in der App.",
    notSetUp: "Dieser Code ist nicht richtig.",
    recovery: "Dieser Wiederherstellungscode ist nicht richtig oder wurde bereits verwendet.",
    setupExpired:
      "Die Einrichtung hat zu lange gedauert. Scannen Sie den neuen QR-Code (oder geben Sie den " +
      "neuen Schlüssel ein) und versuchen Sie es erneut.",
  },

  setUpTwoStep: "Zweistufige Anmeldung einrichten",
  workspaceRequires: "verlangt die zweistufige Anmeldung",
  requestRequires: "Diese Anfrage erfordert die zweistufige Anmeldung",
  setUpWhy:
    ": nach Ihrem Passwort ein Code aus einer Authenticator-App auf Ihrem Smartphone. Die Einrichtung " +
    "dauert eine Minute, danach geht es dort weiter, wo Sie waren.",
  setUpNow: "Jetzt einrichten",
  setUpApp: "Authenticator-App einrichten",
  twoStepIsOn: "Die zweistufige Anmeldung ist aktiviert",
  savedContinue: "Ich habe sie gespeichert, weiter",
  lowTitle: "Nur noch wenige Wiederherstellungscodes",
  lowLeft: (n: number) =>
    n === 0
      ? "Das war Ihr letzter Wiederherstellungscode."
      : n === 1
      ? "Sie haben noch 1 Wiederherstellungscode."
      : `Sie haben noch ${n} Wiederherstellungscodes.`,
  createNewUnder:
    "Erstellen Sie in Ihrem Konto unter Sicherheit, Zweistufige Anmeldung neue, bevor Sie einen brauchen.",
  expiredTitle: "Anmeldung abgelaufen",
  expiredHeading: "Diese Anmeldung ist abgelaufen",
  expiredMessage: "Der zweite Schritt einer Anmeldung muss innerhalb von 10 Minuten nach dem Passwort im " +
    "selben Browser folgen und funktioniert nur einmal. Es wurde nichts geändert. Melden Sie sich erneut an.",
  tooManyTitle: "Zu viele Versuche",
  tooManyCodes: (minutes: number) =>
    `Zu viele falsche Codes. Versuchen Sie es in ${
      minutes === 1 ? "1 Minute" : `${minutes} Minuten`
    } erneut.`,

  setupStep1: "Öffnen Sie eine Authenticator-App auf Ihrem Smartphone (zum Beispiel Google Authenticator, " +
    "1Password oder Aegis).",
  setupStep2: "Scannen Sie diesen QR-Code oder geben Sie den Schlüssel unten in der App ein.",
  setupStep3: "Geben Sie den 6-stelligen Code ein, den die App anzeigt.",
  qrLabel: "QR-Code für Ihre Authenticator-App",
  keyInstead: "Stattdessen diesen Schlüssel eingeben:",
  codeFromApp: "Code aus der App",
  turnOn: "Zweistufige Anmeldung aktivieren",
  yourRecoveryCodes: "Ihre Wiederherstellungscodes",
  saveCodes: "Speichern Sie diese Codes jetzt an einem sicheren Ort (in einem Passwort-Manager oder " +
    "ausgedruckt): Sie werden nur dieses eine Mal angezeigt. Jeder Code funktioniert einmal, falls Sie das " +
    "Smartphone mit Ihrer Authenticator-App verlieren. Frühere Wiederherstellungscodes funktionieren nicht mehr.",

  authenticatorApp: "Authenticator-App",
  totpOn: "Aktiviert. Nach Ihrem Passwort fragt die Anmeldung nach einem Code aus Ihrer Authenticator-App.",
  turnOffApp: "Authenticator-App deaktivieren",
  turnOff: "Deaktivieren",
  totpOff: "Deaktiviert. Die Anmeldung fragt nur nach Ihrem Passwort.",
  recoveryCodes: "Wiederherstellungscodes",
  unusedLeft: (n: number) =>
    n === 1 ? "Noch 1 unbenutzter Wiederherstellungscode." : `Noch ${n} unbenutzte Wiederherstellungscodes.`,
  runningOut: "Erstellen Sie neue, bevor sie Ihnen ausgehen.",
  createNewCodes: "Neue Wiederherstellungscodes erstellen",
  codesStop: "Ihre bisherigen Codes funktionieren dann nicht mehr.",
  codesComeWith: "Wiederherstellungscodes gibt es zusammen mit einer Authenticator-App oder einem Passkey.",
  backToSecurity: "Zurück zur Sicherheit",
  twoStepNotices: {
    on: "Die zweistufige Anmeldung ist aktiviert. Nach Ihrem Passwort fragt die Anmeldung jetzt nach einem " +
      "Code aus Ihrer App.",
    off: "Die Authenticator-App ist deaktiviert.",
    codes: "Neue Wiederherstellungscodes wurden erstellt. Die bisherigen funktionieren nicht mehr.",
  },
  twoStepErrors: {
    password: "Dieses Passwort ist nicht richtig. Es wurde nichts geändert.",
    noFactor: "Richten Sie zuerst eine Authenticator-App oder einen Passkey ein.",
  },
};

export const security: SecurityMessages = { ...core, passkeys, ...passwords };

// Deutsch: Passkeys — Anmeldung, zweiter Schritt, die Passkeys des Kontos, was das Skript sagt, JSON-Fehler.
import type { SecurityPasskeysMessages } from "../en/security_passkeys.ts";

export const passkeys: SecurityPasskeysMessages = {
  orSignIn: "Oder melden Sie sich ohne Passwort mit einem Passkey an:",
  use: "Passkey verwenden",
  never: "nie",
  confirmTitle: "Mit einem Passkey bestätigen",
  signingInAs: "Anmeldung als",
  finishSigningIn: ". Verwenden Sie einen Ihrer Passkeys, um die Anmeldung abzuschließen.",
  needsScript: "Ein Passkey benötigt JavaScript in diesem Browser. Melden Sie sich auf andere Weise an.",
  useAnotherWay: "Auf andere Weise anmelden",
  startAgain: "Beginnen Sie erneut auf der Anmeldeseite.",

  title: "Passkeys",
  intro:
    "Ein Passkey meldet Sie mit der Bildschirmsperre Ihres Geräts (Fingerabdruck, Gesicht oder PIN) statt " +
    "mit einem Passwort an und kann eine Anmeldung als zweiten Schritt nach Ihrem Passwort bestätigen.",
  yours: "Ihre Passkeys",
  none: "Noch keine Passkeys.",
  add: "Passkey hinzufügen",
  full: "Sie haben so viele Passkeys, wie ein Konto haben darf. Entfernen Sie einen, um einen neuen " +
    "hinzuzufügen.",
  addNeedsScript: "Zum Hinzufügen eines Passkeys braucht dieser Browser JavaScript.",
  name: "Bezeichnung",
  synced: "von Ihrem Passkey-Anbieter synchronisiert",
  oneDevice: "nur auf einem Gerät",
  facts: (where: string, added: string, used: string) =>
    `${where}, hinzugefügt ${added}, zuletzt verwendet ${used}`,
  rename: (name: string) => `${name} umbenennen`,
  remove: (name: string) => `${name} entfernen`,
  removeQuestion: (name: string) => `${name} entfernen?`,
  newName: "Neue Bezeichnung",
  save: "Speichern",
  removeBefore: "Der Passkey",
  removeAfter: "funktioniert hier ab sofort nicht mehr: Weder die Anmeldung noch ein zweiter Schritt " +
    "akzeptieren ihn. Er bleibt auf Ihrem Gerät bzw. bei Ihrem Passkey-Anbieter, bis Sie ihn dort löschen.",
  lastOne: "Es ist Ihr letzter Passkey: Sie melden sich danach wieder mit Ihrem Passwort an.",
  notices: {
    added: "Der Passkey wurde hinzugefügt. Sie können sich jetzt damit anmelden.",
    renamed: "Der Passkey wurde umbenannt.",
    removed: "Der Passkey wurde entfernt. Er funktioniert hier nicht mehr.",
  },
  noSuchPasskey: "Diesen Passkey gibt es nicht (mehr).",
  nameProblem: "Geben Sie dem Passkey eine Bezeichnung mit 1 bis 100 Zeichen.",

  script: {
    waiting: "Warten auf Ihren Passkey …",
    failed: "Etwas ist schiefgelaufen. Laden Sie die Seite neu.",
    duplicate: "Dieser Passkey ist hier bereits registriert.",
    cancelled: "Es wurde kein Passkey verwendet (abgebrochen oder Zeit abgelaufen). Versuchen Sie es erneut.",
    refused: "Der Passkey wurde nicht akzeptiert. Versuchen Sie es erneut.",
    offline: "Der Server war nicht erreichbar. Versuchen Sie es erneut.",
  },
  errors: {
    pageExpired: "Die Seite ist abgelaufen. Laden Sie sie neu und versuchen Sie es erneut.",
    challengeExpired: "Die Passkey-Anfrage ist abgelaufen. Versuchen Sie es erneut.",
    refused: "Dieser Passkey wurde hier nicht akzeptiert. Versuchen Sie es erneut oder melden Sie sich auf " +
      "andere Weise an.",
    pendingExpired: "Diese Anmeldung ist abgelaufen. Beginnen Sie erneut auf der Anmeldeseite.",
    malformed: "Die Antwort des Passkeys ist fehlerhaft.",
    requestExpired: "Die Anmeldeanfrage ist nicht mehr gültig. Beginnen Sie von vorn.",
    throttled: (minutes: number) => `Zu viele Versuche. Versuchen Sie es in ${minutes} Min. erneut.`,
    signedOut: "Sie sind abgemeldet. Laden Sie die Seite neu und melden Sie sich erneut an.",
    alreadyRegistered: "Dieser Passkey ist hier bereits registriert.",
    tooMany: "Sie haben so viele Passkeys, wie ein Konto haben darf.",
    notVerified: "Der Passkey konnte nicht überprüft werden. Versuchen Sie es erneut.",
  },
};

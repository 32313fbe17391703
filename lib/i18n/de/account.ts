// Deutsch: die Kontoseiten — Verbundene Apps, Sitzungen, Arbeitsbereiche, die Bestätigungsseiten — und, aus
// account_keys.ts, API-Schlüssel und die Wörter der Toolsets.
import type { AccountMessages } from "../en/account.ts";
import { accountKeys } from "./account_keys.ts";

export const account: AccountMessages = {
  signedInAs: (email: string) => `Angemeldet als ${email}`,
  operatorPages: "Betreiberseiten",
  switchAccount: "Konto wechseln",
  signOut: "Abmelden",
  activityOf: (name: string) => `Aktivität von ${name}`,
  roles: {
    owner: "Inhaber",
    admin: "Administrator",
    manager: "Manager",
    accounting: "Buchhaltung",
    member: "Mitglied",
    guest: "Gast",
  },
  confirm: {
    cancel: "Abbrechen",
  },
  apps: {
    disconnected: "Die Verbindung zur Anwendung wurde getrennt.",
    none: "Keine Anwendung hat Zugriff auf Ihr Konto.",
    registeredBy: {
      itself: "hat sich selbst registriert",
      operator: "vom Betreiber registriert",
      metadata_document: "beschrieben von der eigenen Website",
    },
    clientId: "Client-ID",
    returnsTo: "Leitet weiter an",
    registered: "Registriert",
    approved: "Erlaubt",
    lastUsed: "Zuletzt verwendet",
    never: "nie",
    actsIn: "Handelt in",
    actsInCompany: (workspace: string, company: string) => `${workspace}, nur ${company}`,
    tools: "Werkzeuge",
    mayLabel: "Die App darf:",
    disconnect: (name: string) => `Verbindung zu ${name} trennen`,
    confirmTitle: (name: string) => `Verbindung zu ${name} trennen?`,
    confirmText: (name: string) =>
      `${name} verliert sofort den Zugriff auf Ihr Konto: Die Tokens der App funktionieren ab ihrer nächsten Verwendung nicht mehr, und sie muss Sie erneut um Erlaubnis bitten, um zurückzukommen.`,
    notConnectedTitle: "Nicht verbunden",
    notConnectedMessage:
      "Diese Anwendung ist (nicht mehr) mit Ihrem Konto verbunden. Kehren Sie zu „Verbundene Apps“ zurück.",
  },
  sessions: {
    heading: "Wo Sie angemeldet sind",
    intro:
      "Jeder Browser, in dem Sie sich angemeldet haben. Wenn Sie einen nicht wiedererkennen, melden Sie ihn ab und ändern Sie Ihr Passwort.",
    thisBrowser: "Dieser Browser",
    address: "Adresse",
    unknownAddress: "unbekannt",
    signedIn: "Angemeldet",
    how: "Wie",
    lastSeen: "Zuletzt gesehen",
    now: "jetzt",
    signOutHere: "In diesem Browser abmelden",
    signOutOf: (device: string, seen: string) => `Abmelden von ${device}, zuletzt gesehen ${seen}`,
    truncated: (n: number) => `Nur die ${n} zuletzt verwendeten werden angezeigt.`,
    signOutElsewhere: "Überall sonst abmelden",
    endedOne: "Sie wurden in diesem Browser abgemeldet.",
    endedOthers: "Sie wurden überall sonst abgemeldet.",
    endedNone: "Sie waren dort nicht mehr angemeldet.",
    device: {
      on: (browser: string, system: string) => `${browser} unter ${system}`,
      anyOn: (system: string) => `Ein Browser unter ${system}`,
      unknown: "Unbekannter Browser",
    },
    methods: {
      password: "Passwort",
      passkey: "Passkey",
      passwordAndPasskey: "Passwort und Passkey",
      passwordAndCode: "Passwort und Einmalcode",
    },
  },
  workspaces: {
    intro:
      "Ein Arbeitsbereich, der die zweistufige Anmeldung verlangt, fragt jedes Mitglied nach dem Passwort " +
      "nach einem Einmalcode oder einem Passkey – und noch einmal, bevor eine App darin für eine Anmeldung ohne " +
      "zweiten Schritt handeln darf.",
    none: "Sie sind in keinem Arbeitsbereich Mitglied.",
    yourRole: (role: string) => `Ihre Rolle: ${role}`,
    policyRequired: "Zweistufige Anmeldung: für Mitglieder verlangt.",
    policyOff: "Zweistufige Anmeldung: für Mitglieder nicht verlangt.",
    withoutFactor: (n: number) =>
      `${
        n === 1 ? "1 Mitglied hat" : `${n} Mitglieder haben`
      } noch keinen zweiten Faktor; bei der nächsten Anmeldung werden sie durch die Einrichtung geführt.`,
    activityIn: (workspace: string) => `Aktivität in ${workspace}`,
    activityHint: "(alle Apps und Schlüssel des Arbeitsbereichs)",
    require: (workspace: string) => `Zweistufige Anmeldung in ${workspace} verlangen`,
    stopRequiring: (workspace: string) => `Zweistufige Anmeldung in ${workspace} nicht mehr verlangen`,
    nowRequired: "Die zweistufige Anmeldung ist jetzt für die Mitglieder des Arbeitsbereichs verlangt.",
    noLongerRequired: "Die zweistufige Anmeldung wird nicht mehr verlangt.",
    invalidTitle: "Keine gültige Anfrage",
    invalidMessage: (field: string) => `Das Feld ${field} des Formulars fehlt oder ist ungültig.`,
    requireField: "require (on oder off)",
    forbiddenTitle: "Nicht erlaubt",
    forbiddenMessage:
      "Nur ein Inhaber oder Administrator des Arbeitsbereichs kann dessen Anmelderichtlinie ändern.",
  },
  ...accountKeys,
};

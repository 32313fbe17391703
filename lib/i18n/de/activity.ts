// Deutsch: die Aktivitätsseiten — was jede App und jeder Schlüssel getan hat, die Seite des Arbeitsbereichs mit den
// Apps seiner Mitglieder und der Rückfrage vor dem Trennen.
import type { ActivityMessages } from "../en/activity.ts";

export const activity: ActivityMessages = {
  title: "Aktivität",
  titleIn: (workspace: string) => `Aktivität in ${workspace}`,
  introOwn: "Jeder Tool-Aufruf Ihrer verbundenen Apps und API-Schlüssel, die neuesten zuerst.",
  introWorkspace: (workspace: string) =>
    `Jeder Tool-Aufruf aller Apps und Schlüssel in ${workspace}, die neuesten zuerst.`,
  signedInAs: (email: string) => `Angemeldet als ${email}.`,
  disconnected: "Die App wurde für dieses Mitglied getrennt.",
  outcomes: {
    ok: "Erledigt",
    denied: "Abgelehnt",
    invalid: "Abgelehnt: ungültige Eingabe",
    declined: "Nicht ausgeführt: nicht bestätigt",
    asked: "Um Bestätigung gebeten",
    error: "Fehlgeschlagen",
    crash: "Fehlgeschlagen: Serverfehler",
    unavailable: "Fehlgeschlagen: nicht verfügbar",
  },
  reasons: {
    access_denied: "nicht erlaubt",
    invalid_input: "die Eingabe war ungültig",
    invalid_params: "unbekanntes Tool oder fehlerhafter Aufruf",
    not_found: "ein Datensatz wurde nicht gefunden oder ist nicht sichtbar",
    conflict: "passt nicht zum Zustand des Datensatzes",
    unavailable: "gerade nicht verfügbar",
    internal_error: "ein unerwarteter Serverfehler (protokolliert)",
    confirmation_required: "braucht die Bestätigung der Person, und die App kann nicht nachfragen",
    not_confirmed: "die Person hat abgelehnt oder nicht bestätigt",
  },
  rules: {
    needsUser: (tool: string) =>
      `${tool} handelt im Namen einer Person und braucht einen API-Schlüssel, der an ein Benutzerkonto gebunden ist`,
    needsInternalKey: (tool: string) =>
      `${tool} handelt im Namen einer Person und steht nur dem Assistenten des Arbeitsbereichs zur Verfügung ` +
      `(interner Schlüssel)`,
    roleArea: (role: string | null, area: string) =>
      `${
        role === null ? "Die Rolle des Schlüssels" : `Die Rolle „${role}“`
      } darf in diesem Arbeitsbereich keine Tools des Bereichs „${area}“ verwenden`,
    moduleOff: (module: string) => `Das Modul „${module}“ ist in diesem Arbeitsbereich ausgeschaltet`,
  },
  areas: {
    projects: "Projekte",
    tasks: "Aufgaben",
    clients: "Kunden",
    offers: "Angebote",
    invoices: "Rechnungen",
    ideas: "Ideen",
    contacts: "Kontakte",
    crm: "CRM",
    ai_activities: "KI-Aktivitäten",
    documents: "Dokumente",
    recordings: "Aufnahmen",
    time_tracking: "Zeiterfassung",
    calendar: "Kalender",
    booking: "Buchungen",
    context: "Kontext",
    members: "Mitglieder",
    finance_collections: "Finanzen und Forderungen",
  },
  confirmation: {
    asked: "angefragt, Antwort steht aus",
    declined: "angefragt, nicht bestätigt",
    confirmed: "angefragt, bestätigt",
  },
  noRecords: "keine genannt",
  byApp: (name: string) => `App: ${name}`,
  byKey: (name: string, prefix: string | null) => `Schlüssel: ${name}${prefix ? ` ${prefix}…` : ""}`,
  keyNoName: "(ohne Namen)",
  byUnknown: "unbekannt",
  sourceKey: (name: string, prefix: string, workspace: string | null) =>
    `Schlüssel: ${name} ${prefix}…${workspace !== null ? ` (${workspace})` : ""}`,
  time: "Zeit",
  by: "Aufgerufen von",
  person: "Benutzer",
  noPerson: "der Arbeitsbereich (kein Benutzer)",
  workspace: "Arbeitsbereich",
  records: "Datensätze",
  why: "Grund",
  confirmationLabel: "Bestätigung",
  filterLabel: "Aktivität filtern",
  source: "App oder Schlüssel",
  everySource: "Alle Apps und Schlüssel",
  tool: "Tool",
  everyTool: "Alle Tools",
  outcome: "Ergebnis",
  everyOutcome: "Alle Ergebnisse",
  from: "Von (Datum, UTC)",
  to: "Bis (Datum, UTC)",
  show: "Anzeigen",
  clearFilters: "Filter zurücksetzen",
  appsIn: (workspace: string) => `Verbundene Apps in ${workspace}`,
  noMemberApps: "Kein Mitglied hat eine App mit diesem Arbeitsbereich verbunden.",
  forMember: (email: string) => `für ${email}`,
  // The button's visible text ("… trennen") stays whole in its name (WCAG 2.5.3, axe label-content-name-mismatch).
  disconnectFor: (app: string, email: string) => `${app} trennen (für ${email})`,
  disconnect: (app: string) => `${app} trennen`,
  calls: "Aufrufe",
  callsLabel: "Tool-Aufrufe",
  noCalls: "Keine Aufrufe passen zu diesen Filtern.",
  newest: "Neueste",
  older: "Ältere Aufrufe",
  csv: (max: string) => `Als CSV herunterladen (höchstens ${max} Zeilen)`,
  perPage: (n: number) =>
    `${n} Aufrufe pro Seite. Datensätze werden mit ihrer ID gezeigt; der Text der Argumente wird nie gespeichert.`,
  disconnectTitle: (app: string) => `${app} trennen?`,
  disconnectText: (app: string, workspace: string, email: string) =>
    `${app} verliert für ${email} sofort den Zugriff auf ${workspace}. Die Tokens der App funktionieren dort ab ` +
    `ihrer nächsten Verwendung nicht mehr, und die App muss ${email} erneut um Zustimmung bitten. Der Zugriff ` +
    `der App auf andere Arbeitsbereiche bleibt unverändert.`,
  notAllowedTitle: "Nicht erlaubt",
  notAllowed:
    "Nur Inhaber und Admins des Arbeitsbereichs sehen seine Aktivität. Ihre eigenen Aufrufe finden Sie unter „Aktivität“.",
  notConnectedTitle: "Nicht verbunden",
  notConnected: "Diese App ist für dieses Mitglied nicht (mehr) verbunden.",
};

// Deutsch: was alle Seiten teilen — Rahmen, Kontonavigation, Fehlerseiten.
import type { CommonMessages } from "../en/common.ts";

export const common: CommonMessages = {
  errorCode: "Fehlercode",
  requestId: "Anfrage-ID",
  quoteReference:
    "Wenn Sie sich an den Betreiber dieses Dienstes wenden, nennen Sie Fehlercode und Anfrage-ID.",
  redirectSent: "Gesendet",
  redirectRegistered: "Registriert",
  unavailableTitle: "Vorübergehend nicht verfügbar",
  unavailableMessage: (brand: string) =>
    `${brand} erreicht seine Datenbank gerade nicht. Warten Sie einige Sekunden und versuchen Sie es erneut.`,
  requestExpiredTitle: "Diese Seite ist abgelaufen",
  requestExpiredMessage:
    "Die Anmeldeanfrage ist nicht mehr gültig. Kehren Sie zur Anwendung zurück und beginnen Sie von vorn.",
  formExpiredTitle: "Formular abgelaufen",
  formExpiredMessage: (then: string) => `Das Formular konnte nicht überprüft werden. ${then}`,
  formExpiredThen: "Gehen Sie zurück, laden Sie die Seite neu und versuchen Sie es erneut.",
  reloadAndRetry: "Laden Sie die Seite neu und versuchen Sie es erneut.",
  nav: {
    label: "Ihr Konto",
    home: "Konto",
    apps: "Verbundene Apps",
    keys: "API-Schlüssel",
    activity: "Aktivität",
    security: "Sicherheit",
    sessions: "Sitzungen",
    workspaces: "Arbeitsbereiche",
  },
};

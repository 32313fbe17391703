// Deutsch: die Seiten der Anmeldung für Apps — Anmelden, Kontoauswahl, Zustimmung, Freigabe durch die Betreiber,
// Abmelden — und die Fehlerseiten von /oauth/authorize und /oauth/logout.
import type { FlowMessages } from "../en/flow.ts";

export const flow: FlowMessages = {
  continueTo: "um mit {app} fortzufahren",
  signedInAs: (who: string) => `Angemeldet als ${who}`,
  signIn: {
    title: "Anmelden",
    email: "E-Mail-Adresse",
    password: "Passwort",
    submit: "Anmelden",
    forgot: "Passwort vergessen?",
    back: "Zurück",
    passwordChanged: "Ihr Passwort wurde geändert. Melden Sie sich mit dem neuen Passwort an.",
    problems: {
      invalid_credentials: "Diese E-Mail-Adresse und dieses Passwort passen zu keinem Konto.",
      disabled:
        "Dieses Konto ist deaktiviert. Bitten Sie den Betreiber dieses Dienstes, es wieder freizuschalten.",
      throttled: "Zu viele fehlgeschlagene Versuche. Warten Sie einige Minuten und versuchen Sie es erneut.",
    },
  },
  chooser: {
    title: "Konto auswählen",
    another: "Anderes Konto verwenden",
    signOut: "Abmelden",
  },
  consent: {
    title: (app: string) => `${app} zulassen?`,
    heading: "{app} Zugriff auf Ihr Konto erlauben?",
    notYou: "Nicht Sie? Anderes Konto verwenden",
    sentBack: "Die Antwort für {app} geht an {host}. ",
    describedBy: "Diese Anwendung wird von {host} beschrieben; {brand} hat sie nicht geprüft. ",
    selfRegistered:
      "Diese Anwendung hat sich selbst registriert; {brand} hat sie nicht geprüft. Erlauben Sie den Zugriff nur, " +
      "wenn Sie ihr vertrauen.",
    operatorRegistered: "Diese Anwendung wurde vom Betreiber dieses Dienstes registriert.",
    website: " Ihre Website: {url}",
    loopback: (app: string) =>
      `${app} kehrt zu einem Programm auf Ihrem eigenen Computer zurück. Eine solche App-Beschreibung kann jeder ` +
      "veröffentlichen: Erlauben Sie den Zugriff nur, wenn Sie diese Anmeldung gerade eben selbst in diesem " +
      "Programm gestartet haben.",
    ableTo: "Die Anwendung darf dann:",
    audience: "Ihr Zugriff wird bei {audience} genutzt, einem anderen Dienst als {brand}.",
    placeLegend: "Wo darf sie in Ihrem Namen handeln?",
    limitSummary: "Nutzbare Werkzeuge einschränken (optional)",
    noWorkspace: (app: string) =>
      `Sie sind in keinem Arbeitsbereich Mitglied, daher gibt es nichts, was ${app} nutzen könnte. Sie können ` +
      "diese Anfrage nur ablehnen.",
    disconnectLater: "Sie können die Verbindung jederzeit unter „Verbundene Apps“ trennen.",
    allow: "Erlauben",
    deny: "Ablehnen",
    problems: {
      no_toolset:
        "Wählen Sie mindestens eine Werkzeuggruppe, die sie nutzen darf, oder lehnen Sie die Anfrage ab.",
      unknown_toolset: "Wählen Sie Werkzeuggruppen aus der Liste.",
      invalid_read_only: "„Nur lesen“ ist entweder angekreuzt oder nicht.",
    },
    badPlaceTitle: "Arbeitsbereich auswählen",
    badPlaceMessage:
      "Sie sind kein Mitglied des gewählten Arbeitsbereichs. Gehen Sie zurück, laden Sie die Seite neu und " +
      "wählen Sie erneut.",
  },
  places: {
    allCompanies: (workspace: string, role: string) =>
      `${workspace} (als ${role}, alle Unternehmen, die Sie sehen dürfen)`,
    oneCompany: (workspace: string, company: string) => `${workspace}, nur ${company}`,
  },
  scopes: {
    agentChat: (agent: string) => `In Ihrem Namen mit dem Agenten „${agent}“ chatten`,
    unknownAgent: "unbekannter Agent",
    openid: "Wissen, wer Sie sind (eine dauerhafte Kontokennung)",
    profile:
      "Ihren Namen, Ihre E-Mail-Adresse, Ihr Bild, Ihren Tarif, Ihr Guthaben, freigeschaltete Agenten und " +
      "Agenten-Abonnements sehen",
    purchase: "Agenten und Agenten-Abonnements für Sie kaufen, bezahlt mit Ihrem Guthaben",
    workspaceConsent:
      "Ihre Arbeitsbereich-Werkzeuge in Ihrem Namen nutzen: Projekte, Aufgaben, Kunden, Rechnungen und mehr " +
      "lesen und ändern, in dem Arbeitsbereich, den Sie unten wählen",
    workspaceConnected:
      "Ihre Arbeitsbereich-Werkzeuge in Ihrem Namen nutzen: Projekte, Aufgaben, Kunden, Rechnungen und mehr " +
      "lesen und ändern, in dem Arbeitsbereich, den Sie beim Erlauben gewählt haben",
  },
  approval: {
    title: (app: string) => `${app} braucht eine Freigabe`,
    heading: "{app} braucht die Freigabe eines Betreibers",
    introDescribed: "{app} möchte Ihre Arbeitsbereich-Werkzeuge nutzen. Die Anwendung wird von {host} " +
      "beschrieben, und solche Apps dürfen Arbeitsbereich-Werkzeuge auf {brand} erst nutzen, wenn ein Betreiber " +
      "sie freigegeben hat. Die Antwort würde an {redirect} gehen.",
    introSelf:
      "{app} möchte Ihre Arbeitsbereich-Werkzeuge nutzen. Die Anwendung hat sich selbst registriert, " +
      "und solche Apps dürfen Arbeitsbereich-Werkzeuge auf {brand} erst nutzen, wenn ein Betreiber sie " +
      "freigegeben hat. Die Antwort würde an {redirect} gehen.",
    asksTo: "Die Anwendung möchte:",
    placeLegend: "Wo würde sie in Ihrem Namen handeln?",
    note: "Nachricht an die Betreiber (optional)",
    operatorHint:
      "Sie sind Betreiber: Mit Ihrer Freigabe kann jede Person dieses Dienstes diese App mit ihren " +
      "Arbeitsbereich-Werkzeugen nutzen, jeweils nach eigener Zustimmung. Sie können die Freigabe unter " +
      "Betreiber › Apps zurückziehen.",
    personHint:
      "Die Betreiber werden benachrichtigt. Diese Seite wartet auf ihre Antwort und geht dann weiter; " +
      "Sie können sie auch schließen und sich nach der Freigabe erneut aus der App verbinden.",
    noWorkspace: (app: string) =>
      `Sie sind in keinem Arbeitsbereich Mitglied, daher gibt es nichts, was ${app} nutzen könnte. Sie können ` +
      "nur abbrechen.",
    approve: (app: string) => `${app} freigeben und fortfahren`,
    ask: "Freigabe anfordern",
    cancel: "Abbrechen",
    problems: {
      choose: "Wählen Sie „Freigabe anfordern“ oder „Abbrechen“.",
      place: "Wählen Sie einen Arbeitsbereich aus der Liste.",
      noteTooLong: (max: number) => `Die Nachricht darf höchstens ${max} Zeichen lang sein.`,
      tooMany: (n: number) =>
        `Sie haben bereits ${n} Anfragen, die auf die Betreiber warten. Warten Sie deren Antwort ab, bevor Sie ` +
        "eine weitere App anfragen.",
    },
    onlyOperatorsTitle: "Nur Betreiber geben Apps frei",
    onlyOperatorsMessage:
      "Dieses Konto ist kein Betreiber dieses Dienstes und kann daher keine Apps freigeben. " +
      "Gehen Sie zurück und fordern Sie stattdessen eine Freigabe an.",
    wait: {
      title: "Warten auf Freigabe",
      heading: "Warten auf einen Betreiber",
      asked:
        "Sie haben die Betreiber von {brand} gebeten, {app} für {workspace} freizugeben (angefragt am {time}).",
      explain:
        "Sobald ein Betreiber zustimmt, geht diese Seite zum letzten Schritt weiter, in dem Sie festlegen, " +
        "was die App darf. Sie prüft das alle paar Sekunden selbst; ohne JavaScript verwenden Sie „Erneut prüfen“. " +
        "Sie wartet bis {until} UTC; danach verbinden Sie sich erneut aus der App, sobald die Betreiber " +
        "zugestimmt haben.",
      checkAgain: "Erneut prüfen",
      giveUp: "Nicht mehr warten und zur App zurückkehren",
    },
    ended: {
      deniedTitle: "Nicht freigegeben",
      deniedHeading: "Nicht freigegeben",
      denied:
        "Ein Betreiber von {brand} hat {app} nicht für Ihre Arbeitsbereich-Werkzeuge freigegeben. Fragen " +
        "Sie Ihre Betreiber, wenn Sie das für einen Fehler halten.",
      expiredTitle: "Noch keine Freigabe",
      expiredHeading: "Noch keine Antwort",
      expired:
        "Noch kein Betreiber hat {app} freigegeben, und diese Anmeldung wartet nicht mehr. Ihre Anfrage " +
        "bleibt bei den Betreibern: Verbinden Sie sich nach der Freigabe erneut aus der App.",
      returnTo: (app: string) => `Zurück zu ${app}`,
    },
  },
  logout: {
    title: "Abmelden?",
    heading: "Von {brand} abmelden?",
    asked: "{app} hat darum gebeten, Sie abzumelden.",
    accounts: "Dieser Browser wird abgemeldet von:",
    afterwards: (app: string) => `Danach kehren Sie zu ${app} zurück.`,
    signOut: "Abmelden",
    stay: "Angemeldet bleiben",
    doneTitle: "Abgemeldet",
    doneHeading: "Sie sind abgemeldet",
    done: "Ihr Konto ist in diesem Browser von {brand} abgemeldet.",
    signInAgain: "Erneut anmelden",
    expired:
      "Die Abmeldeanfrage ist nicht mehr gültig. Melden Sie sich erneut über die Anwendung oder Ihre Kontoseiten ab.",
    formThen: "Melden Sie sich erneut über die Anwendung ab.",
    invalidTitle: "Ungültige Abmeldeanfrage",
    unreadable: "Das Formular konnte nicht gelesen werden.",
    repeated: (name: string) => `Der Parameter ${name} wurde mehr als einmal gesendet.`,
    tooLong: "Ein Parameter der Abmeldeanfrage ist zu lang.",
    badHint:
      "Die Anwendung hat ein ID-Token gesendet, das dieser Server nicht ausgestellt hat (oder nicht mehr " +
      "prüfen kann). Kehren Sie zur Anwendung zurück oder melden Sie sich über Ihre Kontoseiten ab.",
    hintAudience: "Das ID-Token wurde nicht für die Anwendung ausgestellt, die in der Anfrage genannt ist.",
    unknownClient: "Die Anwendung, die Sie hierher geschickt hat, ist nicht bekannt.",
    badRedirect: "Die Anwendung wollte Sie nach dem Abmelden an eine Adresse schicken, die sie dafür nicht " +
      "registriert hat, daher werden Sie nicht dorthin weitergeleitet.",
    redirectWithoutClient:
      "Die Abmeldeanfrage nennt eine Rückkehradresse, aber nicht die Anwendung, zu der sie " +
      "gehört (client_id oder id_token_hint), daher werden Sie nicht dorthin weitergeleitet.",
  },
  errors: {
    unknownClientTitle: "Unbekannte Anwendung",
    noClientId: "Die Anfrage nennt keine client_id.",
    badMetadata: (clientId: string, reason: string) =>
      `Das Metadatendokument der Anwendung unter ${clientId} kann nicht verwendet werden: ${reason}.`,
    notRegistered:
      "Die Anwendung, die Sie hierher geschickt hat, ist nicht registriert. Gehen Sie zurück und " +
      "versuchen Sie es erneut, oder wenden Sie sich an die Anwendung.",
    invalidRedirectTitle: "Ungültige Weiterleitung",
    invalidRedirect: (app: string) =>
      `${app} möchte Sie an eine Adresse zurückschicken, die die Anwendung nicht registriert hat, daher leitet ` +
      "Portico Sie nicht dorthin weiter.",
    cannotCompleteTitle: "Diese Anfrage kann nicht abgeschlossen werden",
    cannotComplete: (app: string, description: string, host: string) =>
      `${app} hat eine Anfrage gesendet, die Portico nicht annehmen kann: ${description}. Portico leitet Sie ` +
      `nicht an ${host} weiter, weil sich diese App selbst registriert hat und hier noch nie verwendet wurde. ` +
      "Kehren Sie zur App zurück oder informieren Sie deren Betreiber.",
    theApp: "die App",
  },
};

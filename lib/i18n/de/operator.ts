// Deutsch: die Betreiberseiten — Freigabeanfragen, vertrauenswürdige Apps und Präfixe für Metadatendokumente,
// die letzten Entscheidungen, ihre Hinweise und Ablehnungen.
import type { OperatorMessages } from "../en/operator.ts";

export const operator: OperatorMessages = {
  navLabel: "Betreiberseiten",
  requestsTitle: "Freigabeanfragen",
  clientsTitle: "Vertrauenswürdige Apps",
  signedInAs: (email: string) => `Angemeldet als ${email} (Betreiber)`,
  signOut: "Abmelden",
  andMore: (n: string) => ` und ${n} weitere`,
  registeredItself: "hat sich selbst registriert",
  metadataDocument: "Metadatendokument",
  metadataDocumentFrom: (host: string) => `Metadatendokument von ${host}`,
  askedBy: "Angefragt von",
  workspace: "Arbeitsbereich",
  workspaceOnly: (workspace: string, company: string) => `${workspace}, nur ${company}`,
  returnsTo: "Kehrt zurück zu",
  clientId: "Client-ID",
  firstSeen: "Zuerst gesehen",
  lastUsed: "Zuletzt verwendet",
  never: "nie",
  scopes: "Berechtigungen (Scopes)",
  note: "Notiz",
  noNote: "keine",
  asked: "Angefragt am",
  approve: (app: string) => `${app} freigeben`,
  deny: (app: string) => `${app} ablehnen`,
  requestsIntro:
    "Hier bitten Personen um Freigabe für Apps, die die Tools des Arbeitsbereichs nicht von sich aus verwenden " +
    "dürfen: Apps, die sich selbst registriert haben, und Apps mit Metadatendokument unter keinem " +
    "vertrauenswürdigen Präfix.",
  approveWord: "Freigeben",
  approveMeans:
    "vertraut der App für alle auf diesem Server (jede offene Anfrage für sie wird damit freigegeben; " +
    "jede Person erlaubt sie trotzdem selbst auf ihrer Zustimmungsseite).",
  denyWord: "Ablehnen",
  denyMeans: "beendet nur die Anfrage dieser Person; der App wird weiterhin nicht vertraut.",
  noRequests: "Keine Anfragen warten.",
  requestsMore: (more: string, shown: string, total: string) =>
    `${more} weitere nicht angezeigt (die neuesten ${shown} von ${total}). Entscheiden Sie über diese und laden ` +
    "Sie die Seite neu, oder listen Sie alle mit",
  requestsMoreAfter: " auf.",
  clientsHeading: "Einzeln vertraute Apps",
  clientsIntro:
    "Diese Apps haben sich selbst registriert (oder sind Metadatendokumente) und wurden freigegeben: " +
    "Jede Person darf ihnen die Tools des Arbeitsbereichs erlauben.",
  untrustWord: "Vertrauen entziehen",
  untrustMeans: "beendet sofort ihre Zugriffe mit dem Scope workspace (ihre Tokens enden bei der nächsten " +
    "Anfrage); danach müssen Personen erneut um Freigabe bitten.",
  noClients: "Keiner App wird einzeln vertraut.",
  clientsMore: (more: string, shown: string, total: string) =>
    `${more} weitere nicht angezeigt (die ${shown} zuletzt verwendeten von ${total}).`,
  withWorkspace: "Mit Arbeitsbereich",
  people: (n: number) => (n === 1 ? "1 Person verwendet sie" : `${n} Personen verwenden sie`),
  untrust: (app: string) => `${app} das Vertrauen entziehen`,
  prefixesHeading: "Vertrauenswürdige Präfixe für Metadatendokumente",
  prefixesIntroBefore:
    "Ein Präfix vertraut jeder Installation einer App, deren Metadatendokument (ihre Client-ID, eine URL) " +
    "darunter liegt — zum Beispiel vertraut",
  prefixesIntroAfter: "Claude für alle, ohne eine Anfrage pro Installation.",
  noPrefixes: "Keinem Präfix wird vertraut.",
  configPrefix: "in TRUSTED_CLIENT_ID_PREFIXES festgelegt (hier nur lesbar)",
  trustedAt: (time: string) => `vertraut seit ${time}`,
  remove: (prefix: string) => `${prefix} entfernen`,
  trustPrefixLabel: "Einem Präfix vertrauen",
  trustPrefix: "Präfix vertrauen",
  badPrefix: "Ein Präfix ist eine https-URL mit mindestens dem Host und einem Schrägstrich " +
    "(https://claude.ai/oauth/), zur Entwicklung auch eine Loopback-URL mit http (http://127.0.0.1:3000/); ohne ? " +
    "oder #, ohne Leerzeichen, höchstens 500 Zeichen. Es wurde nichts als vertrauenswürdig eingetragen.",
  decisionsHeading: "Letzte Entscheidungen",
  noDecisions: "Noch keine.",
  subjectSeparator: ": ",
  viaCli: "die Kommandozeile (CLI)",
  removedAccount: "ein gelöschtes Konto",
  actions: {
    approve: "hat eine Anfrage freigegeben",
    deny: "hat eine Anfrage abgelehnt",
    trust: "hat einer App vertraut",
    untrust: "hat einer App das Vertrauen entzogen",
    trust_prefix: "hat einem Präfix vertraut",
    untrust_prefix: "hat ein Präfix entfernt",
    grant_operator: "hat ein Konto zum Betreiber gemacht",
    revoke_operator: "hat einem Konto die Betreiberrolle entzogen",
  },
  notices: {
    approved:
      "Freigegeben. Der App wird jetzt für alle auf diesem Server vertraut; jede offene Anfrage für sie " +
      "wurde damit freigegeben.",
    denied: "Abgelehnt. Die Anfrage dieser Person ist beendet; der App wird weiterhin nicht vertraut.",
    untrusted:
      "Vertrauen entzogen. Ihre Zugriffe mit dem Scope workspace sind beendet; Personen müssen erneut " +
      "um Freigabe bitten.",
    prefix_trusted: "Präfix vertraut. Jede App mit Metadatendokument darunter darf jetzt die Tools des " +
      "Arbeitsbereichs verwenden.",
    prefix_known: "Diesem Präfix wurde bereits vertraut. Es wurde nichts geändert.",
    prefix_removed:
      "Präfix entfernt. Apps darunter, denen nicht anderweitig vertraut wird, haben ihre Zugriffe " +
      "mit dem Scope workspace verloren.",
  },
  operatorsOnlyTitle: "Nur für Betreiber",
  operatorsOnly: (email: string) =>
    `Diese Seite ist für Betreiber dieses Dienstes, und ${email} ist keiner. Es wurde nichts geändert. ` +
    "Ein Betreiber kann ein Konto mit deno task admin user operator --email … dazu machen.",
  noRequestTitle: "Anfrage nicht gefunden",
  noRequest: "Es gibt keine Freigabeanfrage mit dieser ID. Es wurde nichts geändert.",
  alreadyDecidedTitle: "Bereits entschieden",
  alreadyDecided: (status) =>
    `Diese Anfrage wurde bereits ${
      { approved: "freigegeben", denied: "abgelehnt", pending: "bearbeitet" }[status]
    }. Es wurde nichts geändert. Kehren Sie zu den Freigabeanfragen zurück.`,
  noAppTitle: "App nicht gefunden",
  noApp: "Es gibt keine App mit dieser Client-ID. Es wurde nichts geändert.",
  inConfigTitle: "In der Konfiguration festgelegt",
  inConfig:
    "Diesem Präfix wird über TRUSTED_CLIENT_ID_PREFIXES vertraut: Entfernen Sie es dort und starten Sie " +
    "neu. Es wurde nichts geändert.",
  noPrefixTitle: "Präfix nicht gefunden",
  noPrefix: "Diesem Präfix wird nicht vertraut. Es wurde nichts geändert.",
};

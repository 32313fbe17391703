// Deutsch: /account/keys und die Wörter der Toolsets (in `account` eingefügt, siehe account.ts).
import type { AccountMessages } from "../en/account.ts";

export const accountKeys: Pick<AccountMessages, "keys" | "toolsets"> = {
  keys: {
    revoked: "Der Schlüssel wurde widerrufen. Ab der nächsten Anfrage funktioniert er nicht mehr.",
    errors: {
      invalid_input: "Der Name des Schlüssels muss 1–200 Zeichen lang sein.",
      not_found: "Dieser Arbeitsbereich oder diese Firma steht Ihnen nicht zur Verfügung.",
      access_denied: "Nur Inhaber und Administratoren erstellen Schlüssel für den Arbeitsbereich.",
      no_key: "Diesen Schlüssel gibt es nicht, oder Sie dürfen ihn nicht widerrufen.",
      unknown_toolset: (list: string) => `Wählen Sie Werkzeuggruppen aus der Liste: ${list}.`,
      no_toolset:
        "Wählen Sie mindestens eine Werkzeuggruppe (alle: Der Schlüssel ist nicht eingeschränkt). Es wurde kein Schlüssel erstellt.",
      invalid_read_only: "„Nur lesen“ ist entweder angekreuzt oder nicht. Es wurde kein Schlüssel erstellt.",
    },
    noWorkspace: "Sie sind in keinem Arbeitsbereich Mitglied und können daher keine Schlüssel erstellen.",
    yourRole: (role: string) =>
      `Ihre Rolle: ${role}. Ein Schlüssel handelt in Ihrem Namen und reicht nie weiter als Sie selbst.`,
    keyName: "Name des Schlüssels",
    keyNamePlaceholder: "z. B. Claude",
    limitCompany: "Auf eine Firma beschränken (optional)",
    everyCompanyICanSee: "Alle Firmen, die ich sehen kann",
    actsFor: "Der Schlüssel handelt für",
    actsForMe: "Mich (meine Rolle und Firmen)",
    actsForWorkspace: "Den Arbeitsbereich (keine Person; für Integrationen)",
    limitTools: "Werkzeuge beschränken (optional)",
    create: "Schlüssel erstellen",
    everyKeyOf: (workspace: string) => `Alle Schlüssel von ${workspace}`,
    yourKeys: "Ihre Schlüssel",
    noKeys: "Noch keine Schlüssel.",
    yours: "Ihr eigener",
    actsAs: (email: string) => `handelt als ${email}`,
    workspaceKey: "Schlüssel des Arbeitsbereichs",
    noName: "(ohne Namen)",
    onlyCompany: (company: string) => `nur ${company}`,
    everyCompany: "alle Firmen",
    created: (when: string) => `erstellt ${when}`,
    revokedState: "widerrufen",
    lastUsed: (when: string) => `zuletzt verwendet ${when}`,
    neverUsed: "nie verwendet",
    revoke: (label: string) => `${label} widerrufen`,
    newKeyTitle: "Ihr neuer Schlüssel",
    newKeyFor: (workspace: string) =>
      ` für ${workspace}. Kopieren Sie ihn jetzt: Er wird nur dieses eine Mal angezeigt.`,
    copyKey: "Schlüssel kopieren",
    copied: "In die Zwischenablage kopiert.",
    selected: "Markiert: Drücken Sie Strg+C (oder Cmd+C) zum Kopieren.",
    sendAs:
      "Senden Sie ihn im Header {header} an {url} oder legen Sie ihn als {variable} für die Konfigurationen unten ab.",
    configsTitle: "Einen Client verbinden",
    configsNote:
      "Cursor, Claude Code und curl lesen den Schlüssel aus {variable} ({export}), VS Code fragt " +
      "danach – ihre Dateien enthalten also kein Geheimnis. Die Konfiguration für mcp-remote enthält den " +
      "Schlüssel selbst, in ihrem Abschnitt {env}: Claude Desktop gibt die Variablen Ihrer Shell nicht weiter, " +
      "behalten Sie diese Datei also für sich.",
    mcpRemoteClient: "mcp-remote (Claude Desktop und andere Clients, die nur stdio sprechen)",
    where: {
      cursor: "~/.cursor/mcp.json (Cursor liest PORTICO_KEY aus seiner Umgebung)",
      vscode: ".vscode/mcp.json (VS Code fragt einmal nach dem Schlüssel und speichert ihn)",
      "claude-code": "ein Terminal, in dem PORTICO_KEY gesetzt ist",
      "mcp-remote":
        "die Datei mit den MCP-Servern des Clients; tragen Sie den Schlüssel unter env ein (die Datei enthält ihn dann: halten Sie sie privat)",
      curl: "ein Terminal, in dem PORTICO_KEY gesetzt ist",
    },
    copyConfig: (client: string) => `Konfiguration für ${client} kopieren`,
    confirmTitle: (label: string) => `${label} widerrufen?`,
    confirmText:
      "Der Schlüssel {key} {prefix} von {workspace}{owner} funktioniert ab seiner nächsten Anfrage " +
      "nicht mehr. Das lässt sich nicht rückgängig machen: Ein Client, der ihn verwendet, braucht einen neuen " +
      "Schlüssel.",
    confirmActsAs: (email: string) => ` (handelt als ${email})`,
    confirmWorkspaceKey: " (ein Schlüssel des Arbeitsbereichs)",
  },
  toolsets: {
    labels: {
      projects: "Projekte und Ideen",
      tasks: "Aufgaben",
      finance: "Angebote und Rechnungen",
      crm: "Kunden, Kontakte und CRM",
      ai: "KI-Aktivitäten",
      documents: "Dokumente und Aufnahmen",
      time: "Zeiterfassung",
      calendar: "Kalender und Termine",
      booking: "Buchungseinstellungen",
    },
    legend: "Erlaubte Werkzeuggruppen",
    readOnly: "Nur lesen: darf nachschlagen, aber nichts erstellen, ändern oder löschen",
    every: "alle Werkzeuggruppen",
    only: (list: string) => `nur ${list}`,
    readOnlySuffix: (sets: string) => `${sets}; nur lesen`,
  },
};

// Français : /account/keys et les mots des ensembles d'outils (insérés dans `account`, voir account.ts).
import type { AccountMessages } from "../en/account.ts";

export const accountKeys: Pick<AccountMessages, "keys" | "toolsets"> = {
  keys: {
    revoked: "La clé a été révoquée. Elle cesse de fonctionner dès la prochaine requête.",
    errors: {
      invalid_input: "Le nom de la clé doit compter de 1 à 200 caractères.",
      not_found: "Cet espace de travail ou cette société ne vous est pas accessible.",
      access_denied: "Seuls les propriétaires et les administrateurs créent des clés d'espace de travail.",
      no_key: "Cette clé n'existe pas, ou vous ne pouvez pas la révoquer.",
      unknown_toolset: (list: string) => `Choisissez des groupes d'outils dans la liste\u00a0: ${list}.`,
      no_toolset:
        "Choisissez au moins un groupe d'outils (tous\u00a0: la clé n'est pas limitée). Aucune clé n'a été créée.",
      invalid_read_only: "«\u00a0Lecture seule\u00a0» est cochée ou non. Aucune clé n'a été créée.",
    },
    noWorkspace: "Vous n'êtes membre d'aucun espace de travail\u00a0: vous ne pouvez donc pas créer de clés.",
    yourRole: (role: string) =>
      `Votre rôle\u00a0: ${role}. Une clé agit en votre nom et n'accède jamais à plus que vous.`,
    keyName: "Nom de la clé",
    keyNamePlaceholder: "p. ex. Claude",
    limitCompany: "Limiter à une société (facultatif)",
    everyCompanyICanSee: "Toutes les sociétés que je vois",
    actsFor: "La clé agit pour",
    actsForMe: "Moi (mon rôle et mes sociétés)",
    actsForWorkspace: "L'espace de travail (aucune personne\u00a0; pour les intégrations)",
    limitTools: "Limiter ses outils (facultatif)",
    create: "Créer la clé",
    everyKeyOf: (workspace: string) => `Toutes les clés de ${workspace}`,
    yourKeys: "Vos clés",
    noKeys: "Aucune clé pour l'instant.",
    yours: "la vôtre",
    actsAs: (email: string) => `agit en tant que ${email}`,
    workspaceKey: "clé d'espace de travail",
    noName: "(sans nom)",
    onlyCompany: (company: string) => `uniquement ${company}`,
    everyCompany: "toutes les sociétés",
    created: (when: string) => `créée le ${when}`,
    revokedState: "révoquée",
    lastUsed: (when: string) => `dernière utilisation le ${when}`,
    neverUsed: "jamais utilisée",
    revoke: (label: string) => `Révoquer ${label}`,
    newKeyTitle: "Votre nouvelle clé",
    newKeyFor: (workspace: string) =>
      ` pour ${workspace}. Copiez-la maintenant\u00a0: elle n'est affichée qu'une seule fois.`,
    copyKey: "Copier la clé",
    copied: "Copiée dans le presse-papiers.",
    selected: "Sélectionnée\u00a0: appuyez sur Ctrl+C (ou Cmd+C) pour copier.",
    sendAs:
      "Envoyez-la dans l'en-tête {header} à {url}, ou placez-la dans {variable} pour les configurations ci-dessous.",
    configsTitle: "Connecter un client",
    configsNote:
      "Cursor, Claude Code et curl lisent la clé dans {variable} ({export}) et VS Code la demande\u00a0: " +
      "leurs fichiers ne contiennent donc aucun secret. La configuration mcp-remote contient la clé elle-même, " +
      "dans sa section {env}\u00a0: Claude Desktop ne transmet pas les variables de votre shell, gardez donc ce " +
      "fichier pour vous.",
    mcpRemoteClient: "mcp-remote (Claude Desktop et les autres clients limités à stdio)",
    where: {
      cursor: "~/.cursor/mcp.json (Cursor lit PORTICO_KEY dans son environnement)",
      vscode: ".vscode/mcp.json (VS Code demande la clé une fois et l'enregistre)",
      "claude-code": "un terminal où PORTICO_KEY est défini",
      "mcp-remote":
        "le fichier des serveurs MCP du client\u00a0; mettez la clé dans env (le fichier la contient alors\u00a0: gardez-le privé)",
      curl: "un terminal où PORTICO_KEY est défini",
    },
    copyConfig: (client: string) => `Copier la configuration pour ${client}`,
    confirmTitle: (label: string) => `Révoquer ${label}\u00a0?`,
    confirmText:
      "La clé {key} {prefix} de {workspace}{owner} cesse de fonctionner dès sa prochaine requête. " +
      "C'est irréversible\u00a0: un client qui l'utilise aura besoin d'une nouvelle clé.",
    confirmActsAs: (email: string) => ` (agit en tant que ${email})`,
    confirmWorkspaceKey: " (une clé d'espace de travail)",
  },
  toolsets: {
    labels: {
      projects: "Projets et idées",
      tasks: "Tâches",
      finance: "Devis et factures",
      crm: "Clients, contacts et CRM",
      ai: "Activités d'IA",
      documents: "Documents et enregistrements",
      time: "Suivi du temps",
      calendar: "Calendriers et rendez-vous",
      booking: "Paramètres de réservation",
    },
    legend: "Groupes d'outils autorisés",
    readOnly: "Lecture seule\u00a0: peut consulter, mais rien créer, modifier ni supprimer",
    every: "tous les groupes d'outils",
    only: (list: string) => `uniquement ${list}`,
    readOnlySuffix: (sets: string) => `${sets}\u00a0; lecture seule`,
  },
};

// Français : les pages d'activité — ce que chaque application et chaque clé a fait, la page de l'espace de travail
// avec les applications de ses membres et la confirmation avant de déconnecter.
import type { ActivityMessages } from "../en/activity.ts";

export const activity: ActivityMessages = {
  title: "Activité",
  titleIn: (workspace: string) => `Activité dans ${workspace}`,
  introOwn:
    "Chaque appel d'outil de vos applications connectées et de vos clés d'API, du plus récent au plus ancien.",
  introWorkspace: (workspace: string) =>
    `Chaque appel d'outil de chaque application et de chaque clé dans ${workspace}, du plus récent au plus ancien.`,
  signedInAs: (email: string) => `Connecté en tant que ${email}.`,
  disconnected: "L'application a été déconnectée pour ce membre.",
  outcomes: {
    ok: "Effectué",
    denied: "Refusé",
    invalid: "Refusé : entrée non valide",
    declined: "Non effectué : non confirmé",
    asked: "Confirmation demandée",
    error: "Échec",
    crash: "Échec : erreur du serveur",
    unavailable: "Échec : indisponible",
  },
  reasons: {
    access_denied: "non autorisé",
    invalid_input: "l'entrée n'était pas valide",
    invalid_params: "outil inconnu ou appel mal formé",
    not_found: "un enregistrement est introuvable ou n'est pas visible",
    conflict: "en conflit avec l'état de l'enregistrement",
    unavailable: "indisponible pour le moment",
    internal_error: "une erreur inattendue du serveur (journalisée)",
    confirmation_required:
      "nécessite la confirmation de la personne, et l'application ne peut pas la demander",
    not_confirmed: "la personne a refusé ou n'a pas confirmé",
  },
  rules: {
    needsUser: (tool: string) =>
      `${tool} agit au nom d'une personne et nécessite une clé d'API liée à un compte utilisateur`,
    needsInternalKey: (tool: string) =>
      `${tool} agit au nom d'une personne et n'est disponible que pour l'assistant de l'espace de travail ` +
      `(clé interne)`,
    roleArea: (role: string | null, area: string) =>
      `${
        role === null ? "Le rôle de la clé" : `Le rôle « ${role} »`
      } ne permet pas d'utiliser les outils « ${area} » dans cet espace de travail`,
    moduleOff: (module: string) => `Le module « ${module} » est désactivé dans cet espace de travail`,
  },
  areas: {
    projects: "Projets",
    tasks: "Tâches",
    clients: "Clients",
    offers: "Devis",
    invoices: "Factures",
    ideas: "Idées",
    contacts: "Contacts",
    crm: "CRM",
    ai_activities: "Activités IA",
    documents: "Documents",
    recordings: "Enregistrements audio",
    time_tracking: "Suivi du temps",
    calendar: "Calendrier",
    booking: "Réservations",
    context: "Contexte",
    members: "Membres",
    finance_collections: "Finances et recouvrement",
  },
  confirmation: {
    asked: "demandée, en attente de la réponse",
    declined: "demandée, non confirmée",
    confirmed: "demandée, confirmée",
  },
  noRecords: "aucun cité",
  byApp: (name: string) => `Application : ${name}`,
  byKey: (name: string, prefix: string | null) => `Clé : ${name}${prefix ? ` ${prefix}…` : ""}`,
  keyNoName: "(sans nom)",
  byUnknown: "inconnu",
  sourceKey: (name: string, prefix: string, workspace: string | null) =>
    `Clé : ${name} ${prefix}…${workspace !== null ? ` (${workspace})` : ""}`,
  time: "Heure",
  by: "Par",
  person: "Personne",
  noPerson: "l'espace de travail (aucune personne)",
  workspace: "Espace de travail",
  records: "Enregistrements",
  why: "Motif",
  confirmationLabel: "Confirmation",
  filterLabel: "Filtrer l'activité",
  source: "Application ou clé",
  everySource: "Toutes les applications et clés",
  tool: "Outil",
  everyTool: "Tous les outils",
  outcome: "Résultat",
  everyOutcome: "Tous les résultats",
  from: "Du (date UTC)",
  to: "Au (date UTC)",
  show: "Afficher",
  clearFilters: "Effacer les filtres",
  appsIn: (workspace: string) => `Applications connectées dans ${workspace}`,
  noMemberApps: "Aucun membre n'a connecté d'application à cet espace de travail.",
  forMember: (email: string) => `pour ${email}`,
  disconnectFor: (app: string, email: string) => `Déconnecter ${app} pour ${email}`,
  disconnect: (app: string) => `Déconnecter ${app}`,
  calls: "Appels",
  callsLabel: "Appels d'outils",
  noCalls: "Aucun appel ne correspond.",
  newest: "Les plus récents",
  older: "Appels plus anciens",
  csv: (max: string) => `Télécharger en CSV (${max} lignes au maximum)`,
  perPage: (n: number) =>
    `${n} appels par page. Les enregistrements sont indiqués par leur identifiant ; le texte des arguments ` +
    `n'est jamais conservé.`,
  disconnectTitle: (app: string) => `Déconnecter ${app} ?`,
  disconnectText: (app: string, workspace: string, email: string) =>
    `${app} perd immédiatement l'accès à ${workspace} pour ${email} : ses jetons cessent de fonctionner à leur ` +
    `prochaine utilisation dans cet espace, et l'application devra de nouveau demander l'approbation de ${email}. ` +
    `Son accès aux autres espaces de travail ne change pas.`,
  notAllowedTitle: "Non autorisé",
  notAllowed:
    "Seuls les propriétaires et administrateurs de l'espace de travail voient son activité. Vos propres appels " +
    "se trouvent sous « Activité ».",
  notConnectedTitle: "Non connectée",
  notConnected: "Cette application n'est pas (ou plus) connectée pour ce membre.",
};

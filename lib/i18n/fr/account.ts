// Français : les pages du compte — applications connectées, sessions, espaces de travail, pages de confirmation —
// et, depuis account_keys.ts, les clés d'API et les mots des ensembles d'outils.
import type { AccountMessages } from "../en/account.ts";
import { accountKeys } from "./account_keys.ts";

export const account: AccountMessages = {
  signedInAs: (email: string) => `Connecté en tant que ${email}`,
  operatorPages: "Pages de l'opérateur",
  switchAccount: "Changer de compte",
  signOut: "Se déconnecter",
  activityOf: (name: string) => `Activité de ${name}`,
  roles: {
    owner: "propriétaire",
    admin: "administrateur",
    manager: "gestionnaire",
    accounting: "comptabilité",
    member: "membre",
    guest: "invité",
  },
  confirm: {
    cancel: "Annuler",
  },
  apps: {
    disconnected: "L'application a été déconnectée.",
    none: "Aucune application n'a accès à votre compte.",
    registeredBy: {
      itself: "inscrite par elle-même",
      operator: "enregistrée par l'opérateur",
      metadata_document: "décrite par son propre site web",
    },
    clientId: "Identifiant client",
    returnsTo: "Redirige vers",
    registered: "Enregistrement",
    approved: "Autorisation",
    lastUsed: "Dernière utilisation",
    never: "jamais",
    actsIn: "Agit dans",
    actsInCompany: (workspace: string, company: string) => `${workspace}, uniquement ${company}`,
    tools: "Outils",
    mayLabel: "Cette application peut\u00a0:",
    disconnect: (name: string) => `Déconnecter ${name}`,
    confirmTitle: (name: string) => `Déconnecter ${name}\u00a0?`,
    confirmText: (name: string) =>
      `${name} perd immédiatement l'accès à votre compte\u00a0: ses jetons cessent de fonctionner dès leur prochaine utilisation, et elle devra vous redemander votre autorisation pour revenir.`,
    notConnectedTitle: "Non connectée",
    notConnectedMessage:
      "Cette application n'est pas (ou plus) connectée à votre compte. Revenez aux applications connectées.",
  },
  sessions: {
    heading: "Où vous êtes connecté",
    intro:
      "Chaque navigateur où vous vous êtes connecté. Si vous n'en reconnaissez pas un, déconnectez-le et changez votre mot de passe.",
    thisBrowser: "Ce navigateur",
    address: "Adresse",
    unknownAddress: "inconnue",
    signedIn: "Connexion",
    how: "Méthode",
    lastSeen: "Dernière activité",
    now: "maintenant",
    signOutHere: "Se déconnecter de ce navigateur",
    signOutOf: (device: string, seen: string) => `Se déconnecter de ${device}, vu le ${seen}`,
    truncated: (n: number) => `Seuls les ${n} plus récemment utilisés sont affichés.`,
    signOutElsewhere: "Se déconnecter partout ailleurs",
    endedOne: "Vous avez été déconnecté de ce navigateur.",
    endedOthers: "Vous avez été déconnecté partout ailleurs.",
    endedNone: "Vous n'y étiez déjà plus connecté.",
    device: {
      on: (browser: string, system: string) => `${browser} sous ${system}`,
      anyOn: (system: string) => `Un navigateur sous ${system}`,
      unknown: "Navigateur inconnu",
    },
    methods: {
      password: "Mot de passe",
      passkey: "Clé d'accès",
      passwordAndPasskey: "Mot de passe et clé d'accès",
      passwordAndCode: "Mot de passe et code à usage unique",
    },
  },
  workspaces: {
    intro:
      "Un espace de travail qui exige la connexion en deux étapes demande à chaque membre, après le mot de " +
      "passe, un code à usage unique ou une clé d'accès, puis à nouveau avant qu'une application puisse y agir " +
      "pour une connexion faite sans second facteur.",
    none: "Vous n'êtes membre d'aucun espace de travail.",
    yourRole: (role: string) => `votre rôle\u00a0: ${role}`,
    policyRequired: "Connexion en deux étapes\u00a0: exigée pour les membres.",
    policyOff: "Connexion en deux étapes\u00a0: non exigée pour les membres.",
    withoutFactor: (n: number) =>
      `${
        n <= 1 ? `${n} membre n'a` : `${n} membres n'ont`
      } pas encore de second facteur\u00a0; ils seront guidés pour en configurer un à leur prochaine connexion.`,
    activityIn: (workspace: string) => `Activité dans ${workspace}`,
    activityHint: "(toutes les applications et clés de l'espace de travail)",
    require: (workspace: string) => `Exiger la connexion en deux étapes dans ${workspace}`,
    stopRequiring: (workspace: string) => `Ne plus exiger la connexion en deux étapes dans ${workspace}`,
    nowRequired: "La connexion en deux étapes est désormais exigée pour les membres de l'espace de travail.",
    noLongerRequired: "La connexion en deux étapes n'est plus exigée.",
    invalidTitle: "Requête non valide",
    invalidMessage: (field: string) => `Le champ ${field} du formulaire est absent ou non valide.`,
    requireField: "require (on ou off)",
    forbiddenTitle: "Non autorisé",
    forbiddenMessage:
      "Seul un propriétaire ou un administrateur de l'espace de travail peut modifier sa règle de connexion.",
  },
  ...accountKeys,
};

// Français : les pages de l'opérateur — demandes d'approbation, applications et préfixes de documents de
// métadonnées de confiance, dernières décisions, leurs messages et leurs refus.
import type { OperatorMessages } from "../en/operator.ts";

export const operator: OperatorMessages = {
  navLabel: "Pages de l'opérateur",
  requestsTitle: "Demandes d'approbation",
  clientsTitle: "Applications de confiance",
  signedInAs: (email: string) => `Connecté en tant que ${email} (opérateur)`,
  signOut: "Se déconnecter",
  andMore: (n: string) => ` et ${n} de plus`,
  registeredItself: "auto-enregistrée",
  metadataDocument: "document de métadonnées",
  metadataDocumentFrom: (host: string) => `document de métadonnées de ${host}`,
  askedBy: "Demandée par",
  workspace: "Espace de travail",
  workspaceOnly: (workspace: string, company: string) => `${workspace}, uniquement ${company}`,
  returnsTo: "Redirige vers",
  clientId: "Identifiant client",
  firstSeen: "Vue pour la première fois",
  lastUsed: "Dernière utilisation",
  never: "jamais",
  scopes: "Portées (scopes)",
  note: "Remarque",
  noNote: "aucune",
  asked: "Demandée le",
  approve: (app: string) => `Approuver ${app}`,
  deny: (app: string) => `Refuser ${app}`,
  requestsIntro:
    "Les personnes demandent ici l'approbation d'applications qui ne peuvent pas utiliser seules les outils de " +
    "l'espace de travail : les applications qui se sont enregistrées elles-mêmes et les applications à document " +
    "de métadonnées sous aucun préfixe de confiance.",
  approveWord: "Approuver",
  approveMeans:
    "accorde la confiance à l'application pour tout le monde sur ce serveur (toutes ses demandes en " +
    "attente sont approuvées avec celle-ci ; chaque personne l'autorise encore sur sa propre page de consentement).",
  denyWord: "Refuser",
  denyMeans: "met fin à la demande de cette personne seulement ; l'application reste sans approbation.",
  noRequests: "Aucune demande en attente.",
  requestsMore: (more: string, shown: string, total: string) =>
    `${more} de plus non affichées (les ${shown} plus récentes sur ${total}). Traitez celles-ci et rechargez la ` +
    "page, ou listez-les toutes avec",
  requestsMoreAfter: ".",
  clientsHeading: "Applications approuvées une par une",
  clientsIntro:
    "Ces applications se sont enregistrées elles-mêmes (ou sont des documents de métadonnées) et ont " +
    "été approuvées : chacun peut les autoriser à utiliser les outils de l'espace de travail.",
  untrustWord: "Retirer la confiance",
  untrustMeans: "met fin immédiatement à leurs autorisations portant sur l'espace de travail (leurs jetons " +
    "cessent de fonctionner à la requête suivante) ; les personnes doivent ensuite demander de nouveau " +
    "l'approbation.",
  noClients: "Aucune application n'est approuvée individuellement.",
  clientsMore: (more: string, shown: string, total: string) =>
    `${more} de plus non affichées (les ${shown} utilisées le plus récemment sur ${total}).`,
  withWorkspace: "Avec l'espace de travail",
  people: (n: number) => (n <= 1 ? `${n} personne l'utilise` : `${n} personnes l'utilisent`),
  untrust: (app: string) => `Retirer la confiance à ${app}`,
  prefixesHeading: "Préfixes de documents de métadonnées de confiance",
  prefixesIntroBefore:
    "Un préfixe accorde la confiance à chaque installation d'une application dont le document de métadonnées " +
    "(son identifiant client, une URL) se trouve sous ce préfixe — par exemple,",
  prefixesIntroAfter: "accorde la confiance à Claude pour tout le monde, sans demande par installation.",
  noPrefixes: "Aucun préfixe de confiance.",
  configPrefix: "défini dans TRUSTED_CLIENT_ID_PREFIXES (lecture seule ici)",
  trustedAt: (time: string) => `ajouté le ${time}`,
  remove: (prefix: string) => `Retirer ${prefix}`,
  trustPrefixLabel: "Ajouter un préfixe de confiance",
  trustPrefix: "Ajouter le préfixe",
  badPrefix: "Un préfixe est une URL https comprenant au moins l'hôte et une barre oblique " +
    "(https://claude.ai/oauth/), ou, pour le développement, une URL http de bouclage locale " +
    "(http://127.0.0.1:3000/) ; sans ? ni #, sans espaces, 500 caractères au maximum. Rien n'a été ajouté.",
  decisionsHeading: "Décisions récentes",
  noDecisions: "Aucune pour l'instant.",
  subjectSeparator: " : ",
  viaCli: "la ligne de commande (CLI)",
  removedAccount: "un compte supprimé",
  actions: {
    approve: "a approuvé une demande",
    deny: "a refusé une demande",
    trust: "a accordé la confiance à une application",
    untrust: "a retiré la confiance à une application",
    trust_prefix: "a ajouté un préfixe de confiance",
    untrust_prefix: "a retiré un préfixe",
    grant_operator: "a fait d'un compte un opérateur",
    revoke_operator: "a retiré le rôle d'opérateur à un compte",
  },
  notices: {
    approved:
      "Approuvée. L'application est désormais de confiance pour tout le monde sur ce serveur ; toutes ses " +
      "demandes en attente ont été approuvées avec celle-ci.",
    denied: "Refusée. La demande de cette personne est close ; l'application reste sans approbation.",
    untrusted:
      "Confiance retirée. Ses autorisations portant sur l'espace de travail ont pris fin ; les personnes " +
      "doivent demander de nouveau l'approbation.",
    prefix_trusted:
      "Préfixe ajouté. Chaque application à document de métadonnées sous ce préfixe peut désormais " +
      "utiliser les outils de l'espace de travail.",
    prefix_known: "Ce préfixe était déjà de confiance. Rien n'a changé.",
    prefix_removed:
      "Préfixe retiré. Les applications sous ce préfixe qui ne sont pas approuvées autrement ont " +
      "perdu leurs autorisations portant sur l'espace de travail.",
  },
  operatorsOnlyTitle: "Réservé aux opérateurs",
  operatorsOnly: (email: string) =>
    `Cette page est réservée aux opérateurs de ce service, et ${email} n'en fait pas partie. Rien n'a été ` +
    "modifié. Un opérateur peut faire de ce compte un opérateur avec deno task admin user operator --email ….",
  noRequestTitle: "Demande introuvable",
  noRequest: "Aucune demande d'approbation ne porte cet identifiant. Rien n'a changé.",
  alreadyDecidedTitle: "Déjà traitée",
  alreadyDecided: (status) =>
    `Cette demande a déjà été ${
      { approved: "approuvée", denied: "refusée", pending: "traitée" }[status]
    }. Rien n'a changé. Revenez aux demandes d'approbation.`,
  noAppTitle: "Application introuvable",
  noApp: "Aucune application ne porte cet identifiant client. Rien n'a changé.",
  inConfigTitle: "Défini dans la configuration",
  inConfig:
    "Ce préfixe est de confiance via TRUSTED_CLIENT_ID_PREFIXES : retirez-le là et redémarrez. Rien n'a changé.",
  noPrefixTitle: "Préfixe introuvable",
  noPrefix: "Ce préfixe n'est pas de confiance. Rien n'a changé.",
};

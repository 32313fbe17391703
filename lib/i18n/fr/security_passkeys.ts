// Français : les clés d'accès (passkeys) — connexion, deuxième étape, les clés du compte, ce que dit le script,
// les erreurs JSON.
import type { SecurityPasskeysMessages } from "../en/security_passkeys.ts";

export const passkeys: SecurityPasskeysMessages = {
  orSignIn: "Ou connectez-vous avec une clé d'accès, sans mot de passe :",
  use: "Utiliser une clé d'accès",
  never: "jamais",
  confirmTitle: "Confirmer avec une clé d'accès",
  signingInAs: "Connexion en tant que",
  finishSigningIn: ". Utilisez l'une de vos clés d'accès pour terminer la connexion.",
  needsScript: "Une clé d'accès nécessite JavaScript dans ce navigateur. Connectez-vous d'une autre manière.",
  useAnotherWay: "Utiliser une autre méthode",
  startAgain: "Recommencez depuis la page de connexion.",

  title: "Clés d'accès",
  intro:
    "Une clé d'accès vous connecte avec le verrouillage d'écran de votre appareil (empreinte digitale, " +
    "visage ou code PIN) au lieu d'un mot de passe, et peut confirmer une connexion comme deuxième étape après " +
    "votre mot de passe.",
  yours: "Vos clés d'accès",
  none: "Aucune clé d'accès pour l'instant.",
  add: "Ajouter une clé d'accès",
  full:
    "Vous avez autant de clés d'accès qu'un compte peut en avoir. Supprimez-en une pour en ajouter une autre.",
  addNeedsScript: "L'ajout d'une clé d'accès nécessite JavaScript dans ce navigateur.",
  name: "Nom",
  synced: "synchronisée par votre fournisseur de clés d'accès",
  oneDevice: "sur un seul appareil",
  facts: (where: string, added: string, used: string) =>
    `${where}, ajoutée le ${added}, dernière utilisation : ${used}`,
  rename: (name: string) => `Renommer ${name}`,
  remove: (name: string) => `Supprimer ${name}`,
  removeQuestion: (name: string) => `Supprimer ${name} ?`,
  newName: "Nouveau nom",
  save: "Enregistrer",
  removeBefore: "La clé d'accès",
  removeAfter:
    "cesse immédiatement de fonctionner ici : ni la connexion ni une deuxième étape ne l'acceptent " +
    "plus. Elle reste sur votre appareil ou chez votre fournisseur de clés d'accès jusqu'à ce que vous l'y " +
    "supprimiez.",
  lastOne: "C'est votre dernière clé d'accès : vous vous connecterez de nouveau avec votre mot de passe.",
  notices: {
    added: "La clé d'accès a été ajoutée. Vous pouvez maintenant vous connecter avec.",
    renamed: "La clé d'accès a été renommée.",
    removed: "La clé d'accès a été supprimée. Elle ne fonctionne plus ici.",
  },
  noSuchPasskey: "Cette clé d'accès n'existe pas (ou plus).",
  nameProblem: "Donnez à la clé d'accès un nom de 1 à 100 caractères.",

  script: {
    waiting: "En attente de votre clé d'accès…",
    failed: "Une erreur s'est produite. Rechargez la page.",
    duplicate: "Cette clé d'accès est déjà enregistrée ici.",
    cancelled: "Aucune clé d'accès n'a été utilisée (annulation ou délai dépassé). Réessayez.",
    refused: "La clé d'accès n'a pas été acceptée. Réessayez.",
    offline: "Le serveur est injoignable. Réessayez.",
  },
  errors: {
    pageExpired: "La page a expiré. Rechargez-la et réessayez.",
    challengeExpired: "La demande de clé d'accès a expiré. Réessayez.",
    refused: "Cette clé d'accès n'a pas été acceptée ici. Réessayez ou utilisez une autre méthode.",
    pendingExpired: "Cette connexion a expiré. Recommencez depuis la page de connexion.",
    malformed: "La réponse de la clé d'accès est mal formée.",
    requestExpired: "La demande de connexion n'est plus valable. Recommencez.",
    throttled: (minutes: number) => `Trop de tentatives. Réessayez dans ${minutes} min.`,
    signedOut: "Vous êtes déconnecté. Rechargez la page et reconnectez-vous.",
    alreadyRegistered: "Cette clé d'accès est déjà enregistrée ici.",
    tooMany: "Vous avez autant de clés d'accès qu'un compte peut en avoir.",
    notVerified: "La clé d'accès n'a pas pu être vérifiée. Réessayez.",
  },
};

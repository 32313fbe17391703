// Français : ce que toutes les pages partagent — le cadre, la navigation du compte, les pages d'erreur.
import type { CommonMessages } from "../en/common.ts";

export const common: CommonMessages = {
  errorCode: "Code d'erreur",
  requestId: "Identifiant de requête",
  quoteReference:
    "Si vous contactez l'opérateur de ce service, indiquez le code d'erreur et l'identifiant de requête.",
  redirectSent: "Envoyée",
  redirectRegistered: "Enregistrées",
  unavailableTitle: "Temporairement indisponible",
  unavailableMessage: (brand: string) =>
    `${brand} ne peut pas joindre sa base de données pour le moment. Attendez quelques secondes et réessayez.`,
  requestExpiredTitle: "Cette page a expiré",
  requestExpiredMessage:
    "La demande de connexion n'est plus valable. Retournez dans l'application et recommencez.",
  formExpiredTitle: "Formulaire expiré",
  formExpiredMessage: (then: string) => `Le formulaire n'a pas pu être vérifié. ${then}`,
  formExpiredThen: "Revenez en arrière, rechargez la page et réessayez.",
  reloadAndRetry: "Rechargez la page et réessayez.",
  nav: {
    label: "Votre compte",
    home: "Compte",
    apps: "Applications connectées",
    keys: "Clés d'API",
    activity: "Activité",
    security: "Sécurité",
    sessions: "Sessions",
    workspaces: "Espaces de travail",
  },
};

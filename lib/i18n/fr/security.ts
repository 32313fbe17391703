// Français : les pages de sécurité de la connexion — la deuxième étape, les réglages de la connexion en deux
// étapes et le frein sur les codes erronés ; clés d'accès et mots de passe viennent des fichiers voisins.
import type { SecurityCoreMessages, SecurityMessages } from "../en/security.ts";
import { passkeys } from "./security_passkeys.ts";
import { passwords } from "./security_passwords.ts";

const core: SecurityCoreMessages = {
  cancel: "Annuler",
  continue: "Continuer",
  back: "Retour",
  signedInAs: (email: string) => `Connecté en tant que ${email}`,
  signInAgain: "Se reconnecter",
  signInAgainThen: "Reconnectez-vous.",
  signOut: "Se déconnecter",
  yourPassword: "Votre mot de passe",

  twoStepTitle: "Connexion en deux étapes",
  confirmItIsYou: "Confirmez votre identité",
  typeCode: "Saisissez le code à 6 chiffres que votre application d'authentification affiche pour ce compte.",
  code: "Code de vérification",
  verify: "Vérifier",
  usePasskeyInstead: "Utiliser plutôt une clé d'accès",
  useRecoveryCode: "Utiliser un code de récupération",
  recoveryCode: "Code de récupération",
  useRecoveryCodeButton: "Utiliser le code de récupération",
  codeProblems: {
    wrongCode:
      "Ce code n'est pas correct. Vérifiez que l'application affiche bien ce compte, et saisissez le " +
      "code le plus récent.",
    used: "Ce code a déjà été utilisé. Attendez le code suivant dans l'application.",
    notSetUp: "Ce code n'est pas correct.",
    recovery: "Ce code de récupération n'est pas correct, ou a déjà été utilisé.",
    setupExpired:
      "La configuration a pris trop de temps. Scannez le nouveau code QR (ou saisissez la nouvelle " +
      "clé) et réessayez.",
  },

  setUpTwoStep: "Configurer la connexion en deux étapes",
  workspaceRequires: "exige la connexion en deux étapes",
  requestRequires: "Cette demande exige la connexion en deux étapes",
  setUpWhy:
    " : après votre mot de passe, un code d'une application d'authentification sur votre téléphone. " +
    "La configuration prend une minute, puis vous reprenez là où vous en étiez.",
  setUpNow: "Configurer maintenant",
  setUpApp: "Configurer une application d'authentification",
  twoStepIsOn: "La connexion en deux étapes est activée",
  savedContinue: "Je les ai enregistrés, continuer",
  lowTitle: "Il reste peu de codes de récupération",
  lowLeft: (n: number) =>
    n === 0
      ? "C'était votre dernier code de récupération."
      : n === 1
      ? "Il vous reste 1 code de récupération."
      : `Il vous reste ${n} codes de récupération.`,
  createNewUnder:
    "Créez-en de nouveaux dans votre compte, sous Sécurité, Connexion en deux étapes, avant d'en " +
    "avoir besoin.",
  expiredTitle: "Connexion expirée",
  expiredHeading: "Cette connexion a expiré",
  expiredMessage:
    "La deuxième étape d'une connexion doit suivre le mot de passe dans les 10 minutes, dans le " +
    "même navigateur, et ne fonctionne qu'une fois. Rien n'a été modifié. Reconnectez-vous.",
  tooManyTitle: "Trop de tentatives",
  tooManyCodes: (minutes: number) =>
    `Trop de codes erronés. Réessayez dans ${minutes <= 1 ? `${minutes} minute` : `${minutes} minutes`}.`,

  setupStep1: "Ouvrez une application d'authentification sur votre téléphone (par exemple Google " +
    "Authenticator, 1Password ou Aegis).",
  setupStep2: "Scannez ce code QR, ou saisissez la clé ci-dessous dans l'application.",
  setupStep3: "Saisissez le code à 6 chiffres affiché par l'application.",
  qrLabel: "Code QR pour votre application d'authentification",
  keyInstead: "Clé à saisir à la place :",
  codeFromApp: "Code de l'application",
  turnOn: "Activer la connexion en deux étapes",
  yourRecoveryCodes: "Vos codes de récupération",
  saveCodes:
    "Enregistrez ces codes maintenant, en lieu sûr (un gestionnaire de mots de passe, ou sur papier) : " +
    "ils ne sont affichés que cette fois. Chacun fonctionne une seule fois, si vous perdez le téléphone qui " +
    "porte votre application d'authentification. Les codes de récupération précédents ne fonctionnent plus.",

  authenticatorApp: "Application d'authentification",
  totpOn: "Activée. Après votre mot de passe, la connexion demande un code de votre application " +
    "d'authentification.",
  turnOffApp: "Désactiver l'application d'authentification",
  turnOff: "Désactiver",
  totpOff: "Désactivée. La connexion ne demande que votre mot de passe.",
  recoveryCodes: "Codes de récupération",
  unusedLeft: (n: number) =>
    n <= 1
      ? `Il reste ${n} code de récupération inutilisé.`
      : `Il reste ${n} codes de récupération inutilisés.`,
  runningOut: "Créez-en de nouveaux avant d'en manquer.",
  createNewCodes: "Créer de nouveaux codes de récupération",
  codesStop: "Les codes que vous avez maintenant cessent de fonctionner.",
  codesComeWith:
    "Les codes de récupération accompagnent une application d'authentification ou une clé d'accès.",
  backToSecurity: "Retour à la sécurité",
  twoStepNotices: {
    on:
      "La connexion en deux étapes est activée. Après votre mot de passe, la connexion demande désormais un " +
      "code de votre application.",
    off: "L'application d'authentification est désactivée.",
    codes: "De nouveaux codes de récupération ont été créés. Les précédents ne fonctionnent plus.",
  },
  twoStepErrors: {
    password: "Ce mot de passe n'est pas correct. Rien n'a été modifié.",
    noFactor: "Configurez d'abord une application d'authentification ou une clé d'accès.",
  },
};

export const security: SecurityMessages = { ...core, passkeys, ...passwords };

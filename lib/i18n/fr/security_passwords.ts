// Français : les mots de passe et la vue d'ensemble de la sécurité — journal de sécurité, changement du mot de
// passe, les motifs des règles (avec les avertissements de zxcvbn), « Mot de passe oublié ? » avec son e-mail et
// la boîte aux lettres de développement.
import type { SecurityPasswordsMessages } from "../en/security_passwords.ts";

export const passwords: SecurityPasswordsMessages = {
  events: {
    sign_in: "Connexion",
    sign_in_failed: "Échec de connexion",
    sign_in_throttled: "Connexion ralentie après des tentatives échouées",
    second_factor_failed: "Code ou clé d'accès erroné à la deuxième étape",
    second_factor_throttled: "Deuxième étape ralentie après des tentatives échouées",
    step_up: "Confirmé avec un second facteur",
    factor_added: "Second facteur ajouté",
    factor_removed: "Second facteur supprimé",
    recovery_codes_created: "Nouveaux codes de récupération créés",
    recovery_code_used: "Code de récupération utilisé",
    password_changed: "Mot de passe modifié",
    password_reset: "Mot de passe réinitialisé par e-mail",
    password_reset_requested: "Réinitialisation du mot de passe demandée",
    session_ended: "Déconnexion d'un navigateur",
    sessions_ended: "Déconnexion partout ailleurs",
    signed_out: "Déconnexion",
    workspace_policy_changed: "Règle de connexion en deux étapes d'un espace de travail modifiée",
  },
  overview: {
    title: "Sécurité",
    changed:
      "Votre mot de passe a été modifié, et vos autres navigateurs ont été déconnectés. Les applications " +
      "que vous avez connectées conservent leur accès : déconnectez celles auxquelles vous ne faites pas " +
      "confiance sous Applications connectées.",
    password: "Mot de passe",
    lastChanged: (time: string) => `Dernière modification : ${time}.`,
    neverChanged: "Pas modifié depuis la création du compte.",
    on: "Activée",
    off: "Désactivée",
    manage: "Gérer",
    setUp: "Configurer",
    none: "Aucune",
    passkeyCount: (n: number) => n <= 1 ? `${n} clé d'accès` : `${n} clés d'accès`,
    managePasskeys: "Gérer les clés d'accès",
    noneLeft: "Plus aucun",
    left: (n: number) => n <= 1 ? `${n} restant` : `${n} restants`,
    whereSignedIn: "Où vous êtes connecté",
    seeBrowsers: "Voir les navigateurs connectés à votre compte",
    signOutUnknown: ", et déconnectez ceux que vous ne reconnaissez pas.",
    recentEvents: "Événements de sécurité récents",
    nothingYet: "Rien n'a encore été enregistré.",
    unknownAddress: "adresse inconnue",
    eventsNote: (newest: number | null) =>
      `Les ${newest === null ? "" : `${newest} `}événements les plus récents : connexions et tentatives ` +
      "échouées, modifications de votre mot de passe et de vos seconds facteurs, déconnexions.",
    switchAccount: "Changer de compte",
  },
  password: {
    rule:
      "Au moins 12 caractères. Plusieurs mots sans rapport entre eux font un mot de passe solide et facile à " +
      "retenir ; les mots de passe courants et ceux formés à partir de votre adresse e-mail sont refusés.",
    changeTitle: "Changer le mot de passe",
    chooseNew: "Choisissez un nouveau mot de passe",
    required: "Votre mot de passe ne respecte pas nos règles : il compte moins de 12 caractères, ou il est " +
      "courant ou facile à deviner (les attaquants essaient ces mots de passe en premier). Choisissez-en un " +
      "nouveau pour continuer ; vous restez connecté ici, et les autres navigateurs sont déconnectés.",
    current: "Mot de passe actuel",
    new: "Nouveau mot de passe",
    newAgain: "Confirmez le nouveau mot de passe",
    gone: "Le mot de passe de ce compte ne peut pas être modifié.",
    throttled: (minutes: number) =>
      `Trop de mots de passe erronés. Attendez ${minutes} minute${minutes <= 1 ? "" : "s"} et réessayez.`,
    wrongCurrent: "Le mot de passe actuel n'est pas correct.",
    mismatch: "Les deux nouveaux mots de passe ne sont pas identiques.",
    same: "Le nouveau mot de passe est identique à l'actuel.",
    tooShort: (min: number) =>
      `Utilisez au moins ${min} caractères. Plusieurs mots dont vous vous souvenez font un bon mot de passe.`,
    tooLong: (max: number) => `Utilisez au plus ${max} caractères.`,
    personal: "Le mot de passe contient votre adresse e-mail ou votre nom, que d'autres peuvent deviner. " +
      "Choisissez autre chose.",
    common:
      "Ce mot de passe figure sur des listes de mots de passe courants que les attaquants essaient en " +
      "premier. Choisissez-en un autre.",
    guessable: (warning: string) =>
      `Ce mot de passe est trop facile à deviner. ${warning ? `${warning} ` : ""}Ajoutez d'autres mots ou ` +
      "caractères qui ne suivent aucun schéma.",
    warnings: {
      straightRow: "Les rangées de touches du clavier sont faciles à deviner.",
      keyPattern: "Les motifs de clavier courts sont faciles à deviner.",
      simpleRepeat: "Les caractères répétés comme « aaa » sont faciles à deviner.",
      extendedRepeat: "Les motifs de caractères répétés comme « abcabcabc » sont faciles à deviner.",
      sequences: "Les suites de caractères courantes comme « abc » sont faciles à deviner.",
      recentYears: "Les années récentes sont faciles à deviner.",
      dates: "Les dates sont faciles à deviner.",
      topTen: "C'est un mot de passe extrêmement utilisé.",
      topHundred: "C'est un mot de passe très souvent utilisé.",
      common: "C'est un mot de passe couramment utilisé.",
      similarToCommon: "Ce mot de passe ressemble à un mot de passe couramment utilisé.",
      wordByItself: "Les mots isolés sont faciles à deviner.",
      namesByThemselves: "Les prénoms ou noms de famille seuls sont faciles à deviner.",
      commonNames: "Les prénoms et noms de famille courants sont faciles à deviner.",
      userInputs: "Le mot de passe ne doit contenir aucune donnée personnelle ou liée à cette page.",
      pwned: "Votre mot de passe a été exposé lors d'une fuite de données sur Internet.",
    },
  },
  reset: {
    forgotTitle: "Mot de passe oublié",
    forgotIntro: "Saisissez l'adresse e-mail de votre compte. Nous vous enverrons un lien pour choisir un " +
      "nouveau mot de passe.",
    email: "Adresse e-mail",
    sendLink: "Envoyer le lien",
    backToSignIn: "Retour à la connexion",
    sentTitle: "Consultez vos e-mails",
    sent:
      "Si un compte existe pour cette adresse, nous avons envoyé un lien pour choisir un nouveau mot de " +
      "passe. Il fonctionne une fois, pendant 30 minutes.",
    noMail:
      "Pas d'e-mail après quelques minutes ? Vérifiez le dossier des indésirables, ou demandez un nouveau " +
      "lien plus tard.",
    newPasswordMin: "Nouveau mot de passe (au moins 12 caractères)",
    setPassword: "Définir le mot de passe",
    invalidTitle: "Lien non valable",
    invalidHeading: "Ce lien ne fonctionne plus",
    invalidMessage:
      "Un lien de réinitialisation du mot de passe fonctionne une fois et pendant 30 minutes, et " +
      "seul le dernier envoyé est valable. Rien n'a été modifié.",
    askNewLink: "Demander un nouveau lien",
    mismatch: "Les deux mots de passe ne sont pas identiques.",
    tooManyTries: "Trop d'essais avec ce lien. Demandez un nouveau lien.",
    mailboxTitle: "Boîte aux lettres de développement",
    mailboxBefore: "Les e-mails que ce serveur aurait envoyés (",
    mailboxAfter:
      " n'est pas défini ; visible uniquement avec la base de données intégrée). Les plus récents " +
      "d'abord, les 50 derniers.",
    mailboxEmpty: "Aucun e-mail pour l'instant.",
    mailTo: (to: string, at: string) => `À ${to}, ${at}`,
    mail: {
      subject: "Réinitialisez votre mot de passe",
      asked: "Quelqu'un (vous, espérons-le) a demandé à réinitialiser le mot de passe de votre compte.",
      openLink:
        "Pour choisir un nouveau mot de passe, ouvrez ce lien dans les 30 minutes (il ne fonctionne " +
        "qu'une fois) :",
      ignore: "Si vous n'avez rien demandé, ignorez cet e-mail : votre mot de passe reste inchangé.",
    },
  },
};

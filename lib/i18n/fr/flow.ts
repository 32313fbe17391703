// Français : les pages de la connexion pour les applications — connexion, choix du compte, consentement,
// approbation par les opérateurs, déconnexion — et les pages d'erreur de /oauth/authorize et /oauth/logout.
// Une espace insécable (\u00a0) précède « ? », « ! », « : » et « ; ».
import type { FlowMessages } from "../en/flow.ts";

export const flow: FlowMessages = {
  continueTo: "pour continuer vers {app}",
  signedInAs: (who: string) => `Connecté en tant que ${who}`,
  signIn: {
    title: "Se connecter",
    email: "Adresse e-mail",
    password: "Mot de passe",
    submit: "Se connecter",
    forgot: "Mot de passe oublié\u00a0?",
    back: "Retour",
    passwordChanged: "Votre mot de passe a été modifié. Connectez-vous avec le nouveau.",
    problems: {
      invalid_credentials: "Cette adresse e-mail et ce mot de passe ne correspondent à aucun compte.",
      disabled: "Ce compte est désactivé. Demandez à l'opérateur de ce service de le réactiver.",
      throttled: "Trop de tentatives échouées. Attendez quelques minutes et réessayez.",
    },
  },
  chooser: {
    title: "Choisir un compte",
    another: "Utiliser un autre compte",
    signOut: "Se déconnecter",
  },
  consent: {
    title: (app: string) => `Autoriser ${app}\u00a0?`,
    heading: "Autoriser {app} à utiliser votre compte\u00a0?",
    notYou: "Ce n'est pas vous\u00a0? Utiliser un autre compte",
    sentBack: "La réponse destinée à {app} sera envoyée à {host}. ",
    describedBy: "Cette application est décrite par {host}\u00a0; {brand} ne l'a pas vérifiée. ",
    selfRegistered: "Cette application s'est enregistrée elle-même\u00a0; {brand} ne l'a pas vérifiée. Ne " +
      "l'autorisez que si vous lui faites confiance.",
    operatorRegistered: "Cette application a été enregistrée par l'opérateur de ce service.",
    website: " Son site web\u00a0: {url}",
    loopback: (app: string) =>
      `${app} renvoie vers un programme de votre propre ordinateur. N'importe qui peut publier une description ` +
      "d'application comme celle-ci\u00a0: ne l'autorisez que si vous avez lancé cette connexion vous-même, " +
      "depuis ce programme, à l'instant.",
    ableTo: "Cette application pourra\u00a0:",
    audience: "Son accès sera utilisé sur {audience}, un service autre que {brand}.",
    placeLegend: "Où peut-elle agir en votre nom\u00a0?",
    limitSummary: "Limiter les outils utilisables (facultatif)",
    noWorkspace: (app: string) =>
      `Vous n'êtes membre d'aucun espace de travail\u00a0: ${app} ne pourrait donc rien utiliser. Vous pouvez ` +
      "seulement refuser cette demande.",
    disconnectLater: "Vous pouvez la déconnecter à tout moment dans Applications connectées.",
    allow: "Autoriser",
    deny: "Refuser",
    problems: {
      no_toolset: "Choisissez au moins un groupe d'outils qu'elle peut utiliser, ou refusez la demande.",
      unknown_toolset: "Choisissez des groupes d'outils dans la liste.",
      invalid_read_only: "La case «\u00a0Lecture seule\u00a0» est cochée ou non, sans autre valeur possible.",
    },
    badPlaceTitle: "Choisissez un espace de travail",
    badPlaceMessage:
      "Vous n'êtes pas membre de l'espace de travail choisi. Revenez en arrière, rechargez la " +
      "page et choisissez à nouveau.",
  },
  places: {
    allCompanies: (workspace: string, role: string) =>
      `${workspace} (en tant que ${role}, toutes les entreprises que vous voyez)`,
    oneCompany: (workspace: string, company: string) => `${workspace}, uniquement ${company}`,
  },
  scopes: {
    agentChat: (agent: string) => `Discuter en votre nom avec l'agent «\u00a0${agent}\u00a0»`,
    unknownAgent: "agent inconnu",
    openid: "Savoir qui vous êtes (un identifiant de compte stable)",
    profile: "Voir votre nom, votre adresse e-mail, votre photo, votre formule, vos crédits, vos agents " +
      "débloqués et vos abonnements à des agents",
    purchase: "Acheter des agents et des abonnements à des agents pour vous, payés avec vos crédits",
    workspaceConsent:
      "Utiliser vos outils d'espace de travail en votre nom\u00a0: lire et modifier projets, " +
      "tâches, clients, factures et plus encore, dans l'espace de travail que vous choisissez ci-dessous",
    workspaceConnected:
      "Utiliser vos outils d'espace de travail en votre nom\u00a0: lire et modifier projets, " +
      "tâches, clients, factures et plus encore, dans l'espace de travail choisi lorsque vous l'avez autorisée",
  },
  approval: {
    title: (app: string) => `${app} doit être approuvée`,
    heading: "{app} doit être approuvée par un opérateur",
    introDescribed:
      "{app} demande à utiliser vos outils d'espace de travail. Elle est décrite par {host}, et de " +
      "telles applications ne peuvent utiliser les outils d'espace de travail sur {brand} qu'une fois approuvées " +
      "par un opérateur. La réponse serait envoyée à {redirect}.",
    introSelf:
      "{app} demande à utiliser vos outils d'espace de travail. Elle s'est enregistrée elle-même, et de " +
      "telles applications ne peuvent utiliser les outils d'espace de travail sur {brand} qu'une fois approuvées " +
      "par un opérateur. La réponse serait envoyée à {redirect}.",
    asksTo: "Elle demande à pouvoir\u00a0:",
    placeLegend: "Où agirait-elle en votre nom\u00a0?",
    note: "Message aux opérateurs (facultatif)",
    operatorHint: "Vous êtes opérateur\u00a0: votre approbation permet à chaque personne de ce service " +
      "d'utiliser cette application avec ses outils d'espace de travail, chacune après son propre consentement. " +
      "Vous pouvez la retirer dans Opérateur › Applications.",
    personHint:
      "Les opérateurs sont prévenus. Cette page attend leur réponse puis continue\u00a0; vous pouvez " +
      "aussi la fermer et vous reconnecter depuis l'application une fois qu'ils auront approuvé.",
    noWorkspace: (app: string) =>
      `Vous n'êtes membre d'aucun espace de travail\u00a0: ${app} ne pourrait donc rien utiliser. Vous pouvez ` +
      "seulement annuler.",
    approve: (app: string) => `Approuver ${app} et continuer`,
    ask: "Demander l'approbation",
    cancel: "Annuler",
    problems: {
      choose: "Choisissez «\u00a0Demander l'approbation\u00a0» ou «\u00a0Annuler\u00a0».",
      place: "Choisissez un espace de travail dans la liste.",
      noteTooLong: (max: number) => `Le message ne doit pas dépasser ${max} caractères.`,
      tooMany: (n: number) =>
        `Vous avez déjà ${n} demandes en attente auprès des opérateurs. Attendez leur réponse avant de demander ` +
        "une autre application.",
    },
    onlyOperatorsTitle: "Seuls les opérateurs approuvent les applications",
    onlyOperatorsMessage: "Ce compte n'est pas opérateur de ce service et ne peut donc pas approuver " +
      "d'applications. Revenez en arrière et demandez plutôt l'approbation.",
    wait: {
      title: "En attente d'approbation",
      heading: "En attente d'un opérateur",
      asked:
        "Vous avez demandé aux opérateurs de {brand} d'approuver {app} pour {workspace} (demande du {time}).",
      explain:
        "Dès qu'un opérateur approuve, cette page passe à la dernière étape, où vous choisissez ce que " +
        "l'application peut faire. Elle vérifie d'elle-même toutes les quelques secondes\u00a0; sans JavaScript, " +
        "utilisez Vérifier à nouveau. Elle attend jusqu'à {until} UTC\u00a0; ensuite, reconnectez-vous depuis " +
        "l'application une fois que les opérateurs auront approuvé.",
      checkAgain: "Vérifier à nouveau",
      giveUp: "Ne plus attendre et revenir à l'application",
    },
    ended: {
      deniedTitle: "Non approuvée",
      deniedHeading: "Non approuvée",
      denied:
        "Un opérateur de {brand} n'a pas approuvé {app} pour vos outils d'espace de travail. Adressez-vous " +
        "à vos opérateurs si vous pensez qu'il s'agit d'une erreur.",
      expiredTitle: "Toujours en attente d'approbation",
      expiredHeading: "Pas encore de réponse",
      expired:
        "Aucun opérateur n'a encore approuvé {app}, et cette connexion a cessé d'attendre. Votre demande " +
        "reste chez les opérateurs\u00a0: une fois qu'ils l'auront approuvée, reconnectez-vous depuis l'application.",
      returnTo: (app: string) => `Revenir à ${app}`,
    },
  },
  logout: {
    title: "Se déconnecter\u00a0?",
    heading: "Se déconnecter de {brand}\u00a0?",
    asked: "{app} a demandé à vous déconnecter.",
    accounts: "Ce navigateur sera déconnecté de\u00a0:",
    afterwards: (app: string) => `Vous reviendrez ensuite à ${app}.`,
    signOut: "Se déconnecter",
    stay: "Rester connecté",
    doneTitle: "Déconnecté",
    doneHeading: "Vous êtes déconnecté",
    done: "Votre compte est déconnecté de {brand} dans ce navigateur.",
    signInAgain: "Se reconnecter",
    expired:
      "La demande de déconnexion n'est plus valable. Déconnectez-vous à nouveau depuis l'application ou " +
      "vos pages de compte.",
    formThen: "Déconnectez-vous à nouveau depuis l'application.",
    invalidTitle: "Demande de déconnexion non valable",
    unreadable: "Le formulaire n'a pas pu être lu.",
    repeated: (name: string) => `Le paramètre ${name} a été envoyé plusieurs fois.`,
    tooLong: "Un paramètre de la demande de déconnexion est trop long.",
    badHint:
      "L'application a envoyé un jeton d'identité (ID token) que ce serveur n'a pas émis (ou qu'il ne peut " +
      "plus vérifier). Retournez dans l'application, ou déconnectez-vous depuis vos pages de compte.",
    hintAudience: "Le jeton d'identité n'a pas été émis pour l'application nommée dans la demande.",
    unknownClient: "L'application qui vous a envoyé ici n'est pas connue.",
    badRedirect:
      "L'application a demandé à vous envoyer, après la déconnexion, vers une adresse qu'elle n'a pas " +
      "enregistrée pour cela\u00a0: vous n'y êtes donc pas envoyé.",
    redirectWithoutClient:
      "La demande de déconnexion indique une adresse de retour, mais pas l'application à " +
      "laquelle elle appartient (client_id ou id_token_hint)\u00a0: vous n'y êtes donc pas envoyé.",
  },
  errors: {
    unknownClientTitle: "Application inconnue",
    noClientId: "La demande ne nomme aucun client_id.",
    badMetadata: (clientId: string, reason: string) =>
      `Le document de métadonnées de l'application à l'adresse ${clientId} ne peut pas être utilisé\u00a0: ${reason}.`,
    notRegistered:
      "L'application qui vous a envoyé ici n'est pas enregistrée. Revenez en arrière et réessayez, " +
      "ou contactez-la.",
    invalidRedirectTitle: "Redirection non valable",
    invalidRedirect: (app: string) =>
      `L'adresse vers laquelle ${app} veut vous renvoyer ne fait pas partie de celles qu'elle a enregistrées\u00a0: ` +
      "Portico ne vous y enverra donc pas.",
    cannotCompleteTitle: "Cette demande ne peut pas aboutir",
    cannotComplete: (app: string, description: string, host: string) =>
      `${app} a envoyé une demande que Portico ne peut pas accepter\u00a0: ${description}. Portico ne vous envoie ` +
      `pas vers ${host}, car cette application s'est enregistrée elle-même et n'a jamais été utilisée ici. ` +
      "Retournez dans l'application, ou prévenez la personne qui la gère.",
    theApp: "l'application",
  },
};

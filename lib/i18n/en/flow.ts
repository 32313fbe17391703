// English: the OAuth sign-in flow's pages — sign-in, account chooser, consent (scopes, workspace, toolsets), the
// operators' approval, sign-out (/oauth/logout) — and the error pages of /oauth/authorize and /oauth/logout.
//
// A text with `{slot}`s is filled by views/fill.tsx with parts of the page (a name in bold, the operator's
// brand, a link), so each language puts them where its grammar wants them; a function takes plain values.
export const flow = {
  /** under the sign-in and chooser headings, when an application asked */
  continueTo: "to continue to {app}",
  signedInAs: (who: string) => `Signed in as ${who}`,
  signIn: {
    title: "Sign in",
    email: "Email",
    password: "Password",
    submit: "Sign in",
    forgot: "Forgot password?",
    back: "Back",
    passwordChanged: "Your password was changed. Sign in with the new one.",
    problems: {
      invalid_credentials: "That email and password do not match an account.",
      disabled: "This account is disabled. Ask the operator of this service to enable it again.",
      // The wait grows with each further attempt (1 to 15 minutes), so no fixed figure here.
      throttled: "Too many failed attempts. Wait a few minutes and try again.",
    },
  },
  chooser: {
    title: "Choose an account",
    another: "Use another account",
    signOut: "Sign out",
  },
  consent: {
    title: (app: string) => `Allow ${app}?`,
    heading: "Allow {app} to use your account?",
    notYou: "Not you? Use another account",
    sentBack: "{app} will be sent back to {host}. ",
    describedBy: "This application is described by {host}; {brand} has not reviewed it. ",
    selfRegistered:
      "This application registered itself; {brand} has not reviewed it. Only allow it if you trust it.",
    operatorRegistered: "This application was registered by the operator of this service.",
    website: " Its website: {url}",
    loopback: (app: string) =>
      `${app} returns to a program on your own computer. Anyone can publish an app description like this one: ` +
      "allow it only if you started this sign-in yourself, from that program, just now.",
    ableTo: "It will be able to:",
    audience: "Its access will be used at {audience}, a service other than {brand}.",
    placeLegend: "Where may it act as you?",
    limitSummary: "Limit the tools it may use (optional)",
    noWorkspace: (app: string) =>
      `You are not a member of any workspace, so there is nothing ${app} could use. You can only deny this request.`,
    disconnectLater: "You can disconnect it at any time under Connected apps.",
    allow: "Allow",
    deny: "Deny",
    /** why the page is shown again after Allow (lib/mcp/toolsets.ts limitsFromForm) */
    problems: {
      no_toolset: "Choose at least one toolset it may use, or deny the request.",
      unknown_toolset: "Choose toolsets from the list.",
      invalid_read_only: "Read-only is either checked or not.",
    },
    badPlaceTitle: "Choose a workspace",
    badPlaceMessage:
      "The workspace you chose is not one you belong to. Go back, reload the page and choose again.",
  },
  /** the workspace (and company) radio buttons of consent and approval (views/place_choice.tsx) */
  places: {
    allCompanies: (workspace: string, role: string) => `${workspace} (as ${role}, every company you can see)`,
    oneCompany: (workspace: string, company: string) => `${workspace}, only ${company}`,
  },
  /** what each scope lets an app do (lib/oauth/scopes.ts describeScopes), on consent and Connected apps */
  scopes: {
    agentChat: (agent: string) => `Chat with the agent “${agent}” as you`,
    unknownAgent: "unknown agent",
    openid: "Know who you are (a stable account identifier)",
    profile: "See your name, email address, picture, plan, credits, unlocked agents and agent subscriptions",
    purchase: "Buy agents and agent subscriptions for you, paid with your credits",
    workspaceConsent:
      "Use your workspace tools as you: read and change projects, tasks, clients, invoices and more in the " +
      "workspace you choose below",
    workspaceConnected:
      "Use your workspace tools as you: read and change projects, tasks, clients, invoices and more in the " +
      "workspace you chose when you allowed it",
  },
  approval: {
    title: (app: string) => `${app} needs approval`,
    heading: "{app} needs an operator's approval",
    introDescribed:
      "{app} asks to use your workspace tools. It is described by {host}, and apps like that may " +
      "use workspace tools on {brand} only once an operator has approved them. It would be sent back to {redirect}.",
    introSelf: "{app} asks to use your workspace tools. It registered itself, and apps like that may use " +
      "workspace tools on {brand} only once an operator has approved them. It would be sent back to {redirect}.",
    asksTo: "It asks to:",
    placeLegend: "Where would it act as you?",
    note: "Note to the operators (optional)",
    operatorHint:
      "You are an operator: approving lets every person of this service use this app with their " +
      "workspace tools, each after their own consent. You can withdraw it under Operator › Apps.",
    personHint: "The operators are told. This page waits for their answer and then continues; you can " +
      "also close it and connect again from the app once they have approved.",
    noWorkspace: (app: string) =>
      `You are not a member of any workspace, so there is nothing ${app} could use. You can only cancel.`,
    approve: (app: string) => `Approve ${app} and continue`,
    ask: "Ask for approval",
    cancel: "Cancel",
    problems: {
      choose: "Choose Ask for approval or Cancel.",
      place: "Choose a workspace from the list.",
      noteTooLong: (max: number) => `Keep the note within ${max} characters.`,
      tooMany: (n: number) =>
        `You already have ${n} requests waiting for the operators. Wait for their answer before asking for ` +
        "another app.",
    },
    onlyOperatorsTitle: "Only operators approve apps",
    onlyOperatorsMessage:
      "This account is not an operator of this service, so it cannot approve apps. Go back " +
      "and ask for approval instead.",
    wait: {
      title: "Waiting for approval",
      heading: "Waiting for an operator",
      asked: "You asked the operators of {brand} to approve {app} for {workspace} (asked {time}).",
      explain:
        "Once an operator approves, this page continues to the last step, where you choose what the app " +
        "may do. It checks by itself every few seconds; without JavaScript, use Check again. It waits until " +
        "{until} UTC; after that, connect again from the app once the operators have approved.",
      checkAgain: "Check again",
      giveUp: "Stop waiting and return to the app",
    },
    ended: {
      deniedTitle: "Not approved",
      deniedHeading: "Not approved",
      denied:
        "An operator of {brand} did not approve {app} for your workspace tools. Ask your operators if you " +
        "think this is a mistake.",
      expiredTitle: "Still waiting for approval",
      expiredHeading: "No answer yet",
      expired:
        "No operator has approved {app} yet, and this sign-in has stopped waiting. Your request stays " +
        "with the operators: once they approve, connect again from the app.",
      returnTo: (app: string) => `Return to ${app}`,
    },
  },
  /** RP-initiated logout (/oauth/logout): the question, the signed-out page, the refusals */
  logout: {
    title: "Sign out?",
    heading: "Sign out of {brand}?",
    asked: "{app} asked to sign you out.",
    accounts: "This browser will be signed out of:",
    afterwards: (app: string) => `Afterwards you go back to ${app}.`,
    signOut: "Sign out",
    stay: "Stay signed in",
    doneTitle: "Signed out",
    doneHeading: "You are signed out",
    done: "Your account is signed out of {brand} in this browser.",
    signInAgain: "Sign in again",
    expired:
      "The sign-out request is no longer valid. Sign out again from the application or your account pages.",
    formThen: "Sign out again from the application.",
    invalidTitle: "Sign-out request not valid",
    unreadable: "The form could not be read.",
    repeated: (name: string) => `The parameter ${name} was sent more than once.`,
    tooLong: "A parameter of the sign-out request is too long.",
    badHint:
      "The application sent an ID token this server did not issue (or one it can no longer check). Go back " +
      "to the application, or sign out from your account pages.",
    hintAudience: "The ID token was not issued to the application named in the request.",
    unknownClient: "The application that sent you here is not known.",
    badRedirect:
      "The application asked to send you to an address it did not register for after sign-out, so you " +
      "are not sent there.",
    redirectWithoutClient: "The sign-out request names an address to return to but not the application it " +
      "belongs to (client_id or id_token_hint), so you are not sent there.",
  },
  /** the error pages of /oauth/authorize (no trustworthy redirect: the page says what is wrong) */
  errors: {
    unknownClientTitle: "Unknown application",
    noClientId: "The request names no client_id.",
    badMetadata: (clientId: string, reason: string) =>
      `The application's metadata document at ${clientId} cannot be used: ${reason}.`,
    notRegistered:
      "The application that sent you here is not registered. Go back and try again, or contact it.",
    invalidRedirectTitle: "Invalid redirect",
    invalidRedirect: (app: string) =>
      `The address ${app} asked to send you back to is not one it registered, so Portico will not send you there.`,
    cannotCompleteTitle: "This request cannot be completed",
    cannotComplete: (app: string, description: string, host: string) =>
      `${app} sent a request Portico cannot accept: ${description}. Portico does not send you on to ${host}, ` +
      "because this app registered itself and has never been used here. Go back to the app, or tell whoever " +
      "runs it.",
    /** where the browser would have gone, when the redirect URI names no host */
    theApp: "the app",
  },
};

export type FlowMessages = typeof flow;

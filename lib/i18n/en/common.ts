// English: what every page shares — the frame, the account navigation, the error pages.
export const common = {
  errorCode: "Error code",
  requestId: "Request id",
  quoteReference: "If you contact the operator of this service, quote the error code and request id.",
  redirectSent: "Sent",
  redirectRegistered: "Registered",
  unavailableTitle: "Temporarily unavailable",
  unavailableMessage: (brand: string) =>
    `${brand} cannot reach its database right now. Wait a few seconds and try again.`,
  requestExpiredTitle: "This page has expired",
  requestExpiredMessage:
    "The sign-in request is no longer valid. Go back to the application and start again.",
  formExpiredTitle: "Form expired",
  formExpiredMessage: (then: string) => `The form could not be verified. ${then}`,
  formExpiredThen: "Go back, reload the page and try again.",
  reloadAndRetry: "Reload the page and try again.",
  nav: {
    label: "Your account",
    home: "Account",
    apps: "Connected apps",
    keys: "API keys",
    activity: "Activity",
    security: "Security",
    sessions: "Sessions",
    workspaces: "Workspaces",
  },
};

export type CommonMessages = typeof common;

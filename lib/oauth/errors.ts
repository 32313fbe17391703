// OAuth protocol errors (RFC 6749 §5.2, RFC 6750, RFC 7591, RFC 8707): a wire code, a description, a status.
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "login_required"
  | "consent_required"
  | "account_selection_required"
  | "interaction_required"
  | "invalid_client_metadata"
  | "invalid_redirect_uri"
  | "invalid_token"
  | "insufficient_scope"
  | "too_many_requests"
  | "server_error";

export class OAuthError extends Error {
  override name = "OAuthError";
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status: 400 | 401 | 403 | 429 = 400,
  ) {
    super(`${error}: ${description}`);
  }

  toJSON(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

export function oauthError(error: OAuthErrorCode, description: string, status: 400 | 401 | 403 = 400) {
  return new OAuthError(error, description, status);
}

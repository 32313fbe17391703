// The token endpoint's grants: one handler per name in ./names.ts, looked up by `grant_type`. A name without a
// handler (or a handler without a name) fails `deno check` here; docs/oauth.md "Adding a grant" is the recipe.
import type { ClientCredentials } from "../clients.ts";
import { OAuthError } from "../errors.ts";
import { authorizationCodeGrant } from "./authorization_code.ts";
import { type GrantType, isGrantType } from "./names.ts";
import { refreshTokenGrant } from "./refresh_token.ts";
import type { TokenDeps, TokenGrant, TokenParams, TokenResponse } from "./shared.ts";

export const TOKEN_GRANTS = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
} as const satisfies Record<GrantType, TokenGrant>;

/** POST /oauth/token after its form is read: the grant named by `grant_type` answers, or the refusal. */
export async function grantTokens(
  deps: TokenDeps,
  creds: ClientCredentials,
  params: TokenParams,
): Promise<TokenResponse> {
  const name = params.grant_type;
  if (!name) throw new OAuthError("invalid_request", "grant_type is required");
  if (!isGrantType(name)) {
    throw new OAuthError("unsupported_grant_type", `grant_type ${name} is not supported`);
  }
  return await TOKEN_GRANTS[name](deps, creds, params);
}

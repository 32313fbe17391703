// What this instance knows about the refresh tokens it issued, so a refresh can start signing its access and ID
// tokens while its SQL statement runs. A hint is never trusted: the signed tokens are used only when the claims
// the statement returns are exactly the hinted ones and the rotation succeeded; otherwise they are dropped
// unseen. A miss (another instance issued the token, the hint was evicted) only means signing after the
// statement, as without hints.

/** The claims of the access token a refresh of this token will carry (before a `scope` narrowing). */
export interface RefreshHint {
  clientId: string;
  userId: string;
  grantId: string;
  /** the grant's full scope, kept by every successor */
  scopes: string[];
  /** the resource the grant is bound to (null: the issuer) */
  resource: string | null;
  authTime: Date;
  /** how the person signed in (RFC 8176), for the ID token's amr and acr */
  amr: string[];
}

/** How many hints an instance keeps (about 300 bytes each); the oldest go first. */
export const REFRESH_HINTS_MAX = 10_000;

export class RefreshHints {
  readonly #hints = new Map<string, RefreshHint>();
  constructor(readonly max = REFRESH_HINTS_MAX) {}

  /** Notes the claims of a refresh token just issued, by the token's hash. */
  remember(tokenHash: string, hint: RefreshHint): void {
    if (this.#hints.size >= this.max) {
      // Map iterates in insertion order: the first key is the oldest hint.
      this.#hints.delete(this.#hints.keys().next().value!);
    }
    this.#hints.set(tokenHash, hint);
  }

  /** The hint for a presented token, removed: a token is rotated once, so a replay never speculates. */
  take(tokenHash: string): RefreshHint | undefined {
    const hint = this.#hints.get(tokenHash);
    if (hint) this.#hints.delete(tokenHash);
    return hint;
  }

  get size(): number {
    return this.#hints.size;
  }
}

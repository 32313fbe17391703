// The attributes every Portico cookie shares (sessions, CSRF, device cookies), decided by the issuer's scheme.

/** Whether the server is reached over https: cookies are then `Secure` and take the `__Host-` prefix. */
export function isHttps(issuer: string): boolean {
  return issuer.startsWith("https:");
}

/** Cookie options every Portico cookie uses: HttpOnly, SameSite=Lax, path /, Secure on https. */
export function cookieOptions(issuer: string, maxAge?: number) {
  return {
    path: "/",
    httpOnly: true,
    sameSite: "Lax" as const,
    secure: isHttps(issuer),
    ...(maxAge === undefined ? {} : { maxAge }),
  };
}

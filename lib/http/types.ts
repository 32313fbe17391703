// The Hono environment every route shares: per-request variables and, under Deno.serve, the peer address.
export interface AppEnv {
  Variables: { requestId: string };
  Bindings: { remoteAddr?: { hostname: string; port: number } } | undefined;
}

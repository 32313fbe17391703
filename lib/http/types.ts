// The Hono environment every route shares: per-request variables and, under Deno.serve, the peer address.
import type { Branding } from "../branding.ts";

export interface AppEnv {
  /** `branding` is the app's own (set for every request by routes/page_assets.ts), read by render(). */
  Variables: { requestId: string; branding: Branding };
  Bindings: { remoteAddr?: { hostname: string; port: number } } | undefined;
}

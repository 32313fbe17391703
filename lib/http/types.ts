// The Hono environment every route shares: per-request variables and, under Deno.serve, the peer address.
import type { Branding } from "../branding.ts";
import type { Locale } from "../i18n/locale.ts";

export interface AppEnv {
  /** `branding` is the app's own (set for every request by routes/page_assets.ts), read by render(). */
  Variables: {
    requestId: string;
    branding: Branding;
    /** the sign-in flow's `ui_locales` (lib/i18n/locale.ts), set by the flow's routes */
    uiLocale?: Locale;
    /** the signed-in person's language setting, set by readBrowserSession */
    personLocale?: Locale;
  };
  Bindings: { remoteAddr?: { hostname: string; port: number } } | undefined;
}

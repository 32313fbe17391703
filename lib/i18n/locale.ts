// Which language a page speaks (issue 30 point 4): the authorization request's `ui_locales` (OIDC Core §3.1.2.1)
// while a sign-in flow runs, then the person's own setting (users.locale, chosen on /account), then the browser's
// Accept-Language, then English. docs/languages.md explains the order and its bounds.
//
// Exports: `LOCALES`, `Locale`, `LOCALE_NAMES`, `isLocale`, `matchTag(tag)`, `fromUiLocales(value)`,
// `fromAcceptLanguage(header)`, `localeOf(c)`.
import type { Context } from "hono";
import { detectFromHeader } from "hono/language";

/** The languages of the pages and mails; the first is the fallback. */
export const LOCALES = ["en", "de", "fr"] as const;
export type Locale = typeof LOCALES[number];
export const DEFAULT_LOCALE: Locale = "en";

/** Each language in its own words, for the setting on /account. */
export const LOCALE_NAMES: Record<Locale, string> = { en: "English", de: "Deutsch", fr: "Français" };

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/** A BCP 47 tag longer than this is not a language tag (RFC 5646 §4.4.1 advises 35). */
const TAG_MAX = 35;
/** At most this many of `ui_locales`' tags are looked at. */
const UI_LOCALES_MAX_TAGS = 10;
/** An Accept-Language header longer than this is cut before it is parsed. */
const ACCEPT_LANGUAGE_MAX = 1000;

/** The supported language a BCP 47 tag names ("de-AT" → "de"), or undefined. */
export function matchTag(tag: string): Locale | undefined {
  if (tag.length === 0 || tag.length > TAG_MAX) return undefined;
  const primary = tag.split(/[-_]/, 1)[0].toLowerCase();
  return isLocale(primary) ? primary : undefined;
}

/** The first supported language of `ui_locales` (space-separated tags in order of preference), or undefined. */
export function fromUiLocales(value: string | null | undefined): Locale | undefined {
  if (!value) return undefined;
  const tags = value.split(" ").filter(Boolean).slice(0, UI_LOCALES_MAX_TAGS);
  for (const tag of tags) {
    const found = matchTag(tag);
    if (found) return found;
  }
  return undefined;
}

const HEADER_OPTIONS = {
  lookupFromHeaderKey: "accept-language",
  supportedLanguages: [...LOCALES],
  ignoreCase: true,
  fallbackLanguage: DEFAULT_LOCALE,
} as const;

/** The browser's most preferred supported language (q-values honoured, q=0 refused), or undefined. */
export function fromAcceptLanguage(header: string | null | undefined): Locale | undefined {
  if (!header) return undefined;
  const value = header.slice(0, ACCEPT_LANGUAGE_MAX);
  // Hono's own parser (hono/language), which reads the header from a context: give it one with just that.
  const found = detectFromHeader(
    { req: { header: () => value } } as unknown as Context,
    HEADER_OPTIONS as unknown as Parameters<typeof detectFromHeader>[1],
  );
  return isLocale(found) ? found : undefined;
}

/**
 * The language of this request's page: `ui_locales` of the sign-in flow (set by the flow's routes as
 * `uiLocale`), then the signed-in person's setting (set by readBrowserSession as `personLocale`), then
 * Accept-Language, then English.
 */
export function localeOf(c: Context): Locale {
  return c.get("uiLocale") ?? c.get("personLocale") ?? fromAcceptLanguage(c.req.header("accept-language")) ??
    DEFAULT_LOCALE;
}

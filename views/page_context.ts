// What every page knows without being told by its route: the operator's branding, the request id, and the page's
// language (its catalogue and formats, lib/i18n).
//
// lib/http/render.ts provides it from the request; views read it with `useI18n()` and `useContext(PageContext)`.
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { type Branding, DEFAULT_BRANDING } from "../lib/branding.ts";
import { DEFAULT_LOCALE, type I18n, i18nFor } from "../lib/i18n/mod.ts";

export interface PageContextValue {
  branding: Branding;
  requestId: string | undefined;
  i18n: I18n;
}

export const PageContext = createContext<PageContextValue>({
  branding: DEFAULT_BRANDING,
  requestId: undefined,
  i18n: i18nFor(DEFAULT_LOCALE),
});

/**
 * The page's language: `const { t, fmt, locale } = useI18n()`. A hook: call it inside a component that is
 * rendered (routes render pages with `renderPage(c, Page, props)`, not by calling `Page(props)`).
 */
export function useI18n(): I18n {
  return useContext(PageContext).i18n;
}

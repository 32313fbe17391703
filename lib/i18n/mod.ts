// The message catalogue: one object per language, one area per part of the product (lib/i18n/<lang>/<area>.ts),
// the English one the source of every shape. A German or French area is typed by its English one, so a missing
// or extra key fails `deno task check`; tests/i18n/catalogue.test.ts walks them at run time too.
//
// Exports: `Messages`, `catalogue`, `messagesFor(locale)`, `messages(c)`, `Text`, `textOf(t, text)`,
// `textNamed(texts, word)`, `I18n`, `i18nFor(locale)`; locale.ts and format.ts re-exported.
import type { Context } from "hono";
import { account as enAccount } from "./en/account.ts";
import { activity as enActivity } from "./en/activity.ts";
import { common as enCommon } from "./en/common.ts";
import { flow as enFlow } from "./en/flow.ts";
import { home as enHome } from "./en/home.ts";
import { operator as enOperator } from "./en/operator.ts";
import { security as enSecurity } from "./en/security.ts";
import { account as deAccount } from "./de/account.ts";
import { activity as deActivity } from "./de/activity.ts";
import { common as deCommon } from "./de/common.ts";
import { flow as deFlow } from "./de/flow.ts";
import { home as deHome } from "./de/home.ts";
import { operator as deOperator } from "./de/operator.ts";
import { security as deSecurity } from "./de/security.ts";
import { account as frAccount } from "./fr/account.ts";
import { activity as frActivity } from "./fr/activity.ts";
import { common as frCommon } from "./fr/common.ts";
import { flow as frFlow } from "./fr/flow.ts";
import { home as frHome } from "./fr/home.ts";
import { operator as frOperator } from "./fr/operator.ts";
import { security as frSecurity } from "./fr/security.ts";
import { type Formats, formatsFor } from "./format.ts";
import { type Locale, localeOf } from "./locale.ts";

export * from "./locale.ts";
export type { Formats } from "./format.ts";

const en = {
  common: enCommon,
  home: enHome,
  flow: enFlow,
  security: enSecurity,
  account: enAccount,
  activity: enActivity,
  operator: enOperator,
};

/** Every text of the pages and mails, by area: `t.common.formExpiredTitle`, `t.account.apps(3)`. */
export type Messages = typeof en;

export const catalogue: Record<Locale, Messages> = {
  en,
  de: {
    common: deCommon,
    home: deHome,
    flow: deFlow,
    security: deSecurity,
    account: deAccount,
    activity: deActivity,
    operator: deOperator,
  },
  fr: {
    common: frCommon,
    home: frHome,
    flow: frFlow,
    security: frSecurity,
    account: frAccount,
    activity: frActivity,
    operator: frOperator,
  },
};

export function messagesFor(locale: Locale): Messages {
  return catalogue[locale];
}

/** The catalogue of this request's language (localeOf). */
export function messages(c: Context): Messages {
  return catalogue[localeOf(c)];
}

/**
 * A text a route or lib function hands to a view without knowing the language: a function of the catalogue,
 * resolved when the page renders, e.g. `problem: (t) => t.account.nameMissing`. A plain string is shown as it is
 * (data: a name, an address, a value the person typed).
 */
export type Text = string | ((t: Messages) => string);

export function textOf(t: Messages, text: Text): string;
export function textOf(t: Messages, text: Text | undefined): string | undefined;
export function textOf(t: Messages, text: Text | undefined): string | undefined {
  return typeof text === "function" ? text(t) : text;
}

/**
 * The text a word from the query names in a fixed table (`?done=added` → a notice), or undefined: never an
 * inherited property (`?done=constructor`), so a crafted link cannot put anything else on the page.
 */
export function textNamed(texts: Record<string, Text>, word: string | undefined): Text | undefined {
  return word !== undefined && Object.hasOwn(texts, word) ? texts[word] : undefined;
}

/** What a view needs to speak the page's language: the language, its catalogue, its formats. */
export interface I18n {
  locale: Locale;
  t: Messages;
  fmt: Formats;
}

const i18ns = new Map<Locale, I18n>();

export function i18nFor(locale: Locale): I18n {
  let found = i18ns.get(locale);
  if (!found) {
    found = { locale, t: catalogue[locale], fmt: formatsFor(locale) };
    i18ns.set(locale, found);
  }
  return found;
}

// Reusable zod fields for tool inputs: ids, dates, money, currency, text, paging — each with its rule in words.
import { z } from "zod";

/** A zod error message: "is required" for a missing value, `message` otherwise. */
export function typeError(message: string) {
  return { error: (issue: { input: unknown }) => issue.input === undefined ? "is required" : message };
}

/** A UUID (any version), answered lower-case. */
export function uuidField(description: string) {
  return z.guid(typeError("must be a UUID")).transform((s) => s.toLowerCase()).describe(description);
}

/** The dates every tool accepts: four-digit years from 1 (Postgres has no year 0; five digits are not ISO dates). */
export const MIN_DATE = "0001-01-01";
export const MAX_DATE = "9999-12-31";
const DATE_RANGE = `must be a date from ${MIN_DATE} to ${MAX_DATE}`;

/** A calendar date YYYY-MM-DD from 0001-01-01 to 9999-12-31 (checked: 2025-02-30 and 0000-01-01 are refused). */
export function dateField(description: string) {
  return z.iso.date(typeError("must be a date YYYY-MM-DD"))
    .refine((d) => d >= MIN_DATE, { error: DATE_RANGE })
    .describe(description);
}

/** A non-negative number of hours with at most 2 decimals, up to `max` (default 100000). */
export function hoursField(description: string, opts: { max?: number } = {}) {
  const max = opts.max ?? 100_000;
  return z.number(typeError("must be a number"))
    .min(0, { error: "must not be negative" })
    .max(max, { error: `must be at most ${max}` })
    .refine((n) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6, { error: "must have at most 2 decimals" })
    .describe(description);
}

const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"));

/** A three-letter ISO 4217 currency code in capitals (EUR, USD, CHF …). */
export function currencyField(description: string) {
  return z.string(typeError("must be a string"))
    .regex(/^[A-Z]{3}$/, { error: "must be a three-letter ISO 4217 code in capitals, e.g. EUR" })
    .refine((c) => CURRENCIES.has(c), { error: "is not an ISO 4217 currency code" })
    .describe(description);
}

/** Trimmed text of `min`..`max` characters. */
export function textField(description: string, opts: { min?: number; max: number }) {
  const min = opts.min ?? 0;
  return z.string(typeError("must be a string")).trim()
    .min(min, { error: min === 1 ? "must not be empty" : `must be at least ${min} characters` })
    .max(opts.max, { error: `must be at most ${opts.max} characters` })
    .describe(description);
}

/** Page size with a default and a ceiling: every list tool takes one so answers stay small. */
export function limitField(defaultLimit: number, max: number) {
  return z.number(typeError("must be a number")).int({ error: "must be an integer" })
    .min(1, { error: "must be at least 1" }).max(max, { error: `must be at most ${max}` })
    .default(defaultLimit)
    .describe("Records per page.");
}

/** Rows to skip before the first returned one (for paging through long lists). */
export function offsetField() {
  return z.number(typeError("must be a number")).int({ error: "must be an integer" })
    .min(0, { error: "must not be negative" }).max(100_000, { error: "must be at most 100000" })
    .default(0)
    .describe("The last page's nextOffset.");
}

/**
 * The cursor of keyset paging (lib/workspace/page.ts): the previous page's nextCursor, passed unchanged. Its
 * length and form are checked where it is read (decodeCursor, invalid_input: cursor: …): bounds here would cost
 * tokens in every tools/list.
 */
export function cursorField() {
  return z.string({ error: "must be a string" }).describe("The last page's nextCursor.").optional();
}

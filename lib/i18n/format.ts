// Dates, times and numbers as each language writes them. English keeps the ISO forms the pages always showed
// ("2026-11-28 09:30 UTC"), readable anywhere; German and French use their own (Intl). Every time is UTC and says
// so: the server does not know the reader's time zone.
//
// Export: `formatsFor(locale)` → { time, date, number }.
import type { Locale } from "./locale.ts";

export interface Formats {
  /** a moment, to the minute (or the second), in UTC: "2026-11-28 09:30 UTC", "28.11.2026, 09:30 UTC" */
  time(d: Date, opts?: { seconds?: boolean }): string;
  /** a calendar day: a Date (its UTC day) or "YYYY-MM-DD" */
  date(d: Date | string): string;
  /** a number with the language's grouping: 10,000 · 10.000 · 10 000 */
  number(n: number): string;
}

function dayOf(d: Date | string): Date {
  return typeof d === "string" ? new Date(`${d.slice(0, 10)}T00:00:00Z`) : d;
}

function isoFormats(): Formats {
  const number = new Intl.NumberFormat("en");
  return {
    time: (d, opts) => `${d.toISOString().slice(0, opts?.seconds ? 19 : 16).replace("T", " ")} UTC`,
    date: (d) => dayOf(d).toISOString().slice(0, 10),
    number: (n) => number.format(n),
  };
}

function intlFormats(locale: Locale): Formats {
  const time = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
  const second = new Intl.DateTimeFormat(locale, {
    dateStyle: "medium",
    timeStyle: "medium",
    timeZone: "UTC",
  });
  const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  const number = new Intl.NumberFormat(locale);
  return {
    time: (d, opts) => `${(opts?.seconds ? second : time).format(d)} UTC`,
    date: (d) => date.format(dayOf(d)),
    number: (n) => number.format(n),
  };
}

const cache = new Map<Locale, Formats>();

export function formatsFor(locale: Locale): Formats {
  let found = cache.get(locale);
  if (!found) {
    found = locale === "en" ? isoFormats() : intlFormats(locale);
    cache.set(locale, found);
  }
  return found;
}

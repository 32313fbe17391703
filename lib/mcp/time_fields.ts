// Reusable zod fields of the personal-work tools: clock times, e-mail addresses and web links, with their rules.
import { z } from "zod";
import { HHMM } from "../workspace/personal.ts";

/**
 * A clock time HH:MM, 00:00-23:59 (24-hour, leading zeros). Without a description where the enclosing field's
 * own description already says what the time is (tools/list pays for every word).
 */
export function timeField(description?: string) {
  const field = z.string({
    error: (iss) => iss.input === undefined ? "is required" : "must be a string HH:MM",
  })
    .regex(HHMM, { error: "must be a time HH:MM from 00:00 to 23:59" });
  return description === undefined ? field : field.describe(description);
}

/** An e-mail address, at most 320 characters. */
export function emailField(description: string) {
  return z.email({ error: "must be an e-mail address" })
    .max(320, { error: "must be at most 320 characters" })
    .describe(description);
}

/** An absolute http or https URL, at most 2000 characters. */
export function webLinkField(description: string) {
  return z.url({ protocol: /^https?$/, hostname: z.regexes.domain, error: "must be an http or https URL" })
    .max(2000, { error: "must be at most 2000 characters" })
    .describe(description);
}

/**
 * A duration in hours (the unit time log answers use): more than 0, at most 24, at most 2 decimals (whole minutes
 * survive the round trip: 0.33 h is 20 minutes). The bounds are checked but not advertised (refines, not
 * exclusiveMinimum/maximum): a duration is positive by nature, a log's end by 23:59 bounds it more tightly than 24
 * would, and tools/list pays for every keyword.
 */
export function durationHoursField(description: string) {
  return z.number({ error: (iss) => iss.input === undefined ? "is required" : "must be a number" })
    .refine((n) => n > 0, { error: "must be more than 0" })
    .refine((n) => n <= 24, { error: "must be at most 24" })
    .refine((n) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6, { error: "must have at most 2 decimals" })
    .describe(description);
}

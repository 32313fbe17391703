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

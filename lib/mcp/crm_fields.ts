// Zod fields of the CRM and AI-work tools: instants, markdown within the size limit, and JSON metadata.
import { z } from "zod";

/** Markdown (document content, AI results) is limited to 1 MiB of UTF-8, as the database checks. */
export const MARKDOWN_MAX_BYTES = 1024 * 1024;
/** Metadata objects are limited to 16 KiB of JSON. */
export const METADATA_MAX_BYTES = 16 * 1024;

const encoder = new TextEncoder();

export function utf8Length(s: string): number {
  return encoder.encode(s).length;
}

/**
 * A point in time: ISO 8601 with a Z or an offset (2026-03-01T09:30:00+01:00), or a date YYYY-MM-DD read as
 * midnight UTC. Answered normalised to an ISO string the database reads unambiguously.
 */
export function instantField(description: string) {
  return z.union([
    z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time with Z or an offset" }),
    z.iso.date().transform((d) => `${d}T00:00:00Z`),
  ], {
    error: "must be an ISO 8601 date-time with Z or an offset (2026-03-01T09:30:00Z) or a date YYYY-MM-DD",
  })
    .refine((s) => inInstantRange(s), { error: INSTANT_RANGE })
    .describe(description);
}

// Postgres has no year 0 and the answers print four-digit years: the instant, in UTC, must lie in 0001-9999.
const MIN_INSTANT_MS = Date.parse("0001-01-01T00:00:00Z");
const MAX_INSTANT_MS = Date.parse("9999-12-31T23:59:59.999Z");
const INSTANT_RANGE = "must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z (in UTC)";

function inInstantRange(s: string): boolean {
  const ms = Date.parse(s);
  return ms >= MIN_INSTANT_MS && ms <= MAX_INSTANT_MS;
}

/** Markdown text up to MARKDOWN_MAX_BYTES bytes of UTF-8. */
export function markdownField(description: string) {
  return z.string({ error: "must be a string" })
    .refine((s) => utf8Length(s) <= MARKDOWN_MAX_BYTES, {
      error: `must be at most ${MARKDOWN_MAX_BYTES} bytes (1 MiB) of UTF-8`,
    })
    .describe(description);
}

/** A JSON object of free-form metadata, at most METADATA_MAX_BYTES when serialised. */
export function metadataField(description: string) {
  return z.record(z.string(), z.unknown(), { error: "must be a JSON object" })
    .refine((o) => utf8Length(JSON.stringify(o)) <= METADATA_MAX_BYTES, {
      error: `must be at most ${METADATA_MAX_BYTES} bytes of JSON`,
    })
    .describe(description);
}

// MCP tool export_contacts: the filtered contacts as CSV, inline when small, else a short-lived download link.
import { z } from "zod";
import { AppError } from "../lib/errors.ts";
import { utf8Bytes } from "../lib/json_bytes.ts";
import { type ContentBlock, toolContent } from "../lib/mcp/errors.ts";
import { EXPORT_LINK_TTL_SECONDS } from "../lib/mcp/exports.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { EXPORT_MAX_BYTES, EXPORT_MAX_ROWS, exportContacts as exportCsv } from "../lib/workspace/contacts.ts";
import { CONTACT_FILTER_FIELDS } from "./list_contacts.ts";

export const ExportContactsInput = z.strictObject(CONTACT_FILTER_FIELDS);
const MIB = EXPORT_MAX_BYTES / 1024 / 1024;

/**
 * The largest CSV (UTF-8 bytes, BOM included) sent inside the answer. Measured (o200k_base, BENCHMARKS.md "Large
 * exports"): contact rows cost about 1.9 bytes a token (ids and timestamps tokenise badly), so 16 KiB is about
 * 8,500 tokens, some 125 minimal rows — a few percent of a model's context. Larger files go through a download
 * link (docs/mcp.md "Large results"): a 10,000-row export then costs ~670 tokens instead of ~685,000.
 */
export const INLINE_MAX_BYTES = 16 * 1024;

function cutMessage(out: { rows: number; matched: number; cutBy: "rows" | "bytes" | null }): string {
  if (out.cutBy === "bytes") {
    return `${out.matched} contacts matched; the CSV reached the ${MIB} MiB export limit after the first ` +
      `${out.rows}. Narrow the filter (for example status, assignedTo, city or search) to export the rest in ` +
      "parts.";
  }
  if (out.cutBy === "rows") {
    return `${out.matched} contacts matched; only the first ${out.rows} were exported (limit ` +
      `${EXPORT_MAX_ROWS}). Narrow the filter to export the rest.`;
  }
  return `${out.rows} contacts exported.`;
}

/** 1234567 → "1.2 MB" (decimal units, as file managers show them). */
function size(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

export const exportContacts = defineTool({
  name: "export_contacts",
  title: "Export contacts (CSV)",
  area: "contacts",
  module: "crm",
  needsUser: false,
  variants: { A: ExportContactsInput },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Exports the contacts matching the list_contacts filters (text filters: case-insensitive substrings) as CSV (UTF-8 with BOM, at most 10000 rows). Returns a summary {rows, matched, truncated, cutBy, bytes, uri, message} and the CSV: inline up to 16 KiB, else a 10-minute download link.",
  run: async (ctx, input) => {
    const out = await exportCsv(ctx.db, ctx.caller, input);
    const bytes = utf8Bytes(out.csv);
    const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
    const name = `contacts-${stamp}.csv`;
    const counts = {
      rows: out.rows,
      matched: out.matched,
      truncated: out.truncated,
      cutBy: out.cutBy,
      bytes,
    };
    if (bytes <= INLINE_MAX_BYTES) {
      const uri = `portico://workspaces/${ctx.caller.workspaceId}/exports/${name}`;
      const summary = { ...counts, uri, message: cutMessage(out) };
      return toolContent([
        { type: "text", text: JSON.stringify(summary) },
        { type: "resource", resource: { uri, mimeType: "text/csv", text: out.csv } },
      ], summary);
    }
    if (!ctx.exportLinks) {
      throw new AppError(
        "unavailable",
        `the CSV is ${size(bytes)} and download links are not configured here`,
      );
    }
    const link = ctx.exportLinks.sign("contacts", ctx.caller, input);
    const minutes = EXPORT_LINK_TTL_SECONDS / 60;
    const summary = {
      ...counts,
      uri: link.url,
      expiresAt: link.expiresAt,
      message: `${cutMessage(out)} The CSV (${out.rows} rows, ${size(bytes)}) is too large to show here: ` +
        `download it from uri within ${minutes} minutes (until ${link.expiresAt}). The download runs the ` +
        "export again with the same filter and your current access.",
    };
    const content: ContentBlock[] = [
      { type: "text", text: JSON.stringify(summary) },
      {
        type: "resource_link",
        uri: link.url,
        name,
        mimeType: "text/csv",
        size: bytes,
        description:
          `Contacts export, ${out.rows} rows, CSV (UTF-8 with BOM); the link expires at ${link.expiresAt}.`,
      },
    ];
    return toolContent(content, summary);
  },
});

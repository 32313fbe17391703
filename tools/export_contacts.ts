// MCP tool export_contacts: the filtered contacts as a CSV file (embedded resource), at most 10,000 rows / 10 MiB.
import { z } from "zod";
import { toolContent } from "../lib/mcp/errors.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { EXPORT_MAX_BYTES, EXPORT_MAX_ROWS, exportContacts as exportCsv } from "../lib/workspace/contacts.ts";
import { CONTACT_FILTER_FIELDS } from "./list_contacts.ts";

const Input = z.strictObject(CONTACT_FILTER_FIELDS);
const MIB = EXPORT_MAX_BYTES / 1024 / 1024;

function message(out: { rows: number; matched: number; cutBy: "rows" | "bytes" | null }): string {
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

export const exportContacts = defineTool({
  name: "export_contacts",
  title: "Export contacts (CSV)",
  area: "contacts",
  module: "crm",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Exports the contacts matching the list_contacts filters (text filters: case-insensitive substrings) as CSV (UTF-8 with BOM, at most 10000 rows). Returns a summary {rows, matched, truncated, cutBy, uri, message} and the CSV as an embedded resource.",
  run: async (ctx, input) => {
    const out = await exportCsv(ctx.db, ctx.caller, input);
    const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
    const uri = `portico://workspaces/${ctx.caller.workspaceId}/exports/contacts-${stamp}.csv`;
    const summary = {
      rows: out.rows,
      matched: out.matched,
      truncated: out.truncated,
      cutBy: out.cutBy,
      uri,
      message: message(out),
    };
    return toolContent([
      { type: "text", text: JSON.stringify(summary) },
      { type: "resource", resource: { uri, mimeType: "text/csv", text: out.csv } },
    ], summary);
  },
});

// MCP tool list_clients: every client the key may see, sorted by company name.
import { z } from "zod";
import { limitField, offsetField } from "../lib/mcp/fields.ts";
import { fullField, pageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listClients as list } from "../lib/workspace/clients.ts";

const Input = z.strictObject({ full: fullField(), limit: limitField(100, 500), offset: offsetField() });

export const listClients = defineTool({
  name: "list_clients",
  title: "List clients",
  area: "clients",
  module: null,
  needsUser: false,
  // B too (a Portico extension there, tools/mod.ts VARIANT_EXTENSIONS): the same schema and answer as A
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: pageOutput(),
  description:
    "Lists clients by company name. Returns a page of {id, companyName, contactName, email, city}; full: true for whole clients (address, VAT …).",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});

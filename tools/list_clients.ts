// MCP tool list_clients: every client the key may see, sorted by company name.
import { z } from "zod";
import { limitField, offsetField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listClients as list } from "../lib/workspace/clients.ts";

const Input = z.strictObject({ limit: limitField(100, 500), offset: offsetField() });

export const listClients = defineTool({
  name: "list_clients",
  title: "List clients",
  area: "clients",
  module: null,
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Lists the clients the key may see, sorted by company name. Returns { items, total, limit, offset, " +
    "hasMore, nextOffset } (when hasMore, call again with offset = nextOffset): items are " +
    "clients with every field (id, companyName, firstName, lastName, email, phone, vatNumber, address, " +
    "postalCode, city, country, companyId, department, vatRate, intermediary, commission, createdAt, " +
    'updatedAt); percentages as decimal strings ("8.10").',
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});

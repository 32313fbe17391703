// MCP tool list_clients: every client the key may see, sorted by company name.
import { z } from "zod";
import { defineTool } from "../lib/mcp/tool.ts";
import { listClients as list } from "../lib/workspace/clients.ts";

const Input = z.strictObject({});

export const listClients = defineTool({
  name: "list_clients",
  area: "clients",
  module: null,
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Lists every client the key may see, sorted by company name. Returns { items, total }: items are " +
    "clients with every field (id, companyName, firstName, lastName, email, phone, vatNumber, address, " +
    "postalCode, city, country, companyId, department, vatRate, intermediary, commission, createdAt, " +
    'updatedAt); percentages as decimal strings ("8.10").',
  run: (ctx) => list(ctx.db, ctx.caller),
});

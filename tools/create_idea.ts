// MCP tool create_idea: an idea recorded as the calling person.
import { z } from "zod";
import { decimalMoneyField } from "../lib/mcp/decimal_fields.ts";
import { currencyField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { createIdea as create, PRIORITY_BY_LABEL } from "../lib/workspace/ideas.ts";

const common = {
  title: textField("The idea in a few words, 1-200 characters. Required.", { min: 1, max: 200 }),
  description: textField("The idea in detail, up to 10000 characters. Default empty.", { max: 10000 })
    .optional(),
  estimatedBudget: decimalMoneyField(
    "Rough budget, at least 0 with at most 2 decimals (number or string). Optional.",
  ).optional(),
  currency: currencyField("ISO 4217 currency of the budget, e.g. EUR. Default EUR.").optional(),
  notes: textField("Internal notes, up to 10000 characters. Default empty.", { max: 10000 }).optional(),
  companyId: uuidField(
    "The workspace company the idea belongs to (UUID). Optional; default: the client's company, or the key's " +
      "only company when the key is limited to one.",
  ).optional(),
  clientId: uuidField("The client the idea is for (UUID). Optional.").optional(),
};

const InputA = z.strictObject({
  ...common,
  priority: z.union([z.literal(1), z.literal(2), z.literal(3)], { error: "must be 1, 2 or 3" }).describe(
    "Priority: 1 low, 2 medium, 3 high. Default 2.",
  ).optional(),
});

const InputB = z.strictObject({
  ...common,
  priority: z.enum(["low", "medium", "high"]).describe("Priority: low, medium or high. Default medium.")
    .optional(),
});

export const createIdea = defineTool({
  name: "create_idea",
  title: "Create idea",
  area: "ideas",
  module: "projects",
  needsUser: true,
  variants: { A: InputA, B: InputB },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description: "Records an idea as the calling person. Returns the idea as a JSON object: id, title, " +
    "description, estimatedBudget (decimal string or null), currency, priority (1-3) and priorityLabel " +
    "(low/medium/high), notes, companyId, clientId, createdBy, createdAt.",
  run: (ctx, input) =>
    create(ctx.db, ctx.caller, {
      ...input,
      priority: typeof input.priority === "string" ? PRIORITY_BY_LABEL[input.priority] : input.priority,
    }),
});

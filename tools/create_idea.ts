// MCP tool create_idea: an idea recorded as the calling person.
import { z } from "zod";
import { decimalMoneyField } from "../lib/mcp/decimal_fields.ts";
import { currencyField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { createIdea as create, PRIORITY_BY_LABEL } from "../lib/workspace/ideas.ts";

const common = {
  title: textField("The idea in a few words.", { min: 1, max: 200 }),
  description: textField("The idea in detail.", { max: 10000 })
    .optional(),
  estimatedBudget: decimalMoneyField(
    "Rough budget, at least 0.",
  ).optional(),
  currency: currencyField("ISO 4217 currency of the budget, e.g. EUR. Default EUR.").optional(),
  notes: textField("Internal notes.", { max: 10000 }).optional(),
  companyId: uuidField(
    "The idea's company. Default: the client's, else the key's only company.",
  ).optional(),
  clientId: uuidField("The client the idea is for.").optional(),
};

const InputA = z.strictObject({
  ...common,
  priority: z.union([z.literal(1), z.literal(2), z.literal(3)], { error: "must be 1, 2 or 3" }).describe(
    "Priority: 1 low, 2 medium, 3 high. Default 2.",
  ).optional(),
});

const InputB = z.strictObject({
  ...common,
  priority: z.enum(["low", "medium", "high"]).describe("Priority. Default medium.")
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
  description: "Records an idea. Returns the idea; estimatedBudget as a decimal string.",
  run: (ctx, input) =>
    create(ctx.db, ctx.caller, {
      ...input,
      priority: typeof input.priority === "string" ? PRIORITY_BY_LABEL[input.priority] : input.priority,
    }),
});

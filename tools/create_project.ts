// MCP tool create_project: a new project, in the caller's company scope.
import { z } from "zod";
import { currencyField, dateField, hoursField, textField, uuidField } from "../lib/mcp/fields.ts";
import { decimalMoneyField } from "../lib/mcp/decimal_fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { createProject as create, TASK_PREFIX } from "../lib/workspace/projects.ts";

const common = {
  name: textField("The project's name.", { min: 1, max: 200 }),
  clientId: uuidField(
    "The client; the project then belongs to the client's company.",
  ).optional(),
  companyId: uuidField(
    "The project's company. Default: the client's, else the key's only company.",
  ).optional(),
  description: textField("What the project is about.", { max: 10000 })
    .optional(),
  startDate: dateField("First day.").optional(),
  endDate: dateField("Last day, not before startDate.").optional(),
  budget: decimalMoneyField(
    "Budget, at least 0.",
  )
    .optional(),
  estimatedHours: hoursField("Estimated effort in hours.").optional(),
  notes: textField("Internal notes.", { max: 10000 }).optional(),
  currency: currencyField("Currency of the budget. Default EUR.").optional(),
};

function datesInOrder(v: { startDate?: string; endDate?: string }): boolean {
  return !v.startDate || !v.endDate || v.endDate >= v.startDate;
}
const DATES = { error: "must not be before startDate", path: ["endDate"] };

const InputA = z.strictObject({
  ...common,
  offerId: uuidField("The accepted offer the project comes from.").optional(),
  taskPrefix: z.string().regex(TASK_PREFIX, {
    error: "must be 2-10 capital letters or digits, starting with a letter",
  }).describe(
    "Task-number prefix (WEB → WEB-1 …), unique in the workspace.",
  ).optional(),
}).refine(datesInOrder, DATES);

const InputB = z.strictObject(common).refine(datesInOrder, DATES);

export const createProject = defineTool({
  name: "create_project",
  title: "Create project",
  area: "projects",
  module: "projects",
  needsUser: false,
  variants: { A: InputA, B: InputB },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description: "Creates a project (status in_progress). Returns the new project.",
  run: (ctx, input) => create(ctx.db, ctx.caller, input),
});

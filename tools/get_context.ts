// MCP tool get_context: who and where the caller is — the person or key, role, workspace, companies, modules,
// today's date and its time zone, the toolsets in force — so ids, rights and relative dates need no guessing.
import { z } from "zod";
import { todayUtc } from "../lib/dates.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { TOOLSETS } from "../lib/mcp/toolsets.ts";
import { callerFacts } from "../lib/workspace/context.ts";

const Input = z.strictObject({});

/** Every date a tool reads or writes is a calendar date in this zone (lib/dates.ts); workspaces have none. */
export const DATE_TIME_ZONE = "UTC";

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

export const getContext = defineTool({
  name: "get_context",
  title: "Get context",
  area: "context",
  module: null,
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Who and where you are: user, role, workspace, companies, modules, toolsets, and today's date (UTC) for relative dates. Returns them.",
  run: async (ctx) => {
    const facts = await callerFacts(ctx.db, ctx.caller);
    const selection = ctx.caller.selection;
    const now = new Date();
    const today = todayUtc();
    return {
      user: facts.user,
      credential: facts.credential,
      role: ctx.caller.role,
      workspace: facts.workspace,
      allCompanies: facts.allCompanies,
      companies: facts.companies,
      companiesTotal: facts.companiesTotal,
      modules: [...ctx.caller.modules],
      variant: ctx.variant,
      today,
      weekday: WEEKDAYS[new Date(`${today}T00:00:00Z`).getUTCDay()],
      timeZone: DATE_TIME_ZONE,
      now: now.toISOString(),
      toolsets: selection?.toolsets ? TOOLSETS.filter((t) => selection.toolsets!.includes(t)) : [...TOOLSETS],
      readOnly: selection?.readOnly ?? false,
    };
  },
});

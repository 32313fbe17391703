// Tokens of the tools/list answer per variant and role, counted with npm gpt-tokenizer (o200k_base).
//
// Run: `deno run -A --config deno.test.json bench/catalogue_tokens.ts` (no database: the views come from the registry, exactly the bytes
// /mcp sends as `result`). Prints a Markdown table. Bench-only: nothing under main.ts imports gpt-tokenizer.
import { countTokens } from "gpt-tokenizer";
import type { McpVariant } from "../lib/config.ts";
import type { Caller } from "../lib/mcp/caller.ts";
import { allowedAreas } from "../lib/mcp/permissions.ts";
import { buildRegistry } from "../lib/mcp/registry.ts";
import { MODULES, ROLES } from "../lib/workspace/modules.ts";
import { isExtension, TOOLS } from "../tools/mod.ts";

/** The callers whose views differ: each role with a user key (A), the assistant and an outside key (B). */
function callers(variant: McpVariant): { label: string; caller: Caller }[] {
  const base = { workspaceId: "w", keyId: "k", modules: [...MODULES] };
  if (variant === "A") {
    return ROLES.map((role) => ({
      label: role,
      caller: { ...base, keyKind: "user", userId: "u", role, areas: allowedAreas(role, {}) },
    }));
  }
  return [
    {
      label: "internal key",
      caller: { ...base, keyKind: "internal", userId: "u", role: null, areas: new Set() },
    },
    { label: "workspace key", caller: { ...base, keyKind: "workspace", role: null, areas: new Set() } },
  ];
}

export interface Row {
  variant: McpVariant;
  who: string;
  tools: number;
  bytes: number;
  tokens: number;
  /** tokens of the same answer without the Portico extensions: the seed's catalogue, the budgets' measure */
  seedTokens: number;
  /** tokens of each extension's entry in the list */
  extensions: Record<string, number>;
}

/** One row per variant and caller. */
export function measure(): Row[] {
  const rows: Row[] = [];
  for (const variant of ["A", "B"] as const) {
    const reg = buildRegistry(TOOLS, variant);
    for (const { label, caller } of callers(variant)) {
      const view = reg.view(caller);
      rows.push({
        variant,
        who: label,
        tools: view.tools.size,
        bytes: view.listBytes.length,
        tokens: countTokens(view.listJson),
        ...split(view.listJson, variant),
      });
    }
  }
  return rows;
}

/** The seed's part of a tools/list answer, and each extension's entry (of this variant), in tokens. */
function split(listJson: string, variant: McpVariant): Pick<Row, "seedTokens" | "extensions"> {
  const tools: { name: string }[] = JSON.parse(listJson).tools;
  const seed = tools.filter((t) => !isExtension(t.name, variant));
  const extensions: Record<string, number> = {};
  for (const t of tools) {
    if (isExtension(t.name, variant)) extensions[t.name] = countTokens(JSON.stringify(t));
  }
  return { seedTokens: countTokens(JSON.stringify({ tools: seed })), extensions };
}

if (import.meta.main) {
  const rows = measure();
  if (Deno.args.includes("--json")) {
    console.log(JSON.stringify(rows));
  } else {
    console.log(
      "| variant | caller | tools | bytes | tokens (o200k_base) | of which the seed's tools | extensions |\n" +
        "|---|---|--:|--:|--:|--:|--:|",
    );
    for (const r of rows) {
      const ext = Object.values(r.extensions).reduce((n, x) => n + x, 0);
      console.log(
        `| ${r.variant} | ${r.who} | ${r.tools} | ${r.bytes} | ${r.tokens} | ${r.seedTokens} | ${ext} |`,
      );
    }
  }
}

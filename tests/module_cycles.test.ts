// No import cycles in the server's or the admin CLI's module graph, type-only imports included: a cycle means a
// type lives in the wrong module (issue 15: routes/oauth.ts ↔ its sub-routes, lib/api_keys.ts ↔ lib/mcp/*).
import assert from "node:assert/strict";
import { moduleGraph, ROOT } from "./helpers/module_graph.ts";

interface Dependency {
  code?: { specifier?: string };
  type?: { specifier?: string };
}

/** The strongly connected components of more than one module (Tarjan), as project-relative paths. */
function cycles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w.replace(`file://${ROOT}/`, ""));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

for (const entry of ["main.ts", "admin.ts"]) {
  Deno.test(`${entry}: no import cycle among the project's modules (type imports included)`, async () => {
    const graph = await moduleGraph(entry);
    const edges = new Map<string, string[]>();
    for (const m of graph.modules as Array<{ specifier: string; dependencies?: Dependency[] }>) {
      if (!m.specifier.startsWith("file://")) continue;
      const out: string[] = [];
      for (const d of m.dependencies ?? []) {
        for (const s of [d.code?.specifier, d.type?.specifier]) if (s?.startsWith("file://")) out.push(s);
      }
      edges.set(m.specifier, out);
    }
    assert.ok(edges.size > 40, `the graph of ${entry} has only ${edges.size} project modules`);
    assert.deepEqual(cycles(edges), []);
  });
}

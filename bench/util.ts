// Shared timing helpers of the in-process benchmarks: a mean-time loop and one tools/call through app.fetch.
import { mcpHeaders } from "../tests/helpers/mcp.ts";

/** Mean milliseconds per call of `fn` after a warm-up, over at least `minMs` of wall time. */
export async function measure(
  fn: () => unknown,
  minMs = 1500,
  warmup = 2,
): Promise<{ ms: number; runs: number }> {
  for (let i = 0; i < warmup; i++) await fn();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    await fn();
    n++;
  }
  return { ms: (performance.now() - start) / n, runs: n };
}

interface RequestTarget {
  request(url: string, init: RequestInit): Response | Promise<Response>;
}

/** Times `tools/call name(args)` through the app; a failed answer stops the benchmark. */
export async function measureToolCall(
  app: RequestTarget,
  key: string,
  name: string,
  args: Record<string, unknown>,
  minMs: number,
  warmup: number,
): Promise<{ ms: number; runs: number; size: number }> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
  let size = 0;
  const result = await measure(
    async () => {
      const res = await app.request("http://localhost:8000/mcp", {
        method: "POST",
        headers: mcpHeaders(key),
        body,
      });
      const text = await res.text();
      if (res.status !== 200 || text.includes('"isError":true')) throw new Error(text.slice(0, 300));
      size = text.length;
    },
    minMs,
    warmup,
  );
  return { ...result, size };
}

// Formats generated TypeScript with the project's `deno fmt` settings (line width, quotes), through stdin: the
// build scripts (build_apps.ts, build_passkeys.ts) write their output already formatted, so `deno task check`
// stays clean and a rebuild of unchanged sources changes nothing.
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

export async function formatTs(text: string): Promise<string> {
  const fmt = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--config", `${ROOT}deno.json`, "--ext", "ts", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = fmt.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const r = await fmt.output();
  if (!r.success) throw new Error(`deno fmt: ${new TextDecoder().decode(r.stderr)}`);
  return new TextDecoder().decode(r.stdout);
}

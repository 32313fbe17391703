// Finds input no rule of a schema catches but the database or the stack cannot take: NUL characters (Postgres
// text cannot hold U+0000) and structures nested deeper than any real input needs.

/** Deepest nesting of arrays/objects accepted anywhere in a parsed JSON input. */
export const MAX_INPUT_DEPTH = 64;

/**
 * The first problem in a parsed JSON value, as `path: rule` (e.g. `name: must not contain NUL characters`), or
 * null. Walks iteratively, so a 100 000-level structure is answered instead of overflowing the stack.
 */
export function unsafeInputProblem(value: unknown, maxDepth = MAX_INPUT_DEPTH): string | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: "", depth: 0 }];
  const at = (path: string) => path === "" ? "" : `${path}: `;
  while (stack.length > 0) {
    const item = stack.pop()!;
    const v = item.value;
    if (typeof v === "string") {
      if (v.includes("\u0000")) return `${at(item.path)}must not contain NUL characters (U+0000)`;
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    if (item.depth >= maxDepth) return `${at(item.path)}is nested too deeply (at most ${maxDepth} levels)`;
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    // Pushed last-first, so problems are reported in the order the fields were written.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i];
      if (k.includes("\u0000")) return `${at(item.path)}field names must not contain NUL characters (U+0000)`;
      stack.push({ value: x, path: item.path === "" ? k : `${item.path}.${k}`, depth: item.depth + 1 });
    }
  }
  return null;
}

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes as text, or null when they are not valid UTF-8 (instead of silently replacing them with U+FFFD). */
export function decodeUtf8(bytes: ArrayBuffer | Uint8Array): string | null {
  try {
    return fatalUtf8.decode(bytes);
  } catch {
    return null;
  }
}

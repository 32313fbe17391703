// The names of the toolsets a connection, key or grant may be limited to (a leaf module: no imports).

/** The domains a connection (and later a key or grant) may be limited to. */
export const TOOLSETS = [
  "projects",
  "tasks",
  "finance",
  "crm",
  "ai",
  "documents",
  "time",
  "calendar",
  "booking",
] as const;
export type Toolset = typeof TOOLSETS[number];

export function isToolset(s: string): s is Toolset {
  return (TOOLSETS as readonly string[]).includes(s);
}

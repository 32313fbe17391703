// The workspace modules a tool may require, and the member roles.
export const MODULES = [
  "projects",
  "tasks",
  "crm",
  "finance_collections",
  "ai_activities",
  "documents",
  "recordings",
  "time_tracking",
  "calendar",
  "booking",
] as const;
export type Module = typeof MODULES[number];

export const ROLES = ["owner", "admin", "manager", "accounting", "member", "guest"] as const;
export type Role = typeof ROLES[number];

export function isModule(s: string): s is Module {
  return (MODULES as readonly string[]).includes(s);
}

export function isRole(s: string): s is Role {
  return (ROLES as readonly string[]).includes(s);
}

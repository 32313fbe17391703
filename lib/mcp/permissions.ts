// Who may use which tool: areas and their default roles, and the per-tool check (a tool says itself whether it
// acts as a person: ToolDefinition.needsUser).
import type { McpVariant } from "../config.ts";
import { accessDenied, AppError } from "../errors.ts";
import type { Role } from "../workspace/modules.ts";
import type { ApiKeyKind } from "../api_keys.ts";

/**
 * Role-permission areas. A workspace's `role_permissions` row (area, roles) overrides the default below; a
 * missing row means the default. The owner may use every area whatever a row says, so nobody can lock the
 * workspace out of its own data.
 */
export const DEFAULT_AREA_ROLES = {
  projects: ["owner", "admin", "manager", "accounting", "member"],
  tasks: ["owner", "admin", "manager", "member", "guest"],
  clients: ["owner", "admin", "manager", "accounting"],
  offers: ["owner", "admin", "manager", "accounting"],
  invoices: ["owner", "admin", "accounting"],
  ideas: ["owner", "admin", "manager", "member"],
  contacts: ["owner", "admin", "manager", "member"],
  crm: ["owner", "admin", "manager", "member"],
  ai_activities: ["owner", "admin", "manager", "accounting", "member", "guest"],
  documents: ["owner", "admin", "manager", "member"],
  recordings: ["owner", "admin", "manager", "member"],
  time_tracking: ["owner", "admin", "manager", "accounting", "member"],
  calendar: ["owner", "admin", "manager", "member"],
  booking: ["owner", "admin", "manager"],
  // Portico extensions (issue 25): who and where the caller is (get_context), and whom it works with
  // (list_members; what each role sees of a member: docs/mcp.md "Member directory")
  context: ["owner", "admin", "manager", "accounting", "member", "guest"],
  members: ["owner", "admin", "manager", "accounting", "member", "guest"],
} as const satisfies Record<string, readonly Role[]>;

export type Area = keyof typeof DEFAULT_AREA_ROLES;
export const AREAS = Object.keys(DEFAULT_AREA_ROLES) as Area[];

export function isArea(s: string): s is Area {
  return Object.hasOwn(DEFAULT_AREA_ROLES, s);
}

/**
 * The parts of a caller the checks look at. lib/mcp/caller.ts Caller satisfies it; declared here so this module
 * does not import the caller module, which imports this one (allowedAreas).
 */
export interface CallerRights {
  userId?: string;
  keyKind: ApiKeyKind;
  role: Role | null;
  modules: readonly string[];
  areas: ReadonlySet<Area>;
}

/**
 * Areas every member may use whatever a `role_permissions` row says: a caller may always ask who and where it is
 * (get_context), as the owner may always use every area.
 */
export const UNRESTRICTED_AREAS: ReadonlySet<Area> = new Set(["context"]);

/** The areas `role` may use given the workspace's overrides (area → roles); unknown areas/roles are ignored. */
export function allowedAreas(role: Role | null, overrides: Record<string, readonly string[]>): Set<Area> {
  const out = new Set<Area>();
  if (!role) return out;
  for (const area of AREAS) {
    const roles = overrides[area] ?? DEFAULT_AREA_ROLES[area];
    if (role === "owner" || UNRESTRICTED_AREAS.has(area) || roles.includes(role)) out.add(area);
  }
  return out;
}

/** May this caller use tools that need a person? (rule 2) */
export function hasUserContext(caller: CallerRights, variant: McpVariant): boolean {
  return variant === "A" ? caller.userId !== undefined : caller.keyKind === "internal";
}

/** The parts of a tool the checks look at. */
export interface Gated {
  name: string;
  area: Area;
  module: string | null;
  needsUser: boolean;
}

/**
 * Why `caller` may not use `tool`, or null when it may. Rules 2-4; rules 1, 5 and 6 are enforced when the caller
 * is built (lib/mcp/caller.ts) and inside lib/workspace/* (scope.ts).
 */
export function denial(tool: Gated, caller: CallerRights, variant: McpVariant): AppError | null {
  if (tool.needsUser && !hasUserContext(caller, variant)) {
    return accessDenied(
      variant === "A"
        ? `${tool.name} acts as a person and needs an API key bound to a user`
        : `${tool.name} acts as a person and is only available to the workspace assistant (internal key)`,
    );
  }
  if (variant === "A") {
    if (!caller.areas.has(tool.area)) {
      return accessDenied(
        `the ${caller.role ?? "key's"} role may not use ${tool.area} tools in this workspace`,
      );
    }
    if (tool.module && !caller.modules.includes(tool.module)) {
      return new AppError("unavailable", `the ${tool.module} module is disabled in this workspace`);
    }
  }
  return null;
}

/**
 * Everything `denial` depends on, as a string: callers with equal signatures see the same tool list, so the
 * filtered list and its serialised `tools/list` answer are cached per signature.
 */
export function capabilitySignature(caller: CallerRights, variant: McpVariant): string {
  const user = hasUserContext(caller, variant) ? "u" : "-";
  if (variant === "B") return user;
  return `${user}|${[...caller.areas].sort().join(",")}|${[...caller.modules].sort().join(",")}`;
}

// When an authorization request needs a second factor that the browser's sign-in did not use (step-up):
// - the client asked for it: the first acr_values entry Portico knows is ACR_MULTI (acr_values lists the client's
//   preferences in order, OIDC Core §3.1.2.1; unknown values are skipped, a first known ACR_SINGLE is satisfied
//   by any sign-in);
// - the request asks for `workspace` and the operator requires two factors for it (WORKSPACE_TWO_FACTOR=require);
// - the request asks for `workspace` and a workspace the person belongs to requires two-step sign-in of its
//   members (a sign-in made before that policy was switched on is stepped up here).
//
// Exports: `StepUpPolicy`, `stepUpReason(db, req, account, policy)` → null or why.
import type { Db } from "../db/client.ts";
import { ACR_MULTI, ACR_VALUES_SUPPORTED, isMultiFactor } from "./amr.ts";
import { workspaceRequiringTwoFactor } from "./factors.ts";

export interface StepUpPolicy {
  /** Config.workspaceTwoFactor */
  workspaceTwoFactor: "off" | "require";
}

export type StepUpReason =
  | { source: "acr_values"; workspace: null }
  | { source: "operator"; workspace: null }
  | { source: "workspace"; workspace: string };

const KNOWN = new Set<string>(ACR_VALUES_SUPPORTED);

export async function stepUpReason(
  db: Db,
  req: { scopes: string[]; acrValues?: string[] },
  account: { userId: string; amr: string[] },
  policy: StepUpPolicy,
): Promise<StepUpReason | null> {
  if (isMultiFactor(account.amr)) return null;
  const preferred = req.acrValues?.find((v) => KNOWN.has(v));
  if (preferred === ACR_MULTI) return { source: "acr_values", workspace: null };
  if (!req.scopes.includes("workspace")) return null;
  if (policy.workspaceTwoFactor === "require") return { source: "operator", workspace: null };
  const workspace = await workspaceRequiringTwoFactor(db, account.userId);
  return workspace === null ? null : { source: "workspace", workspace };
}

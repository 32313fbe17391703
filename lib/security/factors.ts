// Which second factors a person has set up, and whether a policy asks them for one.
//
// Exports: `factorsOf(sql, userId)`, `hasSecondFactor(factors)`, `workspaceRequiringTwoFactor(sql, userId)`.
import type { Db } from "../db/client.ts";

export interface Factors {
  /** a confirmed one-time-code app (user_totp.confirmed_at set) */
  totp: boolean;
  /** passkeys registered */
  passkeys: number;
  /** recovery codes not used yet */
  recoveryCodesLeft: number;
}

export async function factorsOf(sql: Db, userId: string): Promise<Factors> {
  const [row] = await sql<{ totp: boolean; passkeys: number; recovery: number }[]>`
    select exists (select 1 from user_totp where user_id = ${userId} and confirmed_at is not null) as totp,
           (select count(*)::int from user_passkeys where user_id = ${userId}) as passkeys,
           (select count(*)::int from user_recovery_codes where user_id = ${userId} and used_at is null) as recovery`;
  return { totp: row.totp, passkeys: row.passkeys, recoveryCodesLeft: row.recovery };
}

/** A second factor the person can sign in with (recovery codes alone are a fallback, not a factor). */
export function hasSecondFactor(f: Factors): boolean {
  return f.totp || f.passkeys > 0;
}

/** The name of a workspace of the person that requires two-step sign-in of its members, or null. */
export async function workspaceRequiringTwoFactor(sql: Db, userId: string): Promise<string | null> {
  const [row] = await sql<{ name: string }[]>`
    select w.name from workspaces w join workspace_members m on m.workspace_id = w.id
    where m.user_id = ${userId} and w.require_two_factor
    order by w.name limit 1`;
  return row?.name ?? null;
}

// Platform accounts: users (with scrypt password hashes), agents, unlocked agents and agent subscriptions.
import type { Db } from "./db/client.ts";
import { hashPassword, SCRYPT_PARAMS, type ScryptParams } from "./crypto.ts";
import { invalidInput, notFound, pgCode, requireUuid } from "./errors.ts";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The floor `createUser` keeps for accounts made in code (demo data, fixtures): 8 to 1024 characters. Every place a
 * person or the operator chooses a password (reset, change, `deno task admin user create/set-password`) applies
 * the policy of lib/security/password_policy.ts (12 to 128, not common) instead.
 */
export function passwordProblem(password: string): string | null {
  if (password.length < 8) return "password must be at least 8 characters";
  if (password.length > 1024) return "password must be at most 1024 characters";
  return null;
}

export interface NewUser {
  email: string;
  password: string;
  name?: string;
  plan?: string;
  credits?: number;
}

export interface CreateUserOptions {
  /** Test-only: a cheaper scrypt cost so fixtures stay fast. Production code never passes it. */
  scrypt?: ScryptParams;
}

export async function createUser(
  db: Db,
  input: NewUser,
  options: CreateUserOptions = {},
): Promise<{ id: string }> {
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 320) throw invalidInput("email must be an email address");
  const problem = passwordProblem(input.password);
  if (problem) throw invalidInput(problem);
  const credits = input.credits ?? 0;
  if (!Number.isInteger(credits) || credits < 0) throw invalidInput("credits must be a non-negative integer");
  const plan = input.plan ?? "free";
  if (!/^[a-z0-9_-]{1,50}$/i.test(plan)) throw invalidInput("plan must be 1-50 letters, digits, - or _");
  const passwordHash = await hashPassword(input.password, options.scrypt ?? SCRYPT_PARAMS);
  try {
    const [row] = await db<{ id: string }[]>`
      insert into users (email, name, password_hash, plan, credits)
      values (${email}, ${input.name ?? ""}, ${passwordHash}, ${plan}, ${credits})
      returning id`;
    return row;
  } catch (err) {
    if (pgCode(err) === "23505") throw invalidInput(`a user with email ${email} already exists`);
    throw err;
  }
}

export async function createAgent(db: Db, name: string): Promise<{ id: string }> {
  if (name.trim().length === 0 || name.length > 200) throw invalidInput("name must be 1-200 characters");
  const [row] = await db<{ id: string }[]>`insert into agents (name) values (${name.trim()}) returning id`;
  return row;
}

async function requireUserAndAgent(db: Db, userId: string, agentId: string): Promise<void> {
  requireUuid(userId, "user");
  requireUuid(agentId, "agent");
  const [row] = await db<{ userOk: boolean; agentOk: boolean }[]>`
    select exists (select 1 from users where id = ${userId}) as "userOk",
           exists (select 1 from agents where id = ${agentId}) as "agentOk"`;
  if (!row.userOk) throw notFound(`no user ${userId}`);
  if (!row.agentOk) throw notFound(`no agent ${agentId}`);
}

export async function unlockAgent(db: Db, userId: string, agentId: string): Promise<void> {
  await requireUserAndAgent(db, userId, agentId);
  await db`insert into user_agents (user_id, agent_id) values (${userId}, ${agentId}) on conflict do nothing`;
}

/** Subscribes (or re-subscribes) a user to an agent's plan for one month from now. */
export async function subscribeAgent(db: Db, userId: string, agentId: string, plan: string): Promise<void> {
  if (!/^[a-z0-9_-]{1,100}$/i.test(plan)) throw invalidInput("plan must be 1-100 letters, digits, - or _");
  await requireUserAndAgent(db, userId, agentId);
  await db`
    insert into agent_subscriptions (user_id, agent_id, plan, status, current_period_end)
    values (${userId}, ${agentId}, ${plan}, 'active', now() + interval '1 month')
    on conflict (user_id, agent_id) do update
      set plan = excluded.plan, status = 'active', current_period_end = excluded.current_period_end`;
}

/**
 * Disables or re-enables a person. Disabling also signs them out of every browser; their keys, access tokens
 * and refresh tokens stop working at their next use (the checks read `disabled_at`), nothing is deleted.
 */
export async function setUserDisabled(db: Db, userId: string, disabled: boolean): Promise<void> {
  const [row] = await db`
    update users set disabled_at = case when ${disabled} then coalesce(disabled_at, now()) end
     where id = ${userId} returning id`;
  if (!row) throw notFound(`no user ${userId}`);
  if (disabled) await db`delete from browser_session_accounts where user_id = ${userId}`;
}

// Getting people back in: set a password (typed in or generated), lift the sign-in brake, re-open the demo.
import type { Db } from "../db/client.ts";
import { hashPassword, randomToken } from "../crypto.ts";
import { invalidInput, notFound } from "../errors.ts";
import { accountBuckets } from "../oauth/sign_in.ts";
import { checkNewPassword } from "../security/password_policy.ts";
import { secondFactorBucket } from "../security/second_factor_brake.ts";
import { B, type Command, S } from "./command.ts";
import { findUser } from "./lookup.ts";
import { DEMO_EMAIL } from "../demo_account.ts";

/**
 * Clears the account's sign-in brake: its account-wide bucket and its bucket per client network (rows of
 * rate_limits, see `brakeBucket` in lib/oauth/sign_in.ts). Device-cookie buckets are the browser's own and
 * address buckets are shared by everyone behind that address, so neither is touched. Returns how many windows
 * were cleared.
 */
export async function unlockSignIn(db: Db, email: string, userId?: string): Promise<number> {
  const { account, networkPrefix } = accountBuckets(email);
  // The person's second-factor brake too (lib/security/second_factor_brake.ts), when the person is known.
  const second = userId ? secondFactorBucket(userId) : "";
  const rows = await db`
    delete from rate_limits
     where bucket = ${account} or starts_with(bucket, ${networkPrefix}) or bucket = ${second} returning 1`;
  return rows.length;
}

/**
 * Removes every second factor of a person (the authenticator app, recovery codes, passkeys) after the operator
 * made sure who is asking, e.g. someone who lost both phone and recovery codes. Their browsers are signed out;
 * the next sign-in is with the password alone, or walks them through setting a factor up where a workspace
 * requires one. The person's security log shows it (`factor_removed`, `by: operator`).
 */
export async function resetTwoStep(db: Db, userId: string): Promise<Record<string, number>> {
  const [done] = await db<{ totp: number; recovery: number; passkeys: number }[]>`
    with t as (delete from user_totp where user_id = ${userId} returning 1),
         r as (delete from user_recovery_codes where user_id = ${userId} returning 1),
         p as (delete from user_passkeys where user_id = ${userId} returning 1)
    select (select count(*)::int from t) as totp, (select count(*)::int from r) as recovery,
           (select count(*)::int from p) as passkeys`;
  const ended = await db`delete from browser_session_accounts where user_id = ${userId} returning 1`;
  await db`
    insert into security_events (user_id, kind, detail)
    values (${userId}, 'factor_removed', ${db.json({ factor: "all", by: "operator" })})`;
  return {
    authenticator_app: done.totp,
    recovery_codes: done.recovery,
    passkeys: done.passkeys,
    sessions_ended: ended.length,
  };
}

/** A typed-in password must meet the policy (lib/security/password_policy.ts); throws its message otherwise. */
export async function requirePolicy(password: string, who: { email: string; name?: string }): Promise<void> {
  const verdict = await checkNewPassword(password, who);
  if (!verdict.ok) throw invalidInput(`password refused: ${verdict.message}`);
}

/**
 * Replaces a person's password (scrypt, as at sign-up), signs them out of every browser, and lifts the sign-in
 * brake on their account. Their OAuth grants and API keys keep working: they were given with consent, and the
 * operator revokes them separately (`/account/apps`, `apikey revoke`). The caller checks a typed-in password
 * against the policy (`requirePolicy`); a generated one (96 random bits) needs no check.
 */
export async function setPassword(
  db: Db,
  userId: string,
  email: string,
  password: string,
): Promise<{ sessions_ended: number; brake_cleared: number }> {
  const hash = await hashPassword(password);
  const [row] = await db`
    update users set password_hash = ${hash}, password_changed_at = now(), password_change_required = false
     where id = ${userId} returning id`;
  if (!row) throw notFound(`no user ${userId}`);
  const ended = await db`delete from browser_session_accounts where user_id = ${userId} returning 1`;
  return { sessions_ended: ended.length, brake_cleared: await unlockSignIn(db, email, userId) };
}

/** A generated password: 96 random bits, URL-safe, easy to paste. */
export function generatePassword(): string {
  return randomToken("", 12);
}

export const RECOVERY_COMMANDS: Record<string, Command> = {
  "user set-password": {
    usage: "user set-password --id U | --email E [--password-stdin]",
    help: "Sets a new password and prints it once (generated), or reads it from standard input with " +
      "--password-stdin (the first line, which must meet the password policy); signs the person out of every " +
      "browser and lifts the sign-in brake.",
    options: { id: S, email: S, "password-stdin": B },
    required: [],
    oneOf: ["id", "email"],
    run: async (v, io) => {
      const user = await findUser(io.sql, v);
      let password: string;
      let generated = false;
      if (v["password-stdin"] === true) {
        const input = io.readStdin ? await io.readStdin() : "";
        password = input.split(/\r?\n/)[0];
        if (password === "") throw invalidInput("no password on standard input");
        await requirePolicy(password, user);
      } else {
        password = generatePassword();
        generated = true;
      }
      const done = await setPassword(io.sql, user.id, user.email, password);
      return { id: user.id, email: user.email, ...(generated ? { password } : {}), ...done };
    },
  },
  "user unlock": {
    usage: "user unlock --id U | --email E",
    help: "Lifts the sign-in brake and the second-factor brake on a person's account after too many wrong " +
      "passwords or codes (no password change).",
    options: { id: S, email: S },
    required: [],
    oneOf: ["id", "email"],
    run: async (v, io) => {
      const user = await findUser(io.sql, v);
      return {
        id: user.id,
        email: user.email,
        brake_cleared: await unlockSignIn(io.sql, user.email, user.id),
      };
    },
  },
  "user reset-two-step": {
    usage: "user reset-two-step --id U | --email E",
    help:
      "Removes a person's second factors (authenticator app, recovery codes, passkeys) once you know who is " +
      "asking, signs them out of every browser, and lifts both brakes: for someone who lost their phone and " +
      "their recovery codes.",
    options: { id: S, email: S },
    required: [],
    oneOf: ["id", "email"],
    run: async (v, io) => {
      const user = await findUser(io.sql, v);
      const removed = await resetTwoStep(io.sql, user.id);
      return {
        id: user.id,
        email: user.email,
        ...removed,
        brake_cleared: await unlockSignIn(io.sql, user.email, user.id),
      };
    },
  },
  "demo reset-password": {
    usage: "demo reset-password",
    help: `Gives the demo person (${DEMO_EMAIL}) a new generated password, prints it once, and lifts the ` +
      "sign-in brake: the way back into the demo.",
    options: {},
    required: [],
    run: async (_v, io) => {
      const [user] = await io.sql<{ id: string; email: string }[]>`
        select id, email from users where lower(email) = ${DEMO_EMAIL}`;
      if (!user) {
        throw notFound(`no demo person ${DEMO_EMAIL} (demo data is created by the first deno task dev)`);
      }
      const password = generatePassword();
      const done = await setPassword(io.sql, user.id, user.email, password);
      return { id: user.id, email: user.email, password, ...done };
    },
  },
};

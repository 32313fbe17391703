// The password policy for every new or changed password (reset link, change-password page, the operator's CLI),
// and the same measure applied to a password used at sign-in (one that falls short must be changed).
//
// - 12 to 128 characters (Unicode code points, spaces included; OWASP ASVS 4.0.3 2.1.1, 2.1.2). No composition
//   rules (2.1.9): length and guessability only.
// - Not common, not guessable (2.1.7): zxcvbn-ts (@zxcvbn-ts/core with the common-language and English
//   dictionaries, offline: the "passwords" list is the most common passwords of public breaches) must score it 3
//   or more (about 10^8 guesses), and no single dictionary word or common password may make up the whole of it.
// - Not made from the person's own email address (its name part) or name.
//
// The dictionaries are loaded on first use (a dynamic import, ~100 ms once), so processes that never check a
// password (most of them) do not pay for them. A check costs a few milliseconds; zxcvbn analyses at most the first
// ANALYSED_CHARS characters, which bounds the worst case (repetitive 64-character inputs) to a few hundred ms.
//
// Exports: `checkNewPassword(password, who)` → `{ ok: true }` or `{ ok: false, reason, message }`;
// `fallsShortAtSignIn(password, who)`; PASSWORD_MIN_CHARS, PASSWORD_MAX_CHARS.

export const PASSWORD_MIN_CHARS = 12;
export const PASSWORD_MAX_CHARS = 128;
/** zxcvbn looks at this many leading characters at most (its cost grows fast with length). */
const ANALYSED_CHARS = 32;
/** zxcvbn's score 3: "safely unguessable: moderate protection from offline slow-hash scenario" (≥ 10^8 guesses). */
const MIN_SCORE = 3;

export type PasswordProblem = "too_short" | "too_long" | "personal" | "common" | "guessable";
export type PasswordVerdict = { ok: true } | { ok: false; reason: PasswordProblem; message: string };

/** What the policy knows about the person: their email address and name. */
export interface PasswordOwner {
  email: string;
  name?: string;
}

interface Sequence {
  pattern: string;
  i: number;
  j: number;
  dictionaryName?: string;
}
interface Estimator {
  check(password: string, userInputs?: string[]): {
    score: number;
    sequence: Sequence[];
    feedback: { warning: string | null };
  };
}

let estimator: Promise<Estimator> | undefined;

function loadEstimator(): Promise<Estimator> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, en] = await Promise.all([
      import("@zxcvbn-ts/core"),
      import("@zxcvbn-ts/language-common"),
      import("@zxcvbn-ts/language-en"),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...en.dictionary },
      graphs: common.adjacencyGraphs,
      translations: en.translations,
      maxLength: ANALYSED_CHARS,
    }) as unknown as Estimator;
  })();
  return estimator;
}

function localPart(email: string): string {
  const at = email.lastIndexOf("@");
  return (at > 0 ? email.slice(0, at) : email).trim().toLowerCase();
}

/** The person's own words zxcvbn should treat as known to an attacker. */
function ownWords(who: PasswordOwner): string[] {
  const local = localPart(who.email);
  const words = [who.email.trim().toLowerCase(), local, ...local.split(/[._+-]+/)];
  if (who.name) words.push(who.name.trim().toLowerCase(), ...who.name.toLowerCase().split(/\s+/));
  return [...new Set(words.filter((w) => w.length >= 3))].slice(0, 20);
}

const TOO_SHORT =
  `Use at least ${PASSWORD_MIN_CHARS} characters. Several words you can remember make a good password.`;
const TOO_LONG = `Use at most ${PASSWORD_MAX_CHARS} characters.`;
const PERSONAL =
  "The password contains your email address or name, which others can guess. Choose something else.";
const COMMON = "This password is on lists of common passwords that attackers try first. Choose another one.";

/** Checks a new password against the policy; the message says why it is refused, in words for the person. */
export async function checkNewPassword(password: string, who: PasswordOwner): Promise<PasswordVerdict> {
  const chars = [...password].length;
  if (chars < PASSWORD_MIN_CHARS) return { ok: false, reason: "too_short", message: TOO_SHORT };
  if (chars > PASSWORD_MAX_CHARS) return { ok: false, reason: "too_long", message: TOO_LONG };
  return await guessability(password, who);
}

/**
 * Whether a password that just signed someone in falls short of today's policy (too short, common, guessable or
 * personal) — then it must be changed. A long one (over PASSWORD_MAX_CHARS, from before the limit) does not.
 */
export async function fallsShortAtSignIn(
  password: string,
  who: PasswordOwner,
): Promise<PasswordProblem | null> {
  if ([...password].length < PASSWORD_MIN_CHARS) return "too_short";
  const verdict = await guessability(password, who);
  return verdict.ok ? null : verdict.reason;
}

async function guessability(password: string, who: PasswordOwner): Promise<PasswordVerdict> {
  const lower = password.toLowerCase();
  const local = localPart(who.email);
  if (local.length >= 4 && lower.includes(local)) return { ok: false, reason: "personal", message: PERSONAL };
  const zxcvbn = await loadEstimator();
  const analysed = [...password].slice(0, ANALYSED_CHARS).join("");
  const result = zxcvbn.check(analysed, ownWords(who));
  const whole = result.sequence.length === 1 && result.sequence[0].pattern === "dictionary"
    ? result.sequence[0]
    : undefined;
  const personal = result.sequence.some((s) => s.dictionaryName === "userInputs");
  if (whole?.dictionaryName === "userInputs" || (result.score < MIN_SCORE && personal)) {
    return { ok: false, reason: "personal", message: PERSONAL };
  }
  const common = result.sequence.some((s) =>
    s.pattern === "dictionary" && /^passwords/.test(s.dictionaryName ?? "")
  );
  if (whole || (result.score < MIN_SCORE && common)) return { ok: false, reason: "common", message: COMMON };
  if (result.score < MIN_SCORE) {
    const why = result.feedback.warning ? `${result.feedback.warning} ` : "";
    return {
      ok: false,
      reason: "guessable",
      message:
        `This password is too easy to guess. ${why}Add more words or characters that follow no pattern.`,
    };
  }
  return { ok: true };
}

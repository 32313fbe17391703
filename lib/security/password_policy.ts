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
// The reasons are catalogue texts (t.security.password): a refusal carries `text` for the pages, in the page's
// language, and `message`, the same in English, for the operator's CLI. zxcvbn's warning comes as its feedback
// key (our translations table maps each key to itself) and is said in the catalogue's words: the published
// German and French packages of @zxcvbn-ts are not of the 4.x line the core is (language-de is 3.x), would load
// their dictionaries (megabytes) for sixteen sentences, and only the warning is shown.
//
// Exports: `checkNewPassword(password, who)` → `{ ok: true }` or `{ ok: false, reason, message, text }`;
// `fallsShortAtSignIn(password, who)`; PASSWORD_MIN_CHARS, PASSWORD_MAX_CHARS.
import { type Messages, messagesFor } from "../i18n/mod.ts";

export const PASSWORD_MIN_CHARS = 12;
export const PASSWORD_MAX_CHARS = 128;
/** zxcvbn looks at this many leading characters at most (its cost grows fast with length). */
const ANALYSED_CHARS = 32;
/** zxcvbn's score 3: "safely unguessable: moderate protection from offline slow-hash scenario" (≥ 10^8 guesses). */
const MIN_SCORE = 3;

export type PasswordProblem = "too_short" | "too_long" | "personal" | "common" | "guessable";
export type PasswordVerdict =
  | { ok: true }
  /** `text` for the page (its language), `message` the same in English (the operator's CLI) */
  | { ok: false; reason: PasswordProblem; message: string; text: (t: Messages) => string };

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
      // Each warning as its key ("simpleRepeat"), said in the page's language by the catalogue.
      translations: {
        ...en.translations,
        warnings: Object.fromEntries(
          Object.keys(en.translations.warnings).map((k) => [k, k]),
        ) as typeof en.translations.warnings,
      },
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

type Warning = keyof Messages["security"]["password"]["warnings"];

function refusal(reason: PasswordProblem, text: (t: Messages) => string): PasswordVerdict {
  return { ok: false, reason, text, message: text(messagesFor("en")) };
}

const TOO_SHORT = refusal("too_short", (t) => t.security.password.tooShort(PASSWORD_MIN_CHARS));
const TOO_LONG = refusal("too_long", (t) => t.security.password.tooLong(PASSWORD_MAX_CHARS));
const PERSONAL = refusal("personal", (t) => t.security.password.personal);
const COMMON = refusal("common", (t) => t.security.password.common);

/** zxcvbn's warning key in the catalogue's words; a key the catalogue does not know is left out. */
function guessable(warning: string | null): PasswordVerdict {
  return refusal("guessable", (t) => {
    const words = t.security.password.warnings;
    return t.security.password.guessable(
      warning && Object.hasOwn(words, warning) ? words[warning as Warning] : "",
    );
  });
}

/** Checks a new password against the policy; the message says why it is refused, in words for the person. */
export async function checkNewPassword(password: string, who: PasswordOwner): Promise<PasswordVerdict> {
  const chars = [...password].length;
  if (chars < PASSWORD_MIN_CHARS) return TOO_SHORT;
  if (chars > PASSWORD_MAX_CHARS) return TOO_LONG;
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
  if (local.length >= 4 && lower.includes(local)) return PERSONAL;
  const zxcvbn = await loadEstimator();
  const analysed = [...password].slice(0, ANALYSED_CHARS).join("");
  const result = zxcvbn.check(analysed, ownWords(who));
  const whole = result.sequence.length === 1 && result.sequence[0].pattern === "dictionary"
    ? result.sequence[0]
    : undefined;
  const personal = result.sequence.some((s) => s.dictionaryName === "userInputs");
  if (whole?.dictionaryName === "userInputs" || (result.score < MIN_SCORE && personal)) {
    return PERSONAL;
  }
  const common = result.sequence.some((s) =>
    s.pattern === "dictionary" && /^passwords/.test(s.dictionaryName ?? "")
  );
  if (whole || (result.score < MIN_SCORE && common)) return COMMON;
  if (result.score < MIN_SCORE) return guessable(result.feedback.warning);
  return { ok: true };
}

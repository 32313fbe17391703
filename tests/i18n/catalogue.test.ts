// The message catalogue (issue 30 point 4): every key of English is in German and French, of the same kind (a
// text, a function of as many arguments, an area), no text is empty, and none is left in English where the
// translation forgot it (the same words in two languages are listed, and few). Types catch most of this at
// `deno task check`; this walks the values at run time, where a cast or an `any` cannot hide a gap.
import assert from "node:assert/strict";
import { catalogue, LOCALES, type Messages } from "../../lib/i18n/mod.ts";

type Node = string | ((...args: never[]) => string) | { [key: string]: Node };

/** Where German or French rightly say what English says (names, loanwords, codes). */
const SAME_AS_ENGLISH = new Set([
  "home.name",
  "home.profile",
  "common.nav.sessions",
  "account.sessions.methods.passkey",
  "security.passkeys.title",
  "activity.tool", // de: Tool
  "activity.confirmationLabel", // fr: Confirmation
]);

function walk(path: string, en: Node, other: Node | undefined, lang: string, problems: string[]): void {
  if (other === undefined) {
    problems.push(`${lang}: ${path} is missing`);
    return;
  }
  if (typeof en !== typeof other) {
    problems.push(`${lang}: ${path} is a ${typeof other}, English has a ${typeof en}`);
    return;
  }
  if (typeof en === "string") {
    if ((other as string).trim() === "") problems.push(`${lang}: ${path} is empty`);
    return;
  }
  if (typeof en === "function") {
    const fn = other as (...args: unknown[]) => string;
    if (fn.length !== en.length) {
      problems.push(`${lang}: ${path} takes ${fn.length} arguments, English takes ${en.length}`);
    }
    return;
  }
  const enKeys = Object.keys(en);
  const otherKeys = Object.keys(other as object);
  for (const key of enKeys) {
    walk(path ? `${path}.${key}` : key, en[key], (other as Record<string, Node>)[key], lang, problems);
  }
  for (const key of otherKeys) {
    if (!(key in en)) problems.push(`${lang}: ${path ? `${path}.${key}` : key} is not in English`);
  }
}

function leaves(node: Node, path = "", out = new Map<string, Node>()): Map<string, Node> {
  if (typeof node === "object") {
    for (const [key, value] of Object.entries(node)) leaves(value, path ? `${path}.${key}` : key, out);
  } else out.set(path, node);
  return out;
}

Deno.test("every language has every key of English, of the same kind, none empty", () => {
  const problems: string[] = [];
  for (const lang of LOCALES) {
    if (lang === "en") continue;
    walk("", catalogue.en as unknown as Node, catalogue[lang] as unknown as Node, lang, problems);
  }
  assert.deepEqual(problems, []);
});

Deno.test("the walk finds a missing key, an extra key and a function of the wrong arity", () => {
  const en = { a: "x", b: (n: number) => `${n}`, c: { d: "y" } } as unknown as Node;
  const broken = { a: "x", b: () => "", c: {}, e: "z" } as unknown as Node;
  const problems: string[] = [];
  walk("", en, broken, "xx", problems);
  assert.deepEqual(problems, [
    "xx: b takes 0 arguments, English takes 1",
    "xx: c.d is missing",
    "xx: e is not in English",
  ]);
});

Deno.test("no German or French text is left in English, except the few listed as the same words", () => {
  const english = leaves(catalogue.en as unknown as Node);
  const same: string[] = [];
  for (const lang of LOCALES) {
    if (lang === "en") continue;
    for (const [path, value] of leaves(catalogue[lang] as unknown as Node)) {
      if (typeof value !== "string" || SAME_AS_ENGLISH.has(path)) continue;
      if (value === english.get(path) && /[a-z]{3}/i.test(value)) same.push(`${lang}: ${path} = ${value}`);
    }
  }
  assert.deepEqual(same, []);
});

Deno.test("the catalogue's type is English's: a German area typed otherwise does not compile", () => {
  // Compile-time half of the check above; this line fails `deno task check` if Messages stops being English's.
  const de: Messages = catalogue.de;
  assert.equal(typeof de.common.formExpiredTitle, "string");
});

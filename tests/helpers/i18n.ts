// Checks for pages in another language: the visible text of an HTML answer, and the English words that must not
// be in it (a text the translation missed). Used by tests/i18n/*_pages.test.ts and the German browser test.
//
// Exports: `visibleText(html)`, `englishLeft(html, allow?)`, `assertSpeaks(html, lang, allow?)`, `Speaking` (a
// test browser that asks for one language).
import assert from "node:assert/strict";
import type { Hono } from "hono";
import type { AppEnv } from "../../lib/http/types.ts";
import { Browser } from "../oauth/helpers.ts";

/** Words that English pages are full of and German and French pages never use. */
const ENGLISH_WORDS = [
  "the",
  "your",
  "you",
  "and",
  "with",
  "this",
  "that",
  "of",
  "for",
  "not",
  "are",
  "is",
  "has",
  "have",
  "will",
  "can",
  "from",
  "which",
  "when",
  "sign",
  "signed",
];

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", nbsp: " " };

/**
 * The text a reader sees or hears: element text plus the attributes read aloud or shown (title, aria-label,
 * placeholder, alt, value of buttons), without scripts, styles and code samples (<code>, <pre>: data, not words)
 * and without the parts marked `lang="en"` (English on purpose, e.g. the tools' own titles).
 */
export function visibleText(html: string): string {
  const attrs = [...html.matchAll(/\s(?:aria-label|title|placeholder|alt)="([^"]*)"/g)].map((m) => m[1]);
  const body = html
    .replace(/<(script|style|code|pre|title)\b[\s\S]*?<\/\1>/gi, " ")
    // A part marked English on purpose (WCAG 3.1.2: data such as the tools' own titles) is not a word left over.
    .replace(/<(?!html\b)(\w+)\b[^>]*\slang="en"[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]+>/g, " ");
  return [body, ...attrs].join(" ")
    .replace(/&(#?\w+);/g, (_, e: string) => ENTITIES[e] ?? " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The English words left in a page's visible text, each with a little context; `allow` removes data first. */
export function englishLeft(html: string, allow: string[] = []): string[] {
  let text = visibleText(html);
  for (const a of allow) text = text.split(a).join(" ");
  const found: string[] = [];
  // A word stands between spaces or punctuation: not inside an identifier or a random key prefix such as
  // "pak_50OF2M…", whose "OF" between digits once failed a German page.
  const re = new RegExp(`(?<![\\p{L}\\p{N}_@.])(${ENGLISH_WORDS.join("|")})(?![\\p{L}\\p{N}_@.])`, "giu");
  for (const m of text.matchAll(re)) {
    found.push(text.slice(Math.max(0, m.index! - 30), m.index! + m[0].length + 30));
  }
  return found;
}

/** The page says `<html lang=…>` and has no English words left (data named in `allow` aside). */
export function assertSpeaks(html: string, lang: "de" | "fr", allow: string[] = []): void {
  assert.match(html, new RegExp(`<html lang="${lang}"`));
  assert.deepEqual(englishLeft(html, allow), [], `English words left on a ${lang} page`);
}

/** A cookie-keeping browser whose every request asks for `lang` (Accept-Language), unless a request says otherwise. */
export class Speaking extends Browser {
  constructor(app: Hono<AppEnv>, public lang: string, ip?: string) {
    super(app, ip);
  }
  override request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has("accept-language")) headers.set("accept-language", this.lang);
    return super.request(path, { ...init, headers });
  }
}

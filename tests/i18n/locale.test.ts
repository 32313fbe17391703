// Which language a page speaks (lib/i18n/locale.ts): ui_locales, then the person's setting, then
// Accept-Language, then English; each input bounded.
import assert from "node:assert/strict";
import { Hono } from "hono";
import { formatsFor } from "../../lib/i18n/format.ts";
import { fromAcceptLanguage, fromUiLocales, localeOf, matchTag } from "../../lib/i18n/locale.ts";
import type { AppEnv } from "../../lib/http/types.ts";

Deno.test("a tag names its language with or without a region, in any case; others are not ours", () => {
  assert.equal(matchTag("de"), "de");
  assert.equal(matchTag("de-AT"), "de");
  assert.equal(matchTag("FR-ca"), "fr");
  assert.equal(matchTag("en_GB"), "en");
  assert.equal(matchTag("es"), undefined);
  assert.equal(matchTag(""), undefined);
  assert.equal(matchTag("de-" + "x".repeat(40)), undefined);
});

Deno.test("ui_locales: the first tag Portico speaks wins; at most 10 tags are looked at", () => {
  assert.equal(fromUiLocales("es fr-CA de"), "fr");
  assert.equal(fromUiLocales("  de  "), "de");
  assert.equal(fromUiLocales("es it"), undefined);
  assert.equal(fromUiLocales(undefined), undefined);
  assert.equal(fromUiLocales([..."abcdefghij"].map((l) => `x${l}`).join(" ") + " de"), undefined);
});

Deno.test("Accept-Language: q-values are honoured and q=0 refuses a language", () => {
  assert.equal(fromAcceptLanguage("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7"), "fr");
  assert.equal(fromAcceptLanguage("en;q=0.1, de-AT"), "de");
  assert.equal(fromAcceptLanguage("de;q=0, en"), "en");
  assert.equal(fromAcceptLanguage("es, it;q=0.5"), undefined);
  assert.equal(fromAcceptLanguage("x".repeat(100_000) + ", de"), undefined, "a header is cut before parsing");
});

Deno.test("the order: ui_locales, then the person's setting, then Accept-Language, then English", async () => {
  const app = new Hono<AppEnv>();
  app.get("/", (c) => {
    if (c.req.query("ui")) c.set("uiLocale", c.req.query("ui") as "de");
    if (c.req.query("person")) c.set("personLocale", c.req.query("person") as "fr");
    return c.text(localeOf(c));
  });
  const ask = async (query: string, accept?: string) =>
    await (await app.request(`/${query}`, { headers: accept ? { "accept-language": accept } : {} })).text();
  assert.equal(await ask("?ui=de&person=fr", "en"), "de");
  assert.equal(await ask("?person=fr", "de"), "fr");
  assert.equal(await ask("", "de-DE,de;q=0.9"), "de");
  assert.equal(await ask("", "es"), "en");
  assert.equal(await ask(""), "en");
});

Deno.test("dates and numbers per language; English keeps the ISO forms", () => {
  const at = new Date("2026-03-05T09:07:00Z");
  assert.equal(formatsFor("en").time(at), "2026-03-05 09:07 UTC");
  assert.equal(formatsFor("de").time(at), "05.03.2026, 09:07 UTC");
  assert.equal(formatsFor("fr").time(at), "5 mars 2026, 09:07 UTC");
  assert.equal(formatsFor("en").date("2026-03-05"), "2026-03-05");
  assert.equal(formatsFor("de").date("2026-03-05"), "05.03.2026");
  assert.equal(formatsFor("en").number(10000), "10,000");
  assert.equal(formatsFor("de").number(10000), "10.000");
  assert.equal(formatsFor("fr").number(10000), "10\u202f000");
});

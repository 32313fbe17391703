// Issue 30 point 4, "German pages at both viewport sizes, axe-clean": a browser that asks for German walks every
// page (tests/helpers/german_tour.ts) once, on the phone's screen (390×844); each page says `<html lang="de">`, has
// no English words left in what a reader sees or hears, and is axe-clean (WCAG 2.2 AA) without sideways scrolling
// at 1280×800 and 390×844 (assertPageCleanAtBothSizes re-lays it out). German words are longer than English ones:
// this is where a button or a navigation that no longer fits would show.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  assertPageCleanAtBothSizes,
  haveChromium,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { GERMAN_DATA, germanTour } from "../helpers/german_tour.ts";
import { englishLeft } from "../helpers/i18n.ts";
import { serveAtIssuer } from "../helpers/serve.ts";

warnIfMissing("tests/e2e/pages_german.test.ts");

Deno.test({
  name: "Chromium, German: every page (one walk, checked at 1280×800 and 390×844) is German and axe-clean",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await freshDatabase();
    const { issuer, server } = serveAtIssuer(db.sql);
    const browser = await launchChromium();
    const seen: string[] = [];
    try {
      await germanTour(browser, db.sql, issuer, async (page: Page, name: string) => {
        seen.push(name);
        assert.equal(await page.locator("html").getAttribute("lang"), "de", name);
        const html = await page.content();
        assert.deepEqual(englishLeft(html, [...GERMAN_DATA, page.url()]), [], `${name}: English words left`);
        await assertPageCleanAtBothSizes(page, name);
      }, VIEWPORTS.phone);
      assert.equal(seen.length, 23, `pages seen: ${seen.join(", ")}`);
    } finally {
      await browser.close();
      await server.shutdown();
      await db.close();
    }
  },
});

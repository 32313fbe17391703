// Headless Debian Chromium for the e2e tests: whether it is installed, and one way to launch it.
import assert from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";
import { HANG_MS } from "./wait.ts";

export const CHROMIUM = "/usr/bin/chromium";

export const haveChromium = (() => {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
})();

/** Says once, per test file, why its browser tests are ignored. */
export function warnIfMissing(file: string): void {
  if (!haveChromium) console.warn(`${file} skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
}

/**
 * Playwright gives each launch, navigation, wait and click 30 s by default — a deadline a loaded host can miss
 * (one of these tests took 80 s in all on a loaded host). What a browser test waits for is an event (a heading, a
 * URL); only a hang may fail it: every context and page of this browser gets HANG_MS.
 */
export const BROWSER_TIMEOUT_MS = HANG_MS;

/** The flags this closed network needs: no background connections that would be refused at every start. */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    timeout: BROWSER_TIMEOUT_MS,
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    context.setDefaultTimeout(BROWSER_TIMEOUT_MS);
    context.setDefaultNavigationTimeout(BROWSER_TIMEOUT_MS);
    return context;
  };
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...args) => {
    const page = await newPage(...args);
    page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
    page.setDefaultNavigationTimeout(BROWSER_TIMEOUT_MS);
    return page;
  };
  return browser;
}

/** The two screens every page is checked on: a laptop and a phone (iPhone 12-15 class). */
export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

/** axe-core's tags for WCAG 2.0, 2.1 and 2.2, levels A and AA. */
export const WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/** The part of an axe-core result the assertion reports. */
interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: Array<{ target: unknown }>;
}

/**
 * Runs axe-core (test-only: imported here, never from main.ts's graph) in the page and throws with every
 * violation's rule, impact and first targets unless there are none. The page's context needs `bypassCSP: true`:
 * the pages allow no inline script, and axe is injected as one (page.addScriptTag({ content })).
 */
export async function assertNoAxeViolations(page: Page, label: string): Promise<void> {
  // Once per document: a check at another size or colour scheme of the same page reuses the injected axe.
  const injected = await page.evaluate(() => "axe" in globalThis);
  if (!injected) {
    const { default: axe } = await import("axe-core");
    await page.addScriptTag({ content: (axe as unknown as { source: string }).source });
  }
  const violations: Array<{ id: string; impact: string; help: string; targets: string[] }> = await page
    .evaluate(
      async (tags) => {
        const win = globalThis as unknown as {
          document: unknown;
          axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> };
        };
        const result = await win.axe.run(win.document, {
          runOnly: { type: "tag", values: tags },
          resultTypes: ["violations"],
        });
        return result.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          targets: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)),
        }));
      },
      WCAG_22_AA,
    );
  if (violations.length > 0) {
    const lines = violations.map((v) => `  ${v.id} (${v.impact}): ${v.help} — ${v.targets.join(", ")}`);
    throw new Error(
      `axe-core: ${violations.length} WCAG 2.2 AA violation(s) on ${label}:\n${lines.join("\n")}`,
    );
  }
}

/** True when the element's whole box lies inside the viewport (visible without scrolling) and is on top there. */
export async function inViewport(page: Page, selector: string): Promise<boolean> {
  const locator = page.locator(selector);
  const box = await locator.boundingBox();
  const size = page.viewportSize();
  if (!box || !size) return false;
  const inside = box.x >= 0 && box.y >= 0 && box.x + box.width <= size.width &&
    box.y + box.height <= size.height;
  if (!inside) return false;
  // Nothing covers its centre (a sticky bar that something else overlaps would not count as visible).
  return await locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    // deno-lint-ignore no-explicit-any
    const hit = (globalThis as any).document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return hit !== null && (hit === el || el.contains(hit));
  });
}

/** The page fits its viewport's width: nothing makes a phone scroll sideways. */
export async function assertNoSidewaysScroll(page: Page, label: string): Promise<void> {
  const [scroll, width] = await page.evaluate(() => {
    // deno-lint-ignore no-explicit-any
    const doc = (globalThis as any).document.documentElement;
    return [doc.scrollWidth, doc.clientWidth];
  });
  if (scroll > width) throw new Error(`${label}: ${scroll}px wide in a ${width}px viewport`);
}

/** The checks every page of the browser tests gets: axe-clean (WCAG 2.2 AA) and no sideways scrolling. */
export async function assertPageClean(page: Page, label: string): Promise<void> {
  await assertNoAxeViolations(page, label);
  await assertNoSidewaysScroll(page, label);
}

/** Signs in on /signin with an email and password, as a person types them (no waiting for where it leads). */
export async function signInWithPassword(
  page: Page,
  issuer: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(`${issuer}/signin`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** One way a page is looked at: a screen, and a colour scheme (none: the context's own). */
export interface Look {
  label: string;
  viewport: { width: number; height: number };
  colorScheme?: "light" | "dark";
}

/** Both screens, as the context is (light unless the context says otherwise). */
export const SIZES: readonly Look[] = Object.entries(VIEWPORTS).map(([size, viewport]) => ({
  label: `${size} ${viewport.width}×${viewport.height}`,
  viewport,
}));

/** The four ways: both screens, light and dark. */
export const LOOKS: readonly Look[] = SIZES.flatMap((size) =>
  (["light", "dark"] as const).map((colorScheme) => ({
    ...size,
    label: `${size.label} ${colorScheme}`,
    colorScheme,
  }))
);

/**
 * `assertPageClean` for the page as it stands, in each look in turn (the page re-lays itself out; it is not
 * reloaded), then back to the size and colour scheme it had: one walk through a flow checks each page every way,
 * instead of walking the flow once per screen. Labels name the look: "overview (phone 390×844 dark)".
 */
export async function assertPageCleanIn(page: Page, label: string, looks: readonly Look[]): Promise<void> {
  const size = page.viewportSize();
  const scheme = await page.evaluate(() =>
    // deno-lint-ignore no-explicit-any
    (globalThis as any).matchMedia("(prefers-color-scheme: dark)").matches
      ? "dark" as const
      : "light" as const
  );
  for (const look of looks) {
    if (look.colorScheme) await page.emulateMedia({ colorScheme: look.colorScheme });
    await page.setViewportSize(look.viewport);
    await assertPageClean(page, `${label} (${look.label})`);
  }
  await page.emulateMedia({ colorScheme: scheme });
  if (size) await page.setViewportSize(size);
}

/** `assertPageCleanIn` at both screens, light and dark. */
export function assertPageCleanEverywhere(page: Page, label: string): Promise<void> {
  return assertPageCleanIn(page, label, LOOKS);
}

/** `assertPageCleanIn` at both screens, in the context's colour scheme. */
export function assertPageCleanAtBothSizes(page: Page, label: string): Promise<void> {
  return assertPageCleanIn(page, label, SIZES);
}

/**
 * A layout check at each screen (desktop, then phone), the page re-laid out, not reloaded, for each; then back to
 * the size it had. For checks that differ by screen (what is in view without scrolling).
 */
export async function atEachSize(
  page: Page,
  check: (size: string, viewport: { width: number; height: number }) => Promise<void>,
): Promise<void> {
  const had = page.viewportSize();
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    await check(size, viewport);
  }
  if (had) await page.setViewportSize(had);
}

/** Consent's Allow and Deny are on screen without scrolling (`size` names the screen in the message). */
export async function assertDecisionInView(page: Page, size: string): Promise<void> {
  for (const value of ["allow", "deny"]) {
    const label = value === "allow" ? "Allow" : "Deny";
    assert.equal(
      await inViewport(page, `button[name=decision][value=${value}]`),
      true,
      `${size}: ${label} visible`,
    );
  }
}

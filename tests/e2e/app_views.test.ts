// The MCP Apps views on their own (issue 26), in Chromium at 1280×800 and 390×844, light and dark: each view is
// bundled (test-only, tests/helpers/app_view_bundle.ts), mounted with answers shaped as the tools answer them and a
// fake ctx.callTool that records every call; what the views show (bars, dates, totals), the calls moving a ghost
// bar, opening a task and invoicing a tranche make, refusals shown as alerts, no overflow, and axe-core at zero.
// The host test with the official AppBridge and a running Portico is the infra's (lib/mcp/apps*).
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import {
  assertNoAxeViolations,
  haveChromium,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { bundleView } from "../helpers/app_view_bundle.ts";
import {
  ANA,
  BEN,
  CAT,
  offer,
  OFFER_ID,
  P1,
  P2,
  plan,
  PLAN_INPUT,
  T,
  task,
  timeLogs,
  timeSummary,
  TR,
  trancheInvoice,
  WEEK_INPUT,
} from "../helpers/app_view_fixtures.ts";

warnIfMissing("tests/e2e/app_views.test.ts");

type ToolResult = {
  isError?: boolean;
  structuredContent?: unknown;
  content: Array<{ type: string; text?: string }>;
};
type Call = { name: string; args: Record<string, unknown> };

const ok = (s: unknown): ToolResult => ({
  structuredContent: s,
  content: [{ type: "text", text: JSON.stringify(s) }],
});
const refused = (text: string): ToolResult => ({ isError: true, content: [{ type: "text", text }] });

/** A page with one view mounted, its recorded calls, and the answers the fake host gives. */
class Harness {
  calls: Call[] = [];
  answer: (c: Call) => ToolResult = () => refused("no answer set");
  constructor(readonly page: Page) {}

  static async open(browser: Browser, viewport: { width: number; height: number }): Promise<Harness> {
    const page = await browser.newPage({ viewport, bypassCSP: true });
    const h = new Harness(page);
    await page.exposeFunction("porticoCallTool", (name: string, args: Record<string, unknown>) => {
      const call = { name, args };
      h.calls.push(call);
      return h.answer(call);
    });
    return h;
  }

  async mount(
    script: string,
    ctx: { input: unknown; result: unknown; theme: "light" | "dark" },
  ): Promise<void> {
    this.calls = [];
    const bg = ctx.theme === "dark" ? "#15181b" : "#fff";
    await this.page.setContent(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portico view</title>` +
        `<meta name="viewport" content="width=device-width, initial-scale=1"></head>` +
        `<body style="margin:0;background:${bg}"><main id="root"></main></body></html>`,
    );
    await this.page.addScriptTag({ content: script });
    await this.page.evaluate((c) => {
      const g = globalThis as unknown as {
        document: { getElementById(id: string): unknown };
        PorticoView: { mount(root: unknown, ctx: unknown): void };
        porticoCallTool(name: string, args: unknown): Promise<unknown>;
      };
      const view = {
        ...c,
        locale: "en-GB",
        callTool: (name: string, args: unknown) => g.porticoCallTool(name, args),
      };
      (g as unknown as { lastCtx: unknown }).lastCtx = view;
      g.PorticoView.mount(g.document.getElementById("root"), view);
    }, ctx);
  }

  /** Mounts again as the host glue does on a context change: the same input and result objects, another theme. */
  async remount(theme: "light" | "dark"): Promise<void> {
    await this.page.evaluate((theme) => {
      const g = globalThis as unknown as {
        document: { getElementById(id: string): unknown };
        PorticoView: { mount(root: unknown, ctx: unknown): void };
        lastCtx: Record<string, unknown>;
      };
      g.lastCtx = { ...g.lastCtx, theme };
      g.PorticoView.mount(g.document.getElementById("root"), g.lastCtx);
    }, theme);
  }

  attr(selector: string, name: string): Promise<string | null> {
    return this.page.locator(selector).getAttribute(name);
  }

  async noOverflow(label: string): Promise<void> {
    const [scroll, width] = await this.page.evaluate(() => {
      const d =
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document;
      return [d.documentElement.scrollWidth, (globalThis as unknown as { innerWidth: number }).innerWidth];
    });
    assert.ok(scroll <= width, `${label}: the page scrolls sideways (${scroll} > ${width})`);
  }
}

const THEMES = ["light", "dark"] as const;

Deno.test({
  name:
    "MCP Apps views in Chromium (1280×800, 390×844, light and dark): plan, offer, week; calls, refusals, axe",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const [planJs, offerJs, weekJs] = await Promise.all([
      bundleView("plan"),
      bundleView("offer"),
      bundleView("week"),
    ]);
    console.log(
      `bundle sizes (minified): plan ${planJs.bytes} B, offer ${offerJs.bytes} B, week ${weekJs.bytes} B`,
    );
    for (const b of [planJs, offerJs, weekJs]) {
      assert.ok(b.bytes < 40_000, `a view bundle weighs ${b.bytes} bytes`);
    }
    // The views' sources build DOM only through Preact and reach nothing but the host.
    for (const entry of Deno.readDirSync(new URL("../../views/apps/", import.meta.url))) {
      if (!/\.tsx?$/.test(entry.name)) continue;
      const name = entry.name;
      const src = await Deno.readTextFile(new URL(`../../views/apps/${name}`, import.meta.url));
      for (
        const banned of [
          /innerHTML/,
          /dangerouslySetInnerHTML/,
          /\bfetch\(/,
          /XMLHttpRequest/,
          /WebSocket/,
          /\beval\(/,
        ]
      ) {
        assert.doesNotMatch(src, banned, `views/apps/${name}`);
      }
    }
    const browser = await launchChromium();
    try {
      for (const [vpName, viewport] of Object.entries(VIEWPORTS)) {
        const h = await Harness.open(browser, viewport);
        const page = h.page;

        for (const theme of THEMES) {
          await t.step(`plan, ${vpName}, ${theme}: lanes, bars, today, flags, axe`, async () => {
            await h.mount(planJs.script, { input: PLAN_INPUT, result: plan(), theme });
            assert.equal(await h.attr("[data-view]", "data-theme"), theme);
            assert.equal(await h.attr("[data-window]", "data-from"), "2026-11-23");
            assert.equal(await h.attr("[data-window]", "data-to"), "2026-12-20");
            assert.equal(await h.attr("[data-window]", "data-today"), "2026-11-27");
            assert.match(await page.locator("h1").innerText(), /23 Nov – 20 Dec/);
            assert.deepEqual(
              await page.locator("[data-tick]").evaluateAll((e) => e.map((x) => x.getAttribute("data-date"))),
              ["2026-11-23", "2026-11-30", "2026-12-07", "2026-12-14", "2026-12-20"],
            );
            assert.deepEqual(
              await page.locator("[data-lane]").evaluateAll((ls) =>
                ls.map((l) => l.getAttribute("data-user-id"))
              ),
              [ANA, BEN, ""],
            );
            assert.equal(await page.locator("[data-bar]").count(), 7);
            assert.equal(await page.locator("li[data-bar][data-ghost]").count(), 4);
            assert.equal(
              await page.locator(`[data-lane][data-user-id="${ANA}"]`).getAttribute("data-ghost-count"),
              "3",
            );
            assert.equal(await page.locator("[data-today-line]").count(), 7);
            // overdue: WEB-1 (due 25 Nov, in progress); late forecast: WEB-5 (the last ghost, ends after 5 Dec)
            assert.deepEqual(
              await page.locator("[data-bar][data-overdue]").evaluateAll((e) =>
                e.map((x) => x.getAttribute("data-task-id"))
              ),
              [T(1)],
            );
            assert.deepEqual(
              await page.locator("[data-bar][data-late]").evaluateAll((e) =>
                e.map((x) => x.getAttribute("data-task-id"))
              ),
              [T(5)],
            );
            const label = await h.attr(`[data-bar][data-task-id="${T(5)}"] [data-bar-shape]`, "aria-label");
            assert.equal(
              label,
              "WEB-5 Task number 5, Ana Alves, auto-planned 4 Dec to 10 Dec, status todo, due 5 Dec, " +
                "forecast to finish after its due date",
            );
            assert.match(
              (await h.attr(`[data-bar][data-task-id="${T(1)}"] [data-bar-shape]`, "aria-label"))!,
              /scheduled 23 Nov to 26 Nov, status in progress, starts before the window, due 25 Nov, overdue$/,
            );
            assert.equal(
              await page.locator(`[data-bar][data-task-id="${T(3)}"] [data-move=up]`).isDisabled(),
              true,
            );
            assert.equal(
              await page.locator(`[data-bar][data-task-id="${T(5)}"] [data-move=down]`).isDisabled(),
              true,
            );
            assert.equal(await page.locator("[data-move]").count(), 8);
            assert.equal(await h.attr("[data-beyond]", "data-total"), "1");
            assert.equal(h.calls.length, 0);
            await h.noOverflow(`plan ${vpName} ${theme}`);
            await assertNoAxeViolations(page, `plan view ${vpName} ${theme}`);
          });
        }

        await t.step(
          `plan, ${vpName}: moving a ghost bar calls set_task_queue_position, then gantt_plan`,
          async () => {
            await h.mount(planJs.script, { input: PLAN_INPUT, result: plan(), theme: "light" });
            h.answer = (c) =>
              c.name === "set_task_queue_position"
                ? ok({ task: task(4), userId: ANA, slotIndex: 0, queueLength: 3 })
                : ok(plan([4, 3, 5]));
            await page.locator(`[data-bar][data-task-id="${T(4)}"] [data-move=up]`).click();
            await page.locator("[data-outcome]").waitFor();
            assert.deepEqual(h.calls, [
              { name: "set_task_queue_position", args: { taskId: T(4), userId: ANA, slotIndex: 0 } },
              { name: "gantt_plan", args: PLAN_INPUT },
            ]);
            assert.equal(
              await page.locator("[data-outcome]").innerText(),
              "Moved WEB-4 Task number 4 to place 1 in Ana Alves's queue.",
            );
            assert.equal(await h.attr(`li[data-bar][data-task-id="${T(4)}"]`, "data-slot"), "0");
            assert.equal(await h.attr(`li[data-bar][data-task-id="${T(4)}"]`, "data-start"), "2026-11-27");
            assert.equal(await h.attr(`li[data-bar][data-task-id="${T(3)}"]`, "data-slot"), "1");

            // keyboard: focus WEB-3's "later" button and press Enter
            h.calls = [];
            h.answer = (c) =>
              c.name === "set_task_queue_position"
                ? ok({ task: task(3), userId: ANA, slotIndex: 2, queueLength: 3 })
                : ok(plan([4, 5, 3]));
            await page.locator(`[data-bar][data-task-id="${T(3)}"] [data-move=down]`).focus();
            await page.keyboard.press("Enter");
            await page.locator(`li[data-bar][data-task-id="${T(3)}"][data-slot="2"]`).waitFor();
            assert.deepEqual(h.calls[0], {
              name: "set_task_queue_position",
              args: { taskId: T(3), userId: ANA, slotIndex: 2 },
            });
            // focus stays on the moved bar (its "later" button is now disabled: its title button); the view moves
            // focus after the re-render that shows the bar's new slot, so wait for it (bounded) before reading it
            await page.waitForFunction(
              (label) =>
                (globalThis as unknown as {
                  document: { activeElement: { getAttribute(n: string): string | null } | null };
                }).document.activeElement?.getAttribute("aria-label") === label,
              "Open WEB-3 Task number 3",
              { timeout: 10_000 },
            ).catch(() => {});
            assert.equal(
              await page.evaluate(() =>
                (globalThis as unknown as {
                  document: { activeElement: { getAttribute(n: string): string | null } };
                })
                  .document.activeElement.getAttribute("aria-label")
              ),
              "Open WEB-3 Task number 3",
            );
            // the refusal (a member without the right) is shown, and the plan stays as it was
            h.calls = [];
            h.answer = () => refused("forbidden: you may not change Ben Brook's queue");
            await page.locator(`[data-bar][data-task-id="${T(4)}"] [data-move=down]`).click();
            const alert = page.locator("[role=alert][data-alert]");
            await alert.waitFor();
            assert.equal(await alert.innerText(), "forbidden: you may not change Ben Brook's queue");
            assert.deepEqual(h.calls.map((c) => c.name), ["set_task_queue_position"]);
            assert.equal(await h.attr(`li[data-bar][data-task-id="${T(4)}"]`, "data-slot"), "0");
            await assertNoAxeViolations(page, `plan view after a refusal ${vpName}`);
            // a theme change from the host mounts again with the same result: the moved plan stays, in dark
            await h.remount("dark");
            assert.equal(await h.attr("[data-view]", "data-theme"), "dark");
            assert.equal(await h.attr(`li[data-bar][data-task-id="${T(4)}"]`, "data-slot"), "0");
            assert.equal(await h.attr(`li[data-bar][data-task-id="${T(3)}"]`, "data-slot"), "2");
          },
        );

        for (const theme of THEMES) {
          await t.step(`plan, ${vpName}, ${theme}: opening a task calls get_task and shows it`, async () => {
            await h.mount(planJs.script, { input: PLAN_INPUT, result: plan(), theme });
            h.answer = () => ok(task(5));
            await page.locator(`[data-open-task][data-task-id="${T(5)}"]`).click();
            const panel = page.locator(`[data-task-panel][data-task-id="${T(5)}"]`);
            await panel.waitFor();
            assert.deepEqual(h.calls, [{ name: "get_task", args: { taskId: T(5) } }]);
            assert.match(
              await panel.innerText(),
              /WEB-5 Task number 5[\s\S]*Website[\s\S]*24 h[\s\S]*Ana Alves/,
            );
            // the description is text, never markup
            assert.match(
              await panel.locator(".desc").innerText(),
              /^<script>alert\(1\)<\/script> stays text$/,
            );
            assert.equal(await panel.locator("script").count(), 0);
            await h.noOverflow(`plan with panel ${vpName} ${theme}`);
            await assertNoAxeViolations(page, `plan view with the task panel ${vpName} ${theme}`);
            h.answer = () => refused("not_found: taskId: no task WEB-6");
            await page.locator(`[data-open-task][data-task-id="${T(6)}"]`).click();
            await page.locator("[data-task-panel] [role=alert]").waitFor();
            assert.equal(
              await page.locator("[data-task-panel] [role=alert]").innerText(),
              "not_found: taskId: no task WEB-6",
            );
            await page.locator("[data-close-panel]").click();
            assert.equal(await page.locator("[data-task-panel]").count(), 0);
          });
        }

        for (const theme of THEMES) {
          await t.step(
            `offer, ${vpName}, ${theme}: rows, totals, tranches, invoice, refusal, confirmation, axe`,
            async () => {
              await h.mount(offerJs.script, { input: { offerId: OFFER_ID }, result: offer(), theme });
              assert.equal(await h.attr("[data-offer]", "data-offer-id"), OFFER_ID);
              assert.equal(await page.locator("[data-row]").count(), 2);
              const total = (k: string) => h.attr(`[data-total="${k}"]`, "data-amount");
              assert.deepEqual(
                [
                  await total("net"),
                  await total("vat"),
                  await total("planned"),
                  await total("invoiced"),
                  await total("open"),
                ],
                ["12500.00", "0.00", "12500.00", "3750.00", "8750.00"],
              );
              assert.equal(await page.locator('[data-total="net"]').innerText(), "€12,500.00");
              assert.deepEqual(
                await page.locator("[data-tranche]").evaluateAll((e) =>
                  e.map((x) => x.getAttribute("data-status"))
                ),
                ["invoiced", "to_invoice", "to_invoice"],
              );
              assert.equal(await h.attr(`[data-tranche-id="${TR(1)}"]`, "data-invoice-number"), "2026-0007");
              assert.equal(
                await page.locator(`[data-tranche-id="${TR(1)}"] [data-invoice-number]`).innerText(),
                "2026-0007",
              );
              assert.equal(await page.locator("[data-invoice-tranche]").count(), 2);
              assert.match(await page.locator("p.meta").innerText(), /For Acme <b>GmbH<\/b>/);
              await h.noOverflow(`offer ${vpName} ${theme}`);
              await assertNoAxeViolations(page, `offer view ${vpName} ${theme}`);

              h.answer = () => ok(trancheInvoice(2, "2026-0042"));
              await page.locator(`[data-invoice-tranche][data-tranche-id="${TR(2)}"]`).click();
              await page.locator("[data-outcome]").waitFor();
              assert.deepEqual(h.calls, [
                {
                  name: "generate_invoice_from_offer_tranche",
                  args: { offerId: OFFER_ID, trancheId: TR(2) },
                },
              ]);
              assert.equal(await h.attr("[data-outcome]", "data-invoice-number"), "2026-0042");
              assert.match(
                await page.locator("[data-outcome]").innerText(),
                /^Invoice 2026-0042 created for On delivery/,
              );
              assert.equal(
                await h.attr(`[data-tranche][data-tranche-id="${TR(2)}"]`, "data-status"),
                "invoiced",
              );
              assert.equal(
                await h.attr(`[data-tranche][data-tranche-id="${TR(2)}"]`, "data-invoice-number"),
                "2026-0042",
              );
              assert.equal(await total("open"), "2500.00");
              assert.equal(await total("invoiced"), "10000.00");

              h.calls = [];
              h.answer = () => refused("forbidden: your role may not issue invoices (finance_collections)");
              await page.locator(`[data-invoice-tranche][data-tranche-id="${TR(3)}"]`).click();
              await page.locator("[role=alert][data-alert]").waitFor();
              assert.equal(
                await page.locator("[role=alert]").innerText(),
                "forbidden: your role may not issue invoices (finance_collections)",
              );
              assert.equal(
                await h.attr(`[data-tranche][data-tranche-id="${TR(3)}"]`, "data-status"),
                "to_invoice",
              );

              h.answer = () => ({
                content: [{ type: "text", text: "Confirm: invoice Support for €2,500.00?" }],
              });
              await page.locator(`[data-invoice-tranche][data-tranche-id="${TR(3)}"]`).focus();
              await page.keyboard.press("Enter");
              await page.locator("[role=alert][data-confirm]").waitFor();
              assert.equal(
                await page.locator("[data-confirm]").innerText(),
                "Confirm: invoice Support for €2,500.00?",
              );
              assert.equal(h.calls.length, 2);
              // a 2026-07-28 input_required answer passed on by the host: its elicitation's message is shown
              h.answer = () => ({
                resultType: "input_required",
                inputRequests: {
                  confirm: {
                    method: "elicitation/create",
                    params: {
                      mode: "form",
                      message: "Invoice Support (€2,500.00) now?",
                      requestedSchema: {},
                    },
                  },
                },
                content: [],
              } as unknown as ToolResult);
              await page.locator(`[data-invoice-tranche][data-tranche-id="${TR(3)}"]`).click();
              await page.locator("[data-confirm]", { hasText: "Invoice Support (€2,500.00) now?" }).waitFor();
              assert.equal(h.calls.length, 3);
              await assertNoAxeViolations(page, `offer view after invoicing ${vpName} ${theme}`);
            },
          );
        }

        for (const theme of THEMES) {
          await t.step(
            `week, ${vpName}, ${theme}: day-by-hour grid, totals per day and project/category, axe`,
            async () => {
              await h.mount(weekJs.script, { input: WEEK_INPUT, result: timeLogs(), theme });
              assert.equal(await h.attr("[data-range]", "data-from"), "2026-11-23");
              assert.equal(await h.attr("[data-range]", "data-to"), "2026-11-29");
              assert.equal(await page.locator("[data-day]").count(), 7);
              assert.equal(await page.locator("[data-log]").count(), 5);
              assert.match(
                (await h.attr('[data-log][data-start="09:00"][data-date="2026-11-23"]', "aria-label"))!,
                /^Mon 23 Nov 09:00–11:30, Website, Kick-off <i>call<\/i>, 2\.5 h$/,
              );
              const hours = (sel: string) => h.attr(sel, "data-hours");
              assert.equal(await hours('[data-total="all"]'), "11.75");
              assert.equal(await hours(`[data-total="group"][data-group-id="${P1}"]`), "8.00");
              assert.equal(await hours(`[data-total="group"][data-group-id="${P2}"]`), "3.00");
              assert.equal(await hours('[data-total="group"][data-group-id=""]'), "0.75");
              assert.equal(await hours('[data-total="day"][data-date="2026-11-23"]'), "6.50");
              assert.equal(await hours('[data-total="day"][data-date="2026-11-29"]'), "0.00");
              assert.equal(await hours(`[data-cell][data-group-id="${P1}"][data-date="2026-11-23"]`), "6.50");
              await h.noOverflow(`week ${vpName} ${theme}`);
              await assertNoAxeViolations(page, `week view ${vpName} ${theme}`);

              await page.locator('[data-group-by="category"]').click();
              assert.equal(await h.attr('[data-group-by="category"]', "aria-pressed"), "true");
              assert.equal(await hours(`[data-total="group"][data-group-id="${CAT}"]`), "3.25");
              assert.equal(await hours('[data-total="group"][data-group-id=""]'), "8.50");
              assert.equal(await hours('[data-total="all"]'), "11.75");

              await h.mount(weekJs.script, { input: WEEK_INPUT, result: timeSummary(), theme });
              assert.equal(await hours("[data-summary] [data-total=all]"), "11.75");
              assert.equal(await hours("[data-total=billable]"), "11.75");
              assert.equal(await hours(`[data-total=project][data-project-id="${P1}"]`), "8.00");
              assert.equal(await hours("[data-total=no-project]"), "0.75");
              assert.equal(await hours(`[data-total=category][data-category-id="${CAT}"]`), "3.25");
              assert.equal(h.calls.length, 0);
              await h.noOverflow(`week summary ${vpName} ${theme}`);
              await assertNoAxeViolations(page, `week summary ${vpName} ${theme}`);
            },
          );
        }
        if (vpName === "phone") {
          await t.step("every view at 360 px wide: no sideways scrolling", async () => {
            await page.setViewportSize({ width: 360, height: 740 });
            await h.mount(planJs.script, { input: PLAN_INPUT, result: plan(), theme: "light" });
            await h.noOverflow("plan at 360 px");
            await h.mount(offerJs.script, { input: { offerId: OFFER_ID }, result: offer(), theme: "light" });
            await h.noOverflow("offer at 360 px");
            await h.mount(weekJs.script, { input: WEEK_INPUT, result: timeLogs(), theme: "light" });
            await h.noOverflow("week at 360 px");
          });
        }
        await page.close();
      }
    } finally {
      await browser.close();
    }
  },
});

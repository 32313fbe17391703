// End to end, in Chromium: a test host embeds each MCP Apps view (ui://portico/plan, offer, week) through the
// official AppBridge of @modelcontextprotocol/ext-apps, connected to a running Portico with an API key and with a
// Bearer token. It feeds each view a real tool result, checks what it shows (bars, dates, totals), that moving a
// ghost bar and invoicing a tranche reach /mcp as tool calls with the right arguments (and the audit trail names
// them), that a manager without the invoices role sees the refusal in the view, axe-core at zero WCAG 2.2 AA
// violations in light and dark, and screenshots at two sizes in docs/screenshots/apps-*.png (one host page per view
// and theme, the theme being the host's; the phone size is the same page re-laid out at 390×844).
import assert from "node:assert/strict";
import type { Browser, Frame, Page } from "playwright-core";
import { createApiKey } from "../../lib/api_keys.ts";
import { createAuditLog } from "../../lib/audit.ts";
import { createUser } from "../../lib/accounts.ts";
import { parseConfig } from "../../lib/config.ts";
import { todayUtc } from "../../lib/dates.ts";
import { seedDemo } from "../../lib/demo.ts";
import { silentLogger } from "../../lib/log.ts";
import { addMember } from "../../lib/workspace/workspaces.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { bearerFor } from "../helpers/bearer.ts";
import {
  assertNoAxeViolations,
  haveChromium,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { MCP_URL, postMcp } from "../helpers/mcp.ts";
import { type HttpTarget, serveApp } from "../helpers/serve.ts";
import { hostPage, type ToolCallRecord } from "./apps_host/host.ts";

warnIfMissing("tests/e2e/mcp_apps.test.ts");

// deno-lint-ignore no-explicit-any
type Json = any;

/**
 * Screenshots go to docs/screenshots/ with UPDATE_SNAPSHOTS=1 only: the images change with the date and the demo
 * data, so an ordinary run must not rewrite committed files; it takes them in a temporary folder, then removes it.
 */
const UPDATE_SHOTS = Deno.env.get("UPDATE_SNAPSHOTS") === "1";

Deno.test({
  name: "Chromium MCP Apps host (AppBridge): plan, offer and week views with a key and a Bearer token",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const demo = await seedDemo(db.sql, { scrypt: TEST_SCRYPT });
    const { workspaceId, users } = demo.ctx;
    const manager =
      (await createUser(db.sql, { email: "mia@example.com", password: "manager pw 123", name: "Mia" }, {
        scrypt: TEST_SCRYPT,
      }))
        .id;
    await addMember(db.sql, workspaceId, manager, "manager", null);
    const managerKey =
      (await createApiKey(db.sql, { workspaceId, userId: manager, kind: "user", name: "m" })).key;
    const bearer = await bearerFor(db.sql, { userId: users.owner, workspaceId });

    const audit = createAuditLog(db.sql, silentLogger);
    const config = parseConfig({
      ISSUER: "http://localhost:8000",
      SECRET_KEY: TEST_SECRET,
      ...TEST_RATE_LIMITS,
    });
    const portico = serveApp(
      createApp({
        config,
        sql: db.sql,
        log: silentLogger,
        secretKey: TEST_SECRET,
        scrypt: TEST_SCRYPT,
        audit,
      }),
    );
    const host = await hostPage();
    let browser: Browser | undefined;
    /** One JSON-RPC request to Portico as a host that declared MCP Apps (/mcp?apps=1). */
    async function mcp(
      credential: string,
      method: string,
      params: unknown,
      target: HttpTarget = portico,
    ): Promise<Json> {
      const res = await postMcp(
        { request: (_u, init) => target.request(`${MCP_URL}?apps=1`, init) },
        credential,
        { jsonrpc: "2.0", id: 1, method, params },
      );
      assert.equal(res.status, 200);
      return (await res.json()).result;
    }
    async function tool(credential: string, name: string, args: Record<string, unknown>): Promise<Json> {
      const r = await mcp(credential, "tools/call", { name, arguments: args });
      assert.notEqual(r.isError, true, `${name}: ${JSON.stringify(r.content)}`);
      return r;
    }
    const viewHtml = async (credential: string, name: string): Promise<string> => {
      const tools = (await mcp(credential, "tools/list", {})).tools as Json[];
      const uri = `ui://portico/${name}`;
      assert.ok(tools.some((x) => x._meta?.ui?.resourceUri === uri), `a tool names ${uri}`);
      const read = await mcp(credential, "resources/read", { uri });
      assert.equal(read.contents[0].mimeType, "text/html;profile=mcp-app");
      return read.contents[0].text;
    };

    /** A page of the host showing one view; the view's tool calls go through `credential` and are recorded. */
    async function show(
      credential: string,
      view: string,
      toolName: string,
      args: Record<string, unknown>,
      result: Json,
      opts: { theme?: "light" | "dark"; size?: keyof typeof VIEWPORTS; target?: HttpTarget } = {},
    ): Promise<{ page: Page; frame: Frame; calls: ToolCallRecord[] }> {
      const page = await browser!.newPage({ viewport: VIEWPORTS[opts.size ?? "desktop"] });
      const calls: ToolCallRecord[] = [];
      await page.exposeFunction("hostCallTool", async (params: { name: string; arguments?: Json }) => {
        calls.push({ name: params.name, arguments: params.arguments ?? {} });
        return await mcp(credential, "tools/call", params, opts.target);
      });
      await page.goto(host.url);
      const html = await viewHtml(credential, view);
      await page.evaluate(
        (e) => (globalThis as unknown as { embed(e: unknown): Promise<void> }).embed(e),
        { html, tool: toolName, args, result, theme: opts.theme ?? "light" },
      );
      const frame = page.frames().find((f) => f !== page.mainFrame());
      assert.ok(frame, "the view's frame");
      await frame.locator(`[data-view=${view}]`).waitFor();
      return { page, frame, calls };
    }

    try {
      browser = await launchChromium();

      const today = todayUtc();
      const to = new Date(Date.parse(today) + 59 * 86_400_000).toISOString().slice(0, 10);
      const offerId = (await db.sql<{ id: string }[]>`
        select id from offers where workspace_id = ${workspaceId} and title = 'Website relaunch'`)[0].id;

      await t.step("axe-core finds nothing and screenshots at two sizes, light and dark", async () => {
        const shots = UPDATE_SHOTS
          ? new URL("../../docs/screenshots/", import.meta.url)
          : new URL(`file://${await Deno.makeTempDir({ prefix: "portico-apps-shots-" })}/`);
        const lastWeek = {
          startDate: new Date(Date.parse(today) - 6 * 86_400_000).toISOString().slice(0, 10),
          endDate: today,
        };
        const args = { from: today, to };
        const results: Record<string, [string, Json, Record<string, unknown>]> = {
          plan: ["gantt_plan", await tool(demo.apiKey, "gantt_plan", args), args],
          offer: ["get_offer", await tool(demo.apiKey, "get_offer", { offerId }), { offerId }],
          week: ["list_time_logs", await tool(demo.apiKey, "list_time_logs", lastWeek), lastWeek],
        };
        try {
          for (const [view, [toolName, result, a]] of Object.entries(results)) {
            for (const theme of ["light", "dark"] as const) {
              // The theme is the host's: one page each. The size is the viewport's: the same page, re-laid out.
              const { page, frame } = await show(demo.apiKey, view, toolName, a, result, {
                theme,
                size: "desktop",
              });
              try {
                assert.equal(await frame.locator(`[data-view=${view}]`).getAttribute("data-theme"), theme);
                for (const size of ["desktop", "phone"] as const) {
                  await page.setViewportSize(VIEWPORTS[size]);
                  await laidOut(page, frame, VIEWPORTS[size].width);
                  await assertNoAxeViolations(frame as unknown as Page, `${view} view (${theme}, ${size})`);
                  const path = new URL(`apps-${view}-${size}-${theme}.png`, shots).pathname;
                  await screenshotFrame(page, path);
                  assert.ok((await Deno.stat(path)).size > 10_000, `${path}: not a blank image`);
                }
              } finally {
                await page.close();
              }
            }
          }
        } finally {
          if (!UPDATE_SHOTS) await Deno.remove(shots, { recursive: true });
        }
      });
      await t.step(
        "a manager (no invoices role) sees the refusal in the offer view; the call reached /mcp",
        async () => {
          const offer = await tool(managerKey, "get_offer", { offerId });
          const { page, frame, calls } = await show(managerKey, "offer", "get_offer", { offerId }, offer);
          try {
            await frame.locator("[data-invoice-tranche]").first().click();
            const alert = frame.locator("[data-alert]");
            await alert.waitFor();
            assert.match(await alert.innerText(), /access_denied/);
            assert.equal(calls[0].name, "generate_invoice_from_offer_tranche");
          } finally {
            await page.close();
          }
        },
      );

      for (const [way, credential] of [["API key", demo.apiKey], ["Bearer token", bearer.auth]] as const) {
        await t.step(
          `${way}: the plan shows every bar and window; moving a ghost bar calls set_task_queue_position`,
          async () => {
            const args = { from: today, to };
            const plan = await tool(credential, "gantt_plan", args);
            const data = plan.structuredContent;
            const { page, frame, calls } = await show(credential, "plan", "gantt_plan", args, plan);
            try {
              const w = frame.locator("[data-window]");
              assert.equal(await w.getAttribute("data-from"), data.from);
              assert.equal(await w.getAttribute("data-to"), data.to);
              assert.equal(await w.getAttribute("data-today"), today);
              assert.equal(await frame.locator("li[data-bar]").count(), data.bars.length);
              const ghosts = data.bars.filter((b: Json) => b.kind === "ghost");
              assert.ok(ghosts.length >= 2, "the demo plans a queue");
              assert.equal(await frame.locator("li[data-bar][data-ghost]").count(), ghosts.length);
              // The first ghost bar of a lane with two or more moves down one place.
              const lane = frame.locator("[data-lane]").filter({
                has: frame.locator("li[data-ghost] + li[data-ghost]"),
              })
                .first();
              const first = lane.locator("li[data-ghost][data-slot='0']");
              const taskId = await first.getAttribute("data-task-id");
              const userId = await first.getAttribute("data-user-id");
              await first.locator("[data-move=down]").click();
              await frame.locator("[role=status]").filter({ hasText: "Moved" }).waitFor();
              assert.deepEqual(calls[0], {
                name: "set_task_queue_position",
                arguments: { taskId, userId, slotIndex: 1 },
              });
              assert.deepEqual(calls[1], { name: "gantt_plan", arguments: args });
              const moved = frame.locator(`li[data-bar][data-task-id="${taskId}"][data-user-id="${userId}"]`);
              assert.equal(await moved.getAttribute("data-slot"), "1");
            } finally {
              await page.close();
            }
          },
        );

        await t.step(
          `${way}: the offer shows rows and totals; invoicing a tranche calls generate_invoice_from_offer_tranche`,
          async () => {
            const offer = await tool(credential, "get_offer", { offerId });
            const data = offer.structuredContent;
            const { page, frame, calls } = await show(credential, "offer", "get_offer", { offerId }, offer);
            try {
              assert.equal(await frame.locator("[data-row]").count(), data.rows.length);
              assert.equal(await frame.locator("[data-total=net]").getAttribute("data-amount"), data.total);
              assert.equal(await frame.locator("[data-tranche]").count(), data.tranches.length);
              const open = frame.locator("[data-invoice-tranche]").first();
              const trancheId = await open.getAttribute("data-tranche-id");
              await open.click();
              const status = frame.locator("[role=status][data-invoice-number]");
              await status.waitFor();
              const number = await status.getAttribute("data-invoice-number");
              assert.deepEqual(calls, [{
                name: "generate_invoice_from_offer_tranche",
                arguments: { offerId, trancheId },
              }]);
              const [row] = await db.sql<{ number: string }[]>`
              select i.number from offer_tranches t join invoices i on i.id = t.invoice_id where t.id = ${trancheId}`;
              assert.equal(row.number, number);
              assert.equal(
                await frame.locator(`[data-tranche][data-tranche-id="${trancheId}"]`).getAttribute(
                  "data-status",
                ),
                "invoiced",
              );
            } finally {
              await page.close();
            }
          },
        );

        await t.step(
          `${way}: the week shows the logs and their total hours, and time_log_summary's totals`,
          async () => {
            const args = {
              startDate: new Date(Date.parse(today) - 6 * 86_400_000).toISOString().slice(0, 10),
              endDate: today,
            };
            const logs = await tool(credential, "list_time_logs", args);
            const items = logs.structuredContent.items as Json[];
            assert.ok(items.length >= 4);
            const { page, frame } = await show(credential, "week", "list_time_logs", args, logs);
            try {
              assert.equal(await frame.locator("[data-log]").count(), items.length);
              const minutes = items.reduce((s: number, l: Json) => s + minutesOf(l), 0);
              const all = await frame.locator("[data-total=all]").first().getAttribute("data-hours");
              assert.equal(all, (minutes / 60).toFixed(2));
            } finally {
              await page.close();
            }
            // time_log_summary's answer in the same view: its totals.
            const summary = await tool(credential, "time_log_summary", args);
            const shown = await show(credential, "week", "time_log_summary", args, summary);
            try {
              const total = shown.frame.locator("[data-summary] [data-total=all]");
              assert.equal(
                await total.getAttribute("data-hours"),
                summary.structuredContent.totalHours.toFixed(2),
              );
              const minutes = items.reduce((s: number, l: Json) => s + minutesOf(l), 0);
              assert.equal((minutes / 60).toFixed(2), summary.structuredContent.totalHours.toFixed(2));
            } finally {
              await shown.page.close();
            }
          },
        );
      }

      await t.step(
        "create_offer's answer in the offer view; under CONFIRM_WRITES=require a 2025 host's invoice is refused in the view",
        async () => {
          const strict = serveApp(createApp({
            config: parseConfig({
              ISSUER: "http://localhost:8000",
              SECRET_KEY: TEST_SECRET,
              CONFIRM_WRITES: "require",
              ...TEST_RATE_LIMITS,
            }),
            sql: db.sql,
            log: silentLogger,
            secretKey: TEST_SECRET,
            scrypt: TEST_SCRYPT,
          }));
          try {
            const [client] = await db.sql<{ id: string }[]>`
              select id from clients where workspace_id = ${workspaceId} order by created_at limit 1`;
            const args = {
              subject: "Maintenance",
              clientId: client.id,
              offerDate: today,
              currency: "CHF",
              rows: [{ description: "Support", quantity: 4, unitPrice: "120.00" }],
              tranches: [{ label: "Half", percentage: 50 }, { label: "Rest", percentage: 50 }],
            };
            const created = await mcp(
              demo.apiKey,
              "tools/call",
              { name: "create_offer", arguments: args },
              strict,
            );
            const data = created.structuredContent;
            const { page, frame, calls } = await show(demo.apiKey, "offer", "create_offer", args, created, {
              target: strict,
            });
            try {
              assert.equal(await frame.locator("[data-row]").count(), 1);
              assert.equal(await frame.locator("[data-tranche]").count(), 2);
              assert.equal(await frame.locator("[data-total=net]").getAttribute("data-amount"), data.total);
              await frame.locator("[data-invoice-tranche]").first().click();
              const alert = frame.locator("[data-alert]");
              await alert.waitFor();
              assert.match(await alert.innerText(), /^access_denied: .*CONFIRM_WRITES=require/);
              assert.equal(calls[0].name, "generate_invoice_from_offer_tranche");
              const invoiced = await db.sql`
                select 1 from offer_tranches where offer_id = ${data.id} and invoice_id is not null`;
              assert.equal(invoiced.length, 0);
            } finally {
              await page.close();
            }
          } finally {
            await strict.close();
          }
        },
      );

      await t.step(
        "the audit trail names each tool the views called, for the person who called it",
        async () => {
          await audit.flush();
          const rows = await db.sql<{ tool: string; outcome: string; user_id: string }[]>`
          select tool, outcome, user_id from audit_log
           where workspace_id = ${workspaceId}
             and tool in ('set_task_queue_position', 'generate_invoice_from_offer_tranche')
           order by id`;
          const seen = rows.map((r) =>
            `${r.tool} ${r.outcome} ${r.user_id === manager ? "manager" : "owner"}`
          );
          assert.deepEqual(seen, [
            "generate_invoice_from_offer_tranche denied manager",
            "set_task_queue_position ok owner",
            "generate_invoice_from_offer_tranche ok owner",
            "set_task_queue_position ok owner",
            "generate_invoice_from_offer_tranche ok owner",
          ]);
        },
      );
    } finally {
      await browser?.close();
      await host.close();
      await portico.close();
      await audit.close();
      await db.close();
    }
  },
});

/**
 * Waits until the view fills a host of `width` and the host's iframe is as tall as the view says it is (its
 * ui/notifications/size-changed): after a resize, what axe and the screenshot see is the view re-laid out.
 */
async function laidOut(page: Page, frame: Frame, width: number): Promise<void> {
  // deno-lint-ignore no-explicit-any
  await frame.waitForFunction((w) => (globalThis as any).innerWidth === w, width);
  const height = await frame.evaluate(() =>
    // deno-lint-ignore no-explicit-any
    Math.ceil((globalThis as any).document.documentElement.getBoundingClientRect().height)
  );
  await page.waitForFunction(
    // deno-lint-ignore no-explicit-any
    (h) => (globalThis as any).document.querySelector("iframe").getBoundingClientRect().height === h,
    height,
  );
}

/**
 * The host's iframe, whole. When it is taller than the viewport, Chromium captures it beyond the viewport, and now
 * and then before the sandboxed view has painted there: a blank image (5 of 54 shots on a loaded host, none of 72
 * this way). The viewport is made as tall as the frame for the shot (same width, so the same layout), then put back.
 */
async function screenshotFrame(page: Page, path: string): Promise<void> {
  const size = page.viewportSize()!;
  const iframe = page.locator("iframe");
  const height = await iframe.evaluate((el) => Math.ceil(el.getBoundingClientRect().height));
  if (height > size.height) await page.setViewportSize({ width: size.width, height });
  await iframe.screenshot({ path });
  await page.setViewportSize(size);
}

/** A log's minutes from its HH:MM start and end (what the week view adds up). */
function minutesOf(l: Json): number {
  const m = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
  return m(l.endTime) - m(l.startTime);
}

// The plan view (MCP Apps, issue 26): gantt_plan's answer as people's lanes of solid and ghost bars.
//
// data-* contract (stable; tests and the host test read these):
//   [data-view=plan]            the view's frame; data-theme="light"|"dark"
//   [data-window]               the window: data-from, data-to, data-today (YYYY-MM-DD)
//   [data-lane]                 one person's lane: data-user-id (UUID, "" for unassigned dated tasks), data-ghost-count
//   [data-bar]                  one bar (li): data-task-id, data-user-id, data-kind="solid"|"ghost", data-start,
//                               data-end, data-status, data-due (or absent), data-overdue / data-late (present when
//                               flagged), data-slot (ghost bars: 0-based position among the lane's ghost bars)
//   [data-ghost]                present on ghost bars (the li and the drawn bar)
//   [data-bar-shape]            the drawn bar (role=img, aria-label naming task, person, dates, status, flags)
//   [data-today-line]           today's line in a track (when today is in the window)
//   [data-tick]                 a date on the window's axis (data-date): its first day, Mondays between, its last day
//   [data-move="up"|"down"]     the buttons moving a ghost bar in its person's queue
//   [data-open-task]            the button opening a task (data-task-id) in the side panel
//   [data-task-panel]           the side panel with get_task's answer (data-task-id)
//   [data-beyond]               tasks beyond the horizon: data-total; each li [data-beyond-task] data-task-id
//   [data-truncated]            "showing n of total" when the answer was cut by limit
//   [data-alert]                a refusal (role=alert); [data-outcome] an outcome (role=status)
import { useEffect, useRef, useState } from "preact/hooks";
import { type Bar, barText, isOverdue, label, type Lane, lanesOf, readBar, ticksOf } from "./plan_model.ts";
import {
  Alert,
  arr,
  dayNum,
  Frame,
  mountView,
  num,
  obj,
  refusalOf,
  shortDate,
  Status,
  str,
  structured,
  thrownText,
} from "./shared.tsx";
import { TaskPanel } from "./task_panel.tsx";
import type { ViewContext } from "./view_context.ts";

const CSS = `
.pv .head { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: baseline; }
.pv .legend { display: flex; flex-wrap: wrap; gap: .25rem .75rem; font-size: .8rem; margin: .25rem 0 .5rem; }
.pv .sw { display: inline-block; width: 1.4rem; height: .7rem; border-radius: 3px; vertical-align: middle;
  margin-right: .25rem; }
.pv .lane { border-top: 1px solid var(--line); padding: .4rem 0; }
.pv .lane h2 { margin: .2rem 0 .3rem; font-size: .95rem; }
.pv ul.bars { list-style: none; margin: 0; padding: 0; }
.pv li.row { display: grid; grid-template-columns: minmax(9rem, 15rem) 1fr 4.5rem; gap: .25rem .5rem;
  align-items: center; padding: .15rem 0; }
.pv .title { text-align: left; background: none; border: none; color: var(--fg); padding: .1rem .2rem;
  font-size: .85rem; text-decoration: underline dotted; overflow-wrap: anywhere; }
.pv .track { position: relative; height: 1.4rem; background: var(--card); border-radius: 4px; min-width: 6rem; }
.pv .bar { position: absolute; top: .2rem; bottom: .2rem; min-width: 4px; border-radius: 4px; background: var(--solid);
  border: 2px solid var(--solid); }
.pv .bar.ghost { background: var(--ghost); border-style: dashed; }
.pv .bar.cs { border-top-left-radius: 0; border-bottom-left-radius: 0; }
.pv .bar.ce { border-top-right-radius: 0; border-bottom-right-radius: 0; }
.pv .bar.late, .pv .bar.overdue { border-color: var(--danger); }
.pv .due { position: absolute; top: 0; bottom: 0; width: 2px; background: var(--warn); }
.pv .today { position: absolute; top: -.1rem; bottom: -.1rem; width: 2px; background: var(--today); }
.pv .moves { display: flex; gap: .25rem; justify-content: flex-end; }
.pv .moves button { padding: .1rem .45rem; }
.pv .flags { display: inline-flex; gap: .25rem; margin-left: .25rem; }
.pv .axis { display: grid; grid-template-columns: minmax(9rem, 15rem) 1fr 4.5rem; gap: .5rem; font-size: .75rem; }
.pv .axis .scale { position: relative; height: 1.1rem; color: var(--muted); }
.pv .axis .scale span { position: absolute; white-space: nowrap; }
.pv .axis .scale span.tick { transform: translateX(-50%); }
.pv .axis .scale span.end { right: 0; }
.pv .layout { display: grid; grid-template-columns: 1fr; gap: 1rem; }
.pv .layout.open { grid-template-columns: minmax(0, 1fr) minmax(14rem, 22rem); }
.pv aside { border: 1px solid var(--line); border-radius: 8px; padding: .75rem; background: var(--card);
  align-self: start; overflow-wrap: anywhere; }
.pv aside dl { display: grid; grid-template-columns: auto 1fr; gap: .1rem .75rem; margin: .5rem 0; }
.pv aside dt { color: var(--muted); }
.pv aside dd { margin: 0; }
.pv .desc { white-space: pre-wrap; }
@media (max-width: 640px) {
  .pv li.row, .pv .axis { grid-template-columns: 1fr auto; }
  .pv li.row .track, .pv .axis .scale { grid-column: 1 / -1; grid-row: 2; }
  .pv .axis > span:first-child { display: none; }
  .pv .layout.open { grid-template-columns: 1fr; }
}
`;

function PlanView({ ctx }: { ctx: ViewContext }) {
  const [plan, setPlan] = useState<Record<string, unknown> | null>(ctx.result);
  const [busy, setBusy] = useState(false);
  const [alert, setAlert] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [panel, setPanel] = useState<{ task: Record<string, unknown> | null; error: string | null } | null>(
    null,
  );
  const [refocus, setRefocus] = useState<string | null>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!refocus || !rootRef.current) return;
    const el = rootRef.current.querySelector<HTMLButtonElement>(refocus);
    (el && !el.disabled
      ? el
      : rootRef.current.querySelector<HTMLElement>(refocus.replace(/\[data-move=.*$/, "[data-open-task]")))
      ?.focus();
    setRefocus(null);
  }, [refocus, plan]);

  if (!plan) return <p class="muted">Waiting for the plan…</p>;
  const from = str(plan.from) ?? "", to = str(plan.to) ?? "", today = str(plan.today) ?? "";
  const bars = arr(plan.bars).map(readBar).filter((b): b is Bar => b !== null);
  const lanes = lanesOf(bars);
  const f = dayNum(from), days = Math.max(1, dayNum(to) - f + 1);
  const pos = (d: string) => Math.min(100, Math.max(0, ((dayNum(d) - f) / days) * 100));
  const todayIn = today >= from && today <= to;
  const beyond = arr(plan.beyondHorizon).map(obj);
  const beyondTotal = num(plan.beyondHorizonTotal) ?? beyond.length;
  const locale = ctx.locale;
  const ticks = ticksOf(f, days);

  async function move(b: Bar, lane: Lane, dir: -1 | 1) {
    const slot = lane.ghosts.indexOf(b) + dir;
    if (!b.userId || slot < 0) return;
    setBusy(true);
    setAlert(null);
    setStatus(null);
    try {
      const r = await ctx.callTool("set_task_queue_position", {
        taskId: b.taskId,
        userId: b.userId,
        slotIndex: slot,
      });
      const refused = refusalOf(r, (s) => "slotIndex" in s || "task" in s);
      if (refused) {
        setAlert(refused);
        return;
      }
      const args = ctx.input ?? { from, to };
      const next = await ctx.callTool("gantt_plan", args);
      const again = refusalOf(next, (s) => Array.isArray(s.bars));
      if (again) {
        setAlert(again);
        return;
      }
      const got = num(structured(r)?.slotIndex) ?? slot;
      setPlan(structured(next));
      setStatus(`Moved ${label(b)} to place ${got + 1} in ${lane.name}'s queue.`);
      setRefocus(
        `[data-bar][data-task-id="${b.taskId}"][data-user-id="${b.userId}"] [data-move="${
          dir < 0 ? "up" : "down"
        }"]`,
      );
    } catch (err) {
      setAlert(thrownText(err));
    } finally {
      setBusy(false);
    }
  }

  async function open(taskId: string) {
    setPanel({ task: null, error: null });
    try {
      const r = await ctx.callTool("get_task", { taskId });
      const refused = refusalOf(r, (s) => typeof s.id === "string");
      setPanel(refused ? { task: null, error: refused } : { task: structured(r), error: null });
    } catch (err) {
      setPanel({ task: null, error: thrownText(err) });
    }
  }

  return (
    <div ref={rootRef}>
      <div class="head" data-window data-from={from} data-to={to} data-today={today}>
        <h1>Plan {shortDate(from, locale)} – {shortDate(to, locale)}</h1>
        <span class="muted">Today {shortDate(today, locale)}</span>
      </div>
      <div class="legend" aria-label="Legend">
        <span>
          <span class="sw" style={{ background: "var(--solid)" }} aria-hidden="true" />Scheduled
        </span>
        <span>
          <span
            class="sw"
            style={{ background: "var(--ghost)", border: "2px dashed var(--solid)" }}
            aria-hidden="true"
          />
          Auto-planned (queue)
        </span>
        <span>
          <span class="sw" style={{ background: "var(--today)", width: "3px" }} aria-hidden="true" />Today
        </span>
      </div>
      <Alert text={alert} />
      <Status text={status} />
      {plan.truncated === true && (
        <p class="muted" data-truncated>Showing {bars.length} of {num(plan.total) ?? bars.length} bars.</p>
      )}
      <div class={panel ? "layout open" : "layout"}>
        <div>
          {lanes.length === 0 && <p class="muted" data-empty>No bars in this window.</p>}
          {lanes.length > 0 && (
            <div class="axis" aria-hidden="true">
              <span />
              <span class="scale">
                <span style={{ left: 0 }} data-tick data-date={from}>{shortDate(from, locale)}</span>
                {ticks.labels.map((d) => (
                  <span class="tick" key={d} style={{ left: `${pos(d)}%` }} data-tick data-date={d}>
                    {shortDate(d, locale)}
                  </span>
                ))}
                <span class="end" data-tick data-date={to}>{shortDate(to, locale)}</span>
              </span>
            </div>
          )}
          {lanes.map((lane) => (
            <section
              class="lane"
              key={lane.userId ?? ""}
              data-lane
              data-user-id={lane.userId ?? ""}
              data-ghost-count={lane.ghosts.length}
              aria-labelledby={`lane-${lane.userId ?? "none"}`}
            >
              <h2 id={`lane-${lane.userId ?? "none"}`}>{lane.name}</h2>
              <ul class="bars">
                {lane.bars.map((b) => {
                  const overdue = isOverdue(b, today),
                    slot = lane.ghosts.indexOf(b),
                    ghost = b.kind === "ghost";
                  const cls = [
                    "bar",
                    b.kind,
                    b.clippedStart ? "cs" : "",
                    b.clippedEnd ? "ce" : "",
                    b.late ? "late" : "",
                    overdue ? "overdue" : "",
                  ].filter(Boolean).join(" ");
                  return (
                    <li
                      class="row"
                      key={`${b.taskId}:${b.kind}:${b.start}`}
                      data-bar
                      data-ghost={ghost ? "" : undefined}
                      data-task-id={b.taskId}
                      data-user-id={b.userId ?? ""}
                      data-kind={b.kind}
                      data-start={b.start}
                      data-end={b.end}
                      data-status={b.status}
                      data-due={b.dueDate ?? undefined}
                      data-overdue={overdue ? "" : undefined}
                      data-late={b.late ? "" : undefined}
                      data-slot={ghost ? slot : undefined}
                    >
                      <span>
                        <button
                          type="button"
                          class="title"
                          data-open-task
                          data-task-id={b.taskId}
                          aria-label={`Open ${label(b)}`}
                          onClick={() => open(b.taskId)}
                        >
                          {label(b)}
                        </button>
                        <span class="flags">
                          {overdue && <span class="tag danger">Overdue</span>}
                          {b.late && <span class="tag warn">Late forecast</span>}
                        </span>
                      </span>
                      <div class="track" style={ticks.lines}>
                        {b.dueDate && b.dueDate >= from && b.dueDate <= to && (
                          <span class="due" style={{ left: `${pos(b.dueDate)}%` }} aria-hidden="true" />
                        )}
                        <div
                          class={cls}
                          role="img"
                          aria-label={barText(b, lane, today, locale)}
                          data-bar-shape
                          data-ghost={ghost ? "" : undefined}
                          style={{
                            left: `${pos(b.start)}%`,
                            width: `${Math.max(0, ((dayNum(b.end) - dayNum(b.start) + 1) / days) * 100)}%`,
                          }}
                        />
                        {todayIn && (
                          <span
                            class="today"
                            style={{ left: `${pos(today)}%` }}
                            data-today-line
                            aria-hidden="true"
                          />
                        )}
                      </div>
                      <span class="moves">
                        {ghost && b.userId && (
                          <>
                            <button
                              type="button"
                              class="secondary"
                              data-move="up"
                              disabled={busy || slot <= 0}
                              aria-label={`Move ${label(b)} earlier in ${lane.name}'s queue`}
                              onClick={() => move(b, lane, -1)}
                            >
                              ↑
                            </button>
                            <button
                              type="button"
                              class="secondary"
                              data-move="down"
                              disabled={busy || slot >= lane.ghosts.length - 1}
                              aria-label={`Move ${label(b)} later in ${lane.name}'s queue`}
                              onClick={() => move(b, lane, 1)}
                            >
                              ↓
                            </button>
                          </>
                        )}
                      </span>
                    </li>
                  );
                })}
              </ul>
            </section>
          ))}
          {beyondTotal > 0 && (
            <section data-beyond data-total={beyondTotal} aria-labelledby="beyond-title">
              <h2 id="beyond-title">Beyond the horizon ({beyondTotal})</h2>
              <p class="muted">Queued work that would start after {str(plan.horizon) ?? "the horizon"}.</p>
              <ul>
                {beyond.map((t) => (
                  <li
                    key={`${str(t.taskId)}:${str(t.userId)}`}
                    data-beyond-task
                    data-task-id={str(t.taskId) ?? ""}
                  >
                    {(str(t.displayId) ? `${str(t.displayId)} ` : "") + (str(t.title) ?? "")} —{" "}
                    {str(t.userName) ?? "Unnamed person"}
                  </li>
                ))}
              </ul>
            </section>
          )}
        </div>
        {panel && <TaskPanel task={panel.task} error={panel.error} onClose={() => setPanel(null)} />}
      </div>
    </div>
  );
}

function Plan({ ctx }: { ctx: ViewContext }) {
  return (
    <Frame theme={ctx.theme} css={CSS} view="plan">
      <PlanView ctx={ctx} />
    </Frame>
  );
}

/** Renders gantt_plan's structuredContent (ctx.result) into root; called again, starts afresh. */
export function mount(root: HTMLElement, ctx: ViewContext): void {
  mountView(Plan, root, ctx);
}

// The week view (MCP Apps, issue 26): list_time_logs' page as a day-by-hour grid and a table of hours per day and
// per project or category; time_log_summary's answer as totals per project and category.
//
// data-* contract (stable; tests and the host test read these):
//   [data-view=week]            the view's frame; data-theme="light"|"dark"
//   [data-range]                the range shown: data-from, data-to (YYYY-MM-DD; from the input, else the logs)
//   [data-group-by]             the buttons choosing "project" | "category" (aria-pressed)
//   [data-day]                  a day's row of the hour grid: data-date; in it [data-log] per log: data-log-id,
//                               data-date, data-start, data-end (HH:MM), data-group-id, role=img with aria-label
//   [data-cell]                 a table cell: data-date, data-group-id, data-hours (sum, 2 decimals)
//   [data-total]                data-total="day" (data-date), "group" (data-group-id), "all"; data-hours
//   [data-partial]              the page holds only part of the logs (hasMore): totals cover the page
//   summary (time_log_summary): [data-summary]; [data-total="all"|"billable"|"project"|"category"|"no-project"]
//                               with data-hours (and data-project-id / data-category-id)
import { Fragment } from "preact";
import { useState } from "preact/hooks";
import {
  arr,
  dayLabel,
  dayNum,
  dayStr,
  Frame,
  mountView,
  num,
  obj,
  Scroll,
  shortDate,
  str,
} from "./shared.tsx";
import type { ViewContext } from "./view_context.ts";

const CSS = `
.pv { --c0: #2557d6; --c1: #1e7a3c; --c2: #b3261e; --c3: #8a5a00; --c4: #7b3fb8; --c5: #0b7285; }
.pv[data-theme=dark] { --c0: #7aa2ff; --c1: #7bd88f; --c2: #ff8a80; --c3: #ffcc66; --c4: #c9a2ff; --c5: #66d9e8; }
.pv .toggle { display: flex; gap: .25rem; margin: .25rem 0 .5rem; }
.pv .toggle button[aria-pressed=false] { background: transparent; color: var(--accent); }
.pv .grid { display: grid; grid-template-columns: 7rem 1fr; gap: .2rem .5rem; align-items: center; margin-bottom: .5rem;
  padding-right: 1.25rem; }
.pv .hours { position: relative; height: 1rem; font-size: .7rem; color: var(--muted); }
.pv .hours span { position: absolute; transform: translateX(-50%); }
.pv .dtrack { position: relative; height: 1.6rem; background: var(--card); border-radius: 4px;
  background-image: repeating-linear-gradient(to right, var(--line) 0 1px, transparent 1px var(--hw)); }
.pv .log { position: absolute; top: .2rem; bottom: .2rem; min-width: 3px; border-radius: 3px; opacity: .9; }
.pv .key { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .35rem;
  vertical-align: middle; }
.pv tfoot th, .pv tfoot td { font-weight: 700; border-top: 2px solid var(--line); }
.pv .grid > span, .pv tbody th { white-space: nowrap; }
@media (max-width: 560px) { .pv .grid { grid-template-columns: 5.5rem 1fr; font-size: .8rem; padding-right: .75rem; } }
`;

interface Log {
  id: string;
  date: string;
  start: string;
  end: string;
  minutes: number;
  projectId: string | null;
  projectName: string | null;
  categoryId: string | null;
  categoryName: string | null;
  taskTitle: string | null;
  description: string;
}

/** "09:30" or "09:30:00" → minutes after midnight, or NaN. */
function clock(t: string): number {
  const m = /^(\d{1,2}):(\d{2})/.exec(t);
  return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
}

function readLog(v: unknown): Log | null {
  const l = obj(v);
  const id = str(l.id), date = str(l.date), start = str(l.startTime), end = str(l.endTime);
  if (!id || !date || !start || !end) return null;
  const byClock = clock(end) - clock(start);
  const minutes = Number.isFinite(byClock) && byClock >= 0 ? byClock : Math.round((num(l.hours) ?? 0) * 60);
  return {
    id,
    date,
    start: start.slice(0, 5),
    end: end.slice(0, 5),
    minutes,
    projectId: str(l.projectId),
    projectName: str(l.projectName),
    categoryId: str(l.categoryId),
    categoryName: str(l.categoryName),
    taskTitle: str(l.taskTitle),
    description: str(l.description) ?? "",
  };
}

const hours = (minutes: number) => (Math.round((minutes / 60) * 100) / 100).toFixed(2);
const shownHours = (minutes: number) => `${Number(hours(minutes))} h`;

type GroupBy = "project" | "category";

function groupOf(l: Log, by: GroupBy): { id: string; name: string } {
  if (by === "project") {
    return l.projectId
      ? { id: l.projectId, name: l.projectName ?? "Project (not visible)" }
      : { id: "", name: "No project" };
  }
  return l.categoryId
    ? { id: l.categoryId, name: l.categoryName ?? "Category" }
    : { id: "", name: "No category" };
}

function LogsView({ ctx, result }: { ctx: ViewContext; result: Record<string, unknown> }) {
  const [by, setBy] = useState<GroupBy>("project");
  const logs = arr(result.items).map(readLog).filter((l): l is Log => l !== null);
  const input = ctx.input ?? {};
  const dates = logs.map((l) => l.date).sort();
  const from = str(input.startDate) ?? dates[0] ?? "";
  const to = str(input.endDate) ?? dates[dates.length - 1] ?? from;
  const locale = ctx.locale;
  let days: string[] = [];
  const span = dayNum(to) - dayNum(from) + 1;
  if (from && Number.isFinite(span) && span > 0 && span <= 31) {
    for (let d = dayNum(from); d <= dayNum(to); d++) days.push(dayStr(d));
  } else days = [...new Set(dates)];
  const groups = new Map<string, { id: string; name: string; color: number; minutes: number }>();
  for (const l of logs) {
    const g = groupOf(l, by);
    const cur = groups.get(g.id) ?? { ...g, color: groups.size % 6, minutes: 0 };
    cur.minutes += l.minutes;
    groups.set(g.id, cur);
  }
  const cell = new Map<string, number>();
  for (const l of logs) {
    const k = `${groupOf(l, by).id}|${l.date}`;
    cell.set(k, (cell.get(k) ?? 0) + l.minutes);
  }
  const dayTotal = (d: string) => logs.filter((l) => l.date === d).reduce((s, l) => s + l.minutes, 0);
  const all = logs.reduce((s, l) => s + l.minutes, 0);
  const starts = logs.map((l) => clock(l.start)).filter(Number.isFinite);
  const ends = logs.map((l) => clock(l.end)).filter(Number.isFinite);
  const h0 = starts.length ? Math.min(8, Math.floor(Math.min(...starts) / 60)) : 8;
  const h1 = ends.length ? Math.max(18, Math.ceil(Math.max(...ends) / 60)) : 18;
  const spanMin = Math.max(60, (h1 - h0) * 60);
  const at = (m: number) => Math.min(100, Math.max(0, ((m - h0 * 60) / spanMin) * 100));
  const ticks: number[] = [];
  for (let h = h0; h <= h1; h += h1 - h0 > 12 ? 4 : 2) ticks.push(h);
  const groupList = [...groups.values()].sort((a, b) =>
    b.minutes - a.minutes || a.name.localeCompare(b.name)
  );
  const what = by === "project" ? "Project" : "Category";
  return (
    <>
      <h1 data-range data-from={from} data-to={to}>
        Time {from ? `${shortDate(from, locale)} – ${shortDate(to, locale)}` : ""}
      </h1>
      <p class="muted">{logs.length} logs, {shownHours(all)}</p>
      {result.hasMore === true && (
        <p class="alert" data-partial>
          This page holds {logs.length} of {num(result.total) ?? "more"}{" "}
          logs; the totals cover this page only.
        </p>
      )}
      <div class="toggle" role="group" aria-label="Group by">
        {(["project", "category"] as const).map((g) => (
          <button
            type="button"
            key={g}
            data-group-by={g}
            aria-pressed={by === g}
            onClick={() => setBy(g)}
          >
            By {g}
          </button>
        ))}
      </div>
      <h2>Day by hour</h2>
      <div class="grid" style={{ "--hw": `${(60 / spanMin) * 100}%` }}>
        <span />
        <div class="hours" aria-hidden="true">
          {ticks.map((h) => <span key={h} style={{ left: `${at(h * 60)}%` }}>{`${h}:00`}</span>)}
        </div>
        {days.map((d) => (
          <Fragment key={d}>
            <span>{dayLabel(d, locale)}</span>
            <div class="dtrack" data-day data-date={d}>
              {logs.filter((l) => l.date === d).map((l) => {
                const g = groupOf(l, by), color = groups.get(g.id)?.color ?? 0;
                const s = clock(l.start), e = clock(l.end);
                return (
                  <div
                    key={l.id}
                    class="log"
                    role="img"
                    data-log
                    data-log-id={l.id}
                    data-date={l.date}
                    data-start={l.start}
                    data-end={l.end}
                    data-group-id={g.id}
                    aria-label={`${dayLabel(d, locale)} ${l.start}–${l.end}, ${g.name}` +
                      (l.taskTitle ? `, ${l.taskTitle}` : "") + (l.description ? `, ${l.description}` : "") +
                      `, ${shownHours(l.minutes)}`}
                    style={{
                      left: `${at(s)}%`,
                      width: `${Math.max(0, at(e) - at(s))}%`,
                      background: `var(--c${color})`,
                    }}
                  />
                );
              })}
            </div>
          </Fragment>
        ))}
      </div>
      <h2>Hours per day</h2>
      <Scroll label="Hours per day">
        <table>
          <thead>
            <tr>
              <th scope="col">{what}</th>
              {days.map((d) => <th scope="col" class="num" key={d}>{dayLabel(d, locale)}</th>)}
              <th scope="col" class="num">Total</th>
            </tr>
          </thead>
          <tbody>
            {groupList.map((g) => (
              <tr key={g.id} data-group data-group-id={g.id}>
                <th scope="row">
                  <span class="key" style={{ background: `var(--c${g.color})` }} aria-hidden="true" />
                  {g.name}
                </th>
                {days.map((d) => {
                  const m = cell.get(`${g.id}|${d}`) ?? 0;
                  return (
                    <td
                      class="num"
                      key={d}
                      data-cell
                      data-date={d}
                      data-group-id={g.id}
                      data-hours={hours(m)}
                    >
                      {m ? Number(hours(m)) : ""}
                    </td>
                  );
                })}
                <td class="num" data-total="group" data-group-id={g.id} data-hours={hours(g.minutes)}>
                  {Number(hours(g.minutes))}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              {days.map((d) => (
                <td class="num" key={d} data-total="day" data-date={d} data-hours={hours(dayTotal(d))}>
                  {Number(hours(dayTotal(d)))}
                </td>
              ))}
              <td class="num" data-total="all" data-hours={hours(all)}>{Number(hours(all))}</td>
            </tr>
          </tfoot>
        </table>
      </Scroll>
    </>
  );
}

function SummaryView({ ctx, result }: { ctx: ViewContext; result: Record<string, unknown> }) {
  const from = str(result.startDate), to = str(result.endDate), locale = ctx.locale;
  const none = obj(result.withoutProject);
  const row = (key: string, name: string, h: unknown, n: unknown, attrs: Record<string, string>) => (
    <tr key={key}>
      <th scope="row">{name}</th>
      <td class="num" data-hours={(num(h) ?? 0).toFixed(2)} {...attrs}>{num(h) ?? 0}</td>
      <td class="num">{num(n) ?? ""}</td>
    </tr>
  );
  const table = (title: string, body: unknown[]) => (
    <Scroll label={title}>
      <table>
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col" class="num">Hours</th>
            <th scope="col" class="num">Logs</th>
          </tr>
        </thead>
        <tbody>{body}</tbody>
      </table>
    </Scroll>
  );
  return (
    <div data-summary>
      <h1 data-range data-from={from ?? ""} data-to={to ?? ""}>
        Time {from ? shortDate(from, locale) : "from the start"} – {to ? shortDate(to, locale) : "today"}
      </h1>
      <p>
        <span data-total="all" data-hours={(num(result.totalHours) ?? 0).toFixed(2)}>
          {num(result.totalHours) ?? 0} h
        </span>
        {" in "}
        {num(result.entryCount) ?? 0} logs, of which{" "}
        <span data-total="billable" data-hours={(num(result.billableHours) ?? 0).toFixed(2)}>
          {num(result.billableHours) ?? 0} h
        </span>{" "}
        billable.
      </p>
      {table("By project", [
        ...arr(result.byProject).map(obj).map((p) =>
          row(`p${str(p.projectId)}`, str(p.projectName) ?? "Project (not visible)", p.hours, p.entryCount, {
            "data-total": "project",
            "data-project-id": str(p.projectId) ?? "",
          })
        ),
        row("none", "No project", none.hours, none.entryCount, { "data-total": "no-project" }),
      ])}
      {table(
        "By category",
        arr(result.byCategory).map(obj).map((c) =>
          row(`c${str(c.categoryId)}`, str(c.categoryName) ?? "Category", c.hours, c.entryCount, {
            "data-total": "category",
            "data-category-id": str(c.categoryId) ?? "",
          })
        ),
      )}
    </div>
  );
}

function Week({ ctx }: { ctx: ViewContext }) {
  const r = ctx.result;
  return (
    <Frame theme={ctx.theme} css={CSS} view="week">
      {!r
        ? <p class="muted">Waiting for the time logs…</p>
        : Array.isArray(r.items)
        ? <LogsView ctx={ctx} result={r} />
        : <SummaryView ctx={ctx} result={r} />}
    </Frame>
  );
}

/** Renders list_time_logs' or time_log_summary's structuredContent (ctx.result) into root. */
export function mount(root: HTMLElement, ctx: ViewContext): void {
  mountView(Week, root, ctx);
}

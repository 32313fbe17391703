// /account/activity and /account/workspaces/<id>/activity: what each app and key did — time, tool title, the records
// it touched (ids), outcome and why, confirmations — with filters (app or key, tool, outcome, dates), 50 per page
// with an "Older" link (keyset cursor), a CSV link with the same filters; on the workspace page also the apps
// connected per member, each with Disconnect (a confirmation page first). Plain GET forms: no JavaScript.
// In the page's language (lib/i18n/*/activity.ts); tool titles are the tools' own (MCP data, English).
//
// Exports: `ActivityPage`, `DisconnectMemberAppPage`, and the words of a row for a catalogue: `outcomeText`,
// `reasonText`, `confirmationText` (the CSV uses them with English's, docs/activity.md).
import type { ActivityFilter, ActivityRow, ActivitySource, MemberApp } from "../lib/activity.ts";
import { ACTIVITY_CSV_MAX, ACTIVITY_PAGE_SIZE, activityQueryString, OUTCOMES } from "../lib/activity.ts";
import type { AuditOutcome } from "../lib/audit.ts";
import type { Messages, Text } from "../lib/i18n/mod.ts";
import { textOf } from "../lib/i18n/mod.ts";
import { readReason, type ReasonRule } from "../lib/mcp/call_detail.ts";
import { AccountNav } from "./account_nav.tsx";
import { roleName } from "./account_text.tsx";
import { ConfirmPage } from "./confirm.tsx";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";

/** A word of a catalogue's table by a stored key, or undefined for a key the table does not have. */
function wordOf(words: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.hasOwn(words, key) ? words[key] : undefined;
}

export function outcomeText(t: Messages, o: AuditOutcome): string {
  return wordOf(t.activity.outcomes, o) ?? o;
}

function ruleText(t: Messages, r: ReasonRule): string {
  const a = t.activity;
  switch (r.rule) {
    case "needsUser":
      return a.rules.needsUser(r.tool);
    case "needsInternalKey":
      return a.rules.needsInternalKey(r.tool);
    case "roleArea":
      return a.rules.roleArea(
        r.role === null ? null : roleName(t, r.role),
        wordOf(a.areas, r.area) ?? r.area,
      );
    case "moduleOff":
      return a.rules.moduleOff(wordOf(a.areas, r.module) ?? r.module);
  }
}

/**
 * A stored reason in words: a rule refusal (`access_denied: the member role may not use invoices tools…`) rebuilt
 * from its values, a code word (`invalid_input`) in plain words; a code the catalogue does not know, as it is.
 */
export function reasonText(t: Messages, reason: string | null): string | null {
  if (!reason) return null;
  const { code, rule } = readReason(reason);
  if (rule) return ruleText(t, rule);
  return wordOf(t.activity.reasons, code) ?? code;
}

export function confirmationText(
  t: Messages,
  r: { outcome: AuditOutcome; confirmed: boolean },
): string | null {
  if (r.outcome === "asked") return t.activity.confirmation.asked;
  if (r.outcome === "declined") return t.activity.confirmation.declined;
  if (r.confirmed) return t.activity.confirmation.confirmed;
  return null;
}

/** An app or key of the filter, named in the page's language. */
function sourceLabel(t: Messages, s: ActivitySource): string {
  const a = t.activity;
  return s.kind === "app" ? a.byApp(s.name) : a.sourceKey(s.name || a.keyNoName, s.prefix, s.workspaceName);
}

export interface ActivityPageProps {
  /** "/account/activity" or "/account/workspaces/<id>/activity" */
  path: string;
  account: { email: string };
  /** set on the workspace page */
  workspace?: { id: string; name: string; apps: MemberApp[] };
  filter: ActivityFilter;
  sources: ActivitySource[];
  /** tool name → title, in the order the filter offers them */
  tools: ReadonlyArray<[string, string]>;
  rows: ActivityRow[];
  next: string | null;
  notice?: Text;
}

function Records({ records }: { records: string[] }) {
  const { t } = useI18n();
  if (records.length === 0) return <>{t.activity.noRecords}</>;
  return (
    <>
      {records.map((r, i) => {
        const [field, id] = r.split(":");
        return (
          <span key={r} data-record={r}>
            {i > 0 ? ", " : ""}
            {field} <code>{id}</code>
          </span>
        );
      })}
    </>
  );
}

/**
 * Tool titles are the tools' own, in English (MCP data): on a German or French page they say so (`lang="en"`,
 * WCAG 3.1.2), so a screen reader reads them as English.
 */
function toolLang(locale: string): { lang?: "en" } {
  return locale === "en" ? {} : { lang: "en" };
}

function Item({ r, tools, byPerson }: { r: ActivityRow; tools: Map<string, string>; byPerson: boolean }) {
  const { t, fmt, locale } = useI18n();
  const a = t.activity;
  const by = r.clientId
    ? a.byApp(r.appName ?? r.clientId)
    : r.keyId
    ? a.byKey(r.keyName || a.keyNoName, r.keyPrefix)
    : a.byUnknown;
  const reason = reasonText(t, r.reason);
  const confirmation = confirmationText(t, r);
  return (
    <li data-activity={r.id} data-tool={r.tool} data-outcome={r.outcome}>
      <strong {...toolLang(locale)}>{tools.get(r.tool) ?? r.tool}</strong>{" "}
      <span class="badge" data-outcome-text>{outcomeText(t, r.outcome)}</span>
      <dl class="facts">
        <dt>{a.time}</dt>
        <dd>
          <time dateTime={r.at}>{fmt.time(new Date(r.at), { seconds: true })}</time>
        </dd>
        <dt>{a.by}</dt>
        <dd data-by>{by}</dd>
        {byPerson && (
          <>
            <dt>{a.person}</dt>
            <dd data-person>{r.userEmail ?? (r.userId ? r.userId : a.noPerson)}</dd>
          </>
        )}
        {!byPerson && r.workspaceName && (
          <>
            <dt>{a.workspace}</dt>
            <dd>{r.workspaceName}</dd>
          </>
        )}
        <dt>{a.records}</dt>
        <dd data-records>
          <Records records={r.records} />
        </dd>
        {reason && (
          <>
            <dt>{a.why}</dt>
            <dd data-reason>{reason}</dd>
          </>
        )}
        {confirmation && (
          <>
            <dt>{a.confirmationLabel}</dt>
            <dd data-confirmation>{confirmation}</dd>
          </>
        )}
      </dl>
    </li>
  );
}

function Filters(props: ActivityPageProps) {
  const { t, locale } = useI18n();
  const a = t.activity;
  const f = props.filter;
  const source = f.source ? ("app" in f.source ? `app:${f.source.app}` : `key:${f.source.key}`) : "";
  return (
    <form method="get" action={props.path} class="filters" aria-label={a.filterLabel}>
      <label for="f-source">{a.source}</label>
      <select id="f-source" name="source">
        <option value="">{a.everySource}</option>
        {props.sources.map((s) => (
          <option key={s.value} value={s.value} selected={s.value === source}>{sourceLabel(t, s)}</option>
        ))}
      </select>
      <label for="f-tool">{a.tool}</label>
      <select id="f-tool" name="tool">
        <option value="">{a.everyTool}</option>
        {props.tools.map(([name, title]) => (
          <option key={name} value={name} selected={name === f.tool} {...toolLang(locale)}>{title}</option>
        ))}
      </select>
      <label for="f-outcome">{a.outcome}</label>
      <select id="f-outcome" name="outcome">
        <option value="">{a.everyOutcome}</option>
        {OUTCOMES.map((o) => <option key={o} value={o} selected={o === f.outcome}>{outcomeText(t, o)}
        </option>)}
      </select>
      <div class="dates">
        <div>
          <label for="f-from">{a.from}</label>
          <input type="date" id="f-from" name="from" value={f.from ?? ""} />
        </div>
        <div>
          <label for="f-to">{a.to}</label>
          <input type="date" id="f-to" name="to" value={f.to ?? ""} />
        </div>
      </div>
      <div class="actions">
        <button type="submit">{a.show}</button>
        <a class="button secondary" href={props.path}>{a.clearFilters}</a>
      </div>
    </form>
  );
}

function WorkspaceApps({ ws, path }: { ws: NonNullable<ActivityPageProps["workspace"]>; path: string }) {
  const a = useI18n().t.activity;
  return (
    <section aria-labelledby="ws-apps">
      <h2 id="ws-apps">{a.appsIn(ws.name)}</h2>
      {ws.apps.length === 0 ? <p class="muted">{a.noMemberApps}</p> : (
        <ul class="apps">
          {ws.apps.map((app) => (
            <li key={`${app.userId} ${app.clientId}`} data-member-app={`${app.userId} ${app.clientId}`}>
              <strong>{app.appName}</strong> <span class="muted">{a.forMember(app.email)}</span>
              <form method="get" action={`${path}/disconnect`}>
                <input type="hidden" name="user_id" value={app.userId} />
                <input type="hidden" name="client_id" value={app.clientId} />
                <button type="submit" class="danger" aria-label={a.disconnectFor(app.appName, app.email)}>
                  {a.disconnect(app.appName)}
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function ActivityPage(props: ActivityPageProps) {
  const { t, fmt } = useI18n();
  const a = t.activity;
  const tools = new Map(props.tools);
  const title = props.workspace ? a.titleIn(props.workspace.name) : a.title;
  const q = activityQueryString(props.filter);
  return (
    <Layout title={title} wide>
      <AccountNav current="activity" />
      <h1>{title}</h1>
      <p class="muted">
        {props.workspace ? a.introWorkspace(props.workspace.name) : a.introOwn}{" "}
        {a.signedInAs(props.account.email)}
      </p>
      {props.notice && <p class="notice" role="status">{textOf(t, props.notice)}</p>}
      {props.workspace && <WorkspaceApps ws={props.workspace} path={props.path} />}
      <Filters {...props} />
      <h2>{a.calls}</h2>
      {props.rows.length === 0
        ? <p data-no-activity>{a.noCalls}</p>
        : (
          <ul class="apps" aria-label={a.callsLabel}>
            {props.rows.map((r) => <Item key={r.id} r={r} tools={tools} byPerson={!!props.workspace} />)}
          </ul>
        )}
      <p class="actions">
        {props.filter.before && <a href={`${props.path}${q}`}>{a.newest}</a>}
        {props.next && (
          <a href={`${props.path}${activityQueryString(props.filter, props.next)}`} rel="next" data-older>
            {a.older}
          </a>
        )}
        <a
          href={`${props.path}.csv${
            activityQueryString(props.filter, props.filter.before ? cursorOf(props) : "")
          }`}
        >
          {a.csv(fmt.number(ACTIVITY_CSV_MAX))}
        </a>
      </p>
      <p class="muted">{a.perPage(ACTIVITY_PAGE_SIZE)}</p>
    </Layout>
  );
}

/** The CSV of a paged view starts where the page does. */
function cursorOf(props: ActivityPageProps): string {
  const b = props.filter.before;
  return b ? `${b.at}~${b.id}` : "";
}

export interface DisconnectMemberAppProps {
  csrf: string;
  path: string;
  workspaceName: string;
  app: MemberApp;
}

/** The second step of an admin's Disconnect: which app, for whom, in which workspace; a POST does it. */
export function DisconnectMemberAppPage(props: DisconnectMemberAppProps) {
  const a = useI18n().t.activity;
  const { app } = props;
  return (
    <ConfirmPage
      title={a.disconnectTitle(app.appName)}
      csrf={props.csrf}
      action={`${props.path}/disconnect`}
      hidden={{ user_id: app.userId, client_id: app.clientId }}
      confirmLabel={a.disconnect(app.appName)}
      cancelHref={props.path}
    >
      <p>{a.disconnectText(app.appName, props.workspaceName, app.email)}</p>
    </ConfirmPage>
  );
}

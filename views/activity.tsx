// /account/activity and /account/workspaces/<id>/activity: what each app and key did — time, tool title, the records
// it touched (ids), outcome and why, confirmations — with filters (app or key, tool, outcome, dates), 50 per page
// with an "Older" link (keyset cursor), a CSV link with the same filters; on the workspace page also the apps
// connected per member, each with Disconnect (a confirmation page first). Plain GET forms: no JavaScript.
//
// Exports: `ActivityPage`, `DisconnectMemberAppPage`, `outcomeText`, `reasonText`, `confirmationText`.
import type { ActivityFilter, ActivityRow, ActivitySource, MemberApp } from "../lib/activity.ts";
import { ACTIVITY_CSV_MAX, ACTIVITY_PAGE_SIZE, activityQueryString, OUTCOMES } from "../lib/activity.ts";
import type { AuditOutcome } from "../lib/audit.ts";
import { AccountNav } from "./account_nav.tsx";
import { ConfirmPage } from "./confirm.tsx";
import { Layout } from "./layout.tsx";

const OUTCOME_TEXT: Record<AuditOutcome, string> = {
  ok: "Done",
  denied: "Refused",
  invalid: "Refused: invalid input",
  declined: "Not done: not confirmed",
  asked: "Asked for confirmation",
  error: "Failed",
  crash: "Failed: server error",
  unavailable: "Failed: unavailable",
};

// The stored code words (lib/mcp/call_detail.ts) in plain words.
const REASON_TEXT: Record<string, string> = {
  access_denied: "not allowed",
  invalid_input: "the input was not valid",
  invalid_params: "unknown tool or malformed call",
  not_found: "a record was not found or is not visible",
  conflict: "conflicts with the record's state",
  unavailable: "not available right now",
  internal_error: "an unexpected server error (logged)",
  confirmation_required: "needs the person's confirmation, and the app cannot ask",
  not_confirmed: "the person declined or did not confirm",
};

export function outcomeText(o: AuditOutcome): string {
  return OUTCOME_TEXT[o] ?? o;
}

/** `access_denied: the member role may not use invoices tools…` → the message; a bare code → plain words. */
export function reasonText(reason: string | null): string | null {
  if (!reason) return null;
  const i = reason.indexOf(": ");
  return i > 0 ? reason.slice(i + 2) : REASON_TEXT[reason] ?? reason;
}

export function confirmationText(r: { outcome: AuditOutcome; confirmed: boolean }): string | null {
  if (r.outcome === "asked") return "asked, waiting for the answer";
  if (r.outcome === "declined") return "asked, not confirmed";
  if (r.confirmed) return "asked, confirmed";
  return null;
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
  notice?: string;
}

function Records({ records }: { records: string[] }) {
  if (records.length === 0) return <>none named</>;
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

function Item({ r, tools, byPerson }: { r: ActivityRow; tools: Map<string, string>; byPerson: boolean }) {
  const by = r.clientId
    ? `App: ${r.appName ?? r.clientId}`
    : r.keyId
    ? `Key: ${r.keyName || "(no name)"}${r.keyPrefix ? ` ${r.keyPrefix}…` : ""}`
    : "unknown";
  const reason = reasonText(r.reason);
  const confirmation = confirmationText(r);
  return (
    <li data-activity={r.id} data-tool={r.tool} data-outcome={r.outcome}>
      <strong>{tools.get(r.tool) ?? r.tool}</strong>{" "}
      <span class="badge" data-outcome-text>{outcomeText(r.outcome)}</span>
      <dl class="facts">
        <dt>Time</dt>
        <dd>
          <time dateTime={r.at}>{r.at.slice(0, 19).replace("T", " ")} UTC</time>
        </dd>
        <dt>By</dt>
        <dd data-by>{by}</dd>
        {byPerson && (
          <>
            <dt>Person</dt>
            <dd data-person>{r.userEmail ?? (r.userId ? r.userId : "the workspace (no person)")}</dd>
          </>
        )}
        {!byPerson && r.workspaceName && (
          <>
            <dt>Workspace</dt>
            <dd>{r.workspaceName}</dd>
          </>
        )}
        <dt>Records</dt>
        <dd data-records>
          <Records records={r.records} />
        </dd>
        {reason && (
          <>
            <dt>Why</dt>
            <dd data-reason>{reason}</dd>
          </>
        )}
        {confirmation && (
          <>
            <dt>Confirmation</dt>
            <dd data-confirmation>{confirmation}</dd>
          </>
        )}
      </dl>
    </li>
  );
}

function Filters(props: ActivityPageProps) {
  const f = props.filter;
  const source = f.source ? ("app" in f.source ? `app:${f.source.app}` : `key:${f.source.key}`) : "";
  return (
    <form method="get" action={props.path} class="filters" aria-label="Filter the activity">
      <label for="f-source">App or key</label>
      <select id="f-source" name="source">
        <option value="">Every app and key</option>
        {props.sources.map((s) => (
          <option key={s.value} value={s.value} selected={s.value === source}>{s.label}</option>
        ))}
      </select>
      <label for="f-tool">Tool</label>
      <select id="f-tool" name="tool">
        <option value="">Every tool</option>
        {props.tools.map(([name, title]) => (
          <option key={name} value={name} selected={name === f.tool}>{title}</option>
        ))}
      </select>
      <label for="f-outcome">Outcome</label>
      <select id="f-outcome" name="outcome">
        <option value="">Every outcome</option>
        {OUTCOMES.map((o) => <option key={o} value={o} selected={o === f.outcome}>{outcomeText(o)}</option>)}
      </select>
      <div class="dates">
        <div>
          <label for="f-from">From (UTC date)</label>
          <input type="date" id="f-from" name="from" value={f.from ?? ""} />
        </div>
        <div>
          <label for="f-to">To (UTC date)</label>
          <input type="date" id="f-to" name="to" value={f.to ?? ""} />
        </div>
      </div>
      <div class="actions">
        <button type="submit">Show</button>
        <a class="button secondary" href={props.path}>Clear filters</a>
      </div>
    </form>
  );
}

function WorkspaceApps({ ws, path }: { ws: NonNullable<ActivityPageProps["workspace"]>; path: string }) {
  return (
    <section aria-labelledby="ws-apps">
      <h2 id="ws-apps">Apps connected in {ws.name}</h2>
      {ws.apps.length === 0
        ? <p class="muted">No member has an app connected to this workspace.</p>
        : (
          <ul class="apps">
            {ws.apps.map((a) => (
              <li key={`${a.userId} ${a.clientId}`} data-member-app={`${a.userId} ${a.clientId}`}>
                <strong>{a.appName}</strong> <span class="muted">for {a.email}</span>
                <form method="get" action={`${path}/disconnect`}>
                  <input type="hidden" name="user_id" value={a.userId} />
                  <input type="hidden" name="client_id" value={a.clientId} />
                  <button type="submit" class="danger" aria-label={`Disconnect ${a.appName} for ${a.email}`}>
                    Disconnect {a.appName}
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
  const tools = new Map(props.tools);
  const title = props.workspace ? `Activity in ${props.workspace.name}` : "Activity";
  const q = activityQueryString(props.filter);
  return (
    <Layout title={title} wide>
      <AccountNav current="activity" />
      <h1>{title}</h1>
      <p class="muted">
        {props.workspace
          ? `Every tool call of every app and key in ${props.workspace.name}, newest first.`
          : "Every tool call of your connected apps and API keys, newest first."} Signed in as{" "}
        {props.account.email}.
      </p>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      {props.workspace && <WorkspaceApps ws={props.workspace} path={props.path} />}
      <Filters {...props} />
      <h2>Calls</h2>
      {props.rows.length === 0
        ? <p data-no-activity>No calls match.</p>
        : (
          <ul class="apps" aria-label="Tool calls">
            {props.rows.map((r) => <Item key={r.id} r={r} tools={tools} byPerson={!!props.workspace} />)}
          </ul>
        )}
      <p class="actions">
        {props.filter.before && <a href={`${props.path}${q}`}>Newest</a>}
        {props.next && (
          <a href={`${props.path}${activityQueryString(props.filter, props.next)}`} rel="next" data-older>
            Older calls
          </a>
        )}
        <a
          href={`${props.path}.csv${
            activityQueryString(props.filter, props.filter.before ? cursorOf(props) : "")
          }`}
        >
          Download as CSV (at most {ACTIVITY_CSV_MAX.toLocaleString("en")} rows)
        </a>
      </p>
      <p class="muted">
        {ACTIVITY_PAGE_SIZE} calls per page. Records are shown by id; the arguments' text is never kept.
      </p>
    </Layout>
  );
}

/** The CSV of a paged view starts where the page does. */
function cursorOf(props: ActivityPageProps): string {
  const b = props.filter.before;
  return b ? `${b.at}~${b.id}` : "";
}

/** The second step of an admin's Disconnect: which app, for whom, in which workspace; a POST does it. */
export function DisconnectMemberAppPage(
  props: { csrf: string; path: string; workspaceName: string; app: MemberApp },
) {
  const { app } = props;
  return ConfirmPage({
    title: `Disconnect ${app.appName}?`,
    csrf: props.csrf,
    action: `${props.path}/disconnect`,
    hidden: { user_id: app.userId, client_id: app.clientId },
    confirmLabel: `Disconnect ${app.appName}`,
    cancelHref: props.path,
    children: (
      <p>
        {app.appName} loses access to {props.workspaceName} for {app.email}{" "}
        at once: its tokens stop working on their next use there, and it has to ask {app.email}{" "}
        for approval again. Its access to other workspaces is not changed.
      </p>
    ),
  });
}

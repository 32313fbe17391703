// The person's side of an approval request (issue 23): asking the operators to let an app use the workspace
// tools, waiting for their answer, and the end of an authorization they denied or did not answer in time.
import { type Text, textOf } from "../lib/i18n/mod.ts";
import { Fill } from "./fill.tsx";
import { BrandName, Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";
import { type PlaceChoice, PlaceFieldset } from "./place_choice.tsx";

export interface ApprovalAskProps {
  csrf: string;
  ticket: string;
  clientName: string;
  redirectHost: string;
  /** the host serving the app's metadata document, when its client_id is a URL */
  metadataHost: string | null;
  account: { email: string; name: string };
  /** each scope in words, in the page's language (lib/oauth/scopes.ts describeScopes) */
  scopes: Array<{ scope: string; text: Text }>;
  places: PlaceChoice[];
  chosenPlace?: string;
  note?: string;
  noteMax: number;
  /** the person is an operator: they may approve the app themselves, here */
  operator: boolean;
  problem?: Text;
}

/** Who is asked, what for, where; the note; Ask (or, for an operator, Approve) and Cancel. */
export function ApprovalAskPage(props: ApprovalAskProps) {
  const { t } = useI18n();
  const a = t.flow.approval;
  const canAsk = props.places.length > 0;
  return (
    <Layout title={a.title(props.clientName)}>
      <h1>
        <Fill text={a.heading} app={<strong>{props.clientName}</strong>} />
      </h1>
      <p class="muted">
        {t.flow.signedInAs(
          props.account.name ? `${props.account.name} (${props.account.email})` : props.account.email,
        )}
      </p>
      {props.problem && <p class="error" role="alert">{textOf(t, props.problem)}</p>}
      <form method="post" action="/oauth/authorize/approval">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="ticket" value={props.ticket} />
        <p>
          <Fill
            text={props.metadataHost ? a.introDescribed : a.introSelf}
            app={props.clientName}
            host={props.metadataHost ?? ""}
            brand={<BrandName />}
            redirect={<strong>{props.redirectHost}</strong>}
          />
        </p>
        <h2>{a.asksTo}</h2>
        <ul class="scopes">
          {props.scopes.map((s) => <li key={s.scope} data-scope={s.scope}>{textOf(t, s.text)}</li>)}
        </ul>
        {canAsk
          ? (
            <>
              <PlaceFieldset
                places={props.places}
                checked={props.chosenPlace}
                legend={a.placeLegend}
              />
              <label for="approval-note">{a.note}</label>
              <textarea id="approval-note" name="note" maxlength={props.noteMax} rows={3}>
                {props.note ?? ""}
              </textarea>
              <p class="muted">
                {props.operator ? a.operatorHint : a.personHint}
              </p>
            </>
          )
          : (
            <p class="notice">
              {a.noWorkspace(props.clientName)}
            </p>
          )}
        <div class="actions">
          {canAsk && props.operator && (
            <button type="submit" name="decision" value="approve">
              {a.approve(props.clientName)}
            </button>
          )}
          {canAsk && !props.operator && <button type="submit" name="decision" value="ask">{a.ask}</button>}
          <button type="submit" name="decision" value="cancel" class="secondary">{a.cancel}</button>
        </div>
      </form>
    </Layout>
  );
}

export interface ApprovalWaitProps {
  clientName: string;
  workspaceName: string;
  askedAt: Date;
  /** the waiting page itself: "Check again" without JavaScript, and what the script polls */
  checkHref: string;
  /** seconds between the script's checks */
  every: number;
  /** the client's redirect with access_denied: the person gives up waiting */
  giveUpHref: string;
  /** when this authorization stops waiting */
  until: Date;
}

/** Waiting for the operators: what happens next, Check again, Stop waiting. */
export function ApprovalWaitPage(props: ApprovalWaitProps) {
  const { t, fmt } = useI18n();
  const w = t.flow.approval.wait;
  return (
    <Layout title={w.title} script>
      <h1>{w.heading}</h1>
      <div data-poll={props.checkHref} data-every={String(props.every)} role="status">
        <p>
          <Fill
            text={w.asked}
            brand={<BrandName />}
            app={<strong>{props.clientName}</strong>}
            workspace={props.workspaceName}
            time={fmt.time(props.askedAt)}
          />
        </p>
      </div>
      <p>
        <Fill text={w.explain} until={props.until.toISOString().slice(11, 16)} />
      </p>
      <div class="actions">
        <a class="button" href={props.checkHref}>{w.checkAgain}</a>
        <a class="button secondary" href={props.giveUpHref}>{w.giveUp}</a>
      </div>
    </Layout>
  );
}

export interface ApprovalEndedProps {
  why: "denied" | "expired";
  clientName: string;
  /** the client's redirect with access_denied */
  returnHref: string;
}

/** The operators denied the request, or did not answer in time: say so, and return to the app. */
export function ApprovalEndedPage(props: ApprovalEndedProps) {
  const { t } = useI18n();
  const e = t.flow.approval.ended;
  const denied = props.why === "denied";
  return (
    <Layout title={denied ? e.deniedTitle : e.expiredTitle}>
      <h1>{denied ? e.deniedHeading : e.expiredHeading}</h1>
      <p>
        <Fill
          text={denied ? e.denied : e.expired}
          brand={<BrandName />}
          app={<strong>{props.clientName}</strong>}
        />
      </p>
      <div class="actions">
        <a class="button" href={props.returnHref}>{e.returnTo(props.clientName)}</a>
      </div>
    </Layout>
  );
}

// The person's side of an approval request (issue 23): asking the operators to let an app use the workspace
// tools, waiting for their answer, and the end of an authorization they denied or did not answer in time.
import { BrandName, Layout } from "./layout.tsx";
import { type PlaceChoice, PlaceFieldset } from "./place_choice.tsx";

export interface ApprovalAskProps {
  csrf: string;
  ticket: string;
  clientName: string;
  redirectHost: string;
  /** the host serving the app's metadata document, when its client_id is a URL */
  metadataHost: string | null;
  account: { email: string; name: string };
  scopes: Array<{ scope: string; text: string }>;
  places: PlaceChoice[];
  chosenPlace?: string;
  note?: string;
  noteMax: number;
  /** the person is an operator: they may approve the app themselves, here */
  operator: boolean;
  problem?: string;
}

/** Who is asked, what for, where; the note; Ask (or, for an operator, Approve) and Cancel. */
export function ApprovalAskPage(props: ApprovalAskProps) {
  const canAsk = props.places.length > 0;
  return (
    <Layout title={`${props.clientName} needs approval`}>
      <h1>
        <strong>{props.clientName}</strong> needs an operator's approval
      </h1>
      <p class="muted">
        Signed in as{" "}
        {props.account.name ? `${props.account.name} (${props.account.email})` : props.account.email}
      </p>
      {props.problem && <p class="error" role="alert">{props.problem}</p>}
      <form method="post" action="/oauth/authorize/approval">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="ticket" value={props.ticket} />
        <p>
          {props.clientName} asks to use your workspace tools. It{" "}
          {props.metadataHost ? <>is described by {props.metadataHost}</> : <>registered itself</>}, and apps
          like that may use workspace tools on <BrandName />{" "}
          only once an operator has approved them. It would be sent back to{" "}
          <strong>{props.redirectHost}</strong>.
        </p>
        <h2>It asks to:</h2>
        <ul class="scopes">
          {props.scopes.map((s) => <li key={s.scope} data-scope={s.scope}>{s.text}</li>)}
        </ul>
        {canAsk
          ? (
            <>
              <PlaceFieldset
                places={props.places}
                checked={props.chosenPlace}
                legend="Where would it act as you?"
              />
              <label for="approval-note">Note to the operators (optional)</label>
              <textarea id="approval-note" name="note" maxlength={props.noteMax} rows={3}>
                {props.note ?? ""}
              </textarea>
              <p class="muted">
                {props.operator
                  ? "You are an operator: approving lets every person of this service use this app with their " +
                    "workspace tools, each after their own consent. You can withdraw it under Operator › Apps."
                  : "The operators are told. This page waits for their answer and then continues; you can " +
                    "also close it and connect again from the app once they have approved."}
              </p>
            </>
          )
          : (
            <p class="notice">
              You are not a member of any workspace, so there is nothing {props.clientName}{" "}
              could use. You can only cancel.
            </p>
          )}
        <div class="actions">
          {canAsk && props.operator && (
            <button type="submit" name="decision" value="approve">
              Approve {props.clientName} and continue
            </button>
          )}
          {canAsk && !props.operator && (
            <button type="submit" name="decision" value="ask">Ask for approval</button>
          )}
          <button type="submit" name="decision" value="cancel" class="secondary">Cancel</button>
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
  return (
    <Layout title="Waiting for approval" script>
      <h1>Waiting for an operator</h1>
      <div data-poll={props.checkHref} data-every={String(props.every)} role="status">
        <p>
          You asked the operators of <BrandName /> to approve <strong>{props.clientName}</strong> for{" "}
          {props.workspaceName} (asked {props.askedAt.toISOString().slice(0, 16).replace("T", " ")} UTC).
        </p>
      </div>
      <p>
        Once an operator approves, this page continues to the last step, where you choose what the app may do.
        It checks by itself every few seconds; without JavaScript, use Check again. It waits until{" "}
        {props.until.toISOString().slice(11, 16)}{" "}
        UTC; after that, connect again from the app once the operators have approved.
      </p>
      <div class="actions">
        <a class="button" href={props.checkHref}>Check again</a>
        <a class="button secondary" href={props.giveUpHref}>Stop waiting and return to the app</a>
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
  return (
    <Layout title={props.why === "denied" ? "Not approved" : "Still waiting for approval"}>
      <h1>{props.why === "denied" ? "Not approved" : "No answer yet"}</h1>
      <p>
        {props.why === "denied"
          ? (
            <>
              An operator of <BrandName /> did not approve <strong>{props.clientName}</strong>{" "}
              for your workspace tools. Ask your operators if you think this is a mistake.
            </>
          )
          : (
            <>
              No operator has approved <strong>{props.clientName}</strong>{" "}
              yet, and this sign-in has stopped waiting. Your request stays with the operators: once they
              approve, connect again from the app.
            </>
          )}
      </p>
      <div class="actions">
        <a class="button" href={props.returnHref}>Return to {props.clientName}</a>
      </div>
    </Layout>
  );
}

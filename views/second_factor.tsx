// The second step of a sign-in (/signin/verify): a code from the authenticator app, a recovery code, or a passkey
// (part of issue 29's passkey pages); the walk through setting up an app when a workspace requires two-step
// sign-in and the person has none yet (/signin/setup); the recovery codes shown once at the end of that walk; the
// page that warns when few recovery codes are left; and the pages for an expired sign-in and a braked one.
//
// Exports: `VerifyPage`, `PolicySetupIntroPage`, `SignInSetupPage`, `SignInCodesPage`, `LowRecoveryCodesPage`,
// `PendingExpiredPage`, `SecondFactorThrottledPage`.
import { Layout } from "./layout.tsx";
import { CodeField, RecoveryCodeList, type TotpSetup, TotpSetupParts } from "./two_step.tsx";

export interface VerifyPageProps {
  csrf: string;
  p: string;
  email: string;
  totp: boolean;
  /** the person has passkeys: "Use a passkey instead" */
  passkeys: boolean;
  recoveryCodesLeft: number;
  /** a step-up (the account is signed in already) rather than a sign-in */
  stepUp?: boolean;
  /** what went wrong with the last code, and with which form */
  problem?: { form: "totp" | "recovery"; message: string };
}

function Cancel() {
  return <a class="button secondary" href="/signin">Cancel</a>;
}

export function VerifyPage(props: VerifyPageProps) {
  const hidden = (
    <>
      <input type="hidden" name="csrf" value={props.csrf} />
      <input type="hidden" name="p" value={props.p} />
    </>
  );
  const recoveryProblem = props.problem?.form === "recovery" ? props.problem.message : undefined;
  return (
    <Layout title="Two-step sign-in">
      <h1>{props.stepUp ? "Confirm it is you" : "Two-step sign-in"}</h1>
      <p class="muted">{props.email}</p>
      {props.totp && (
        <>
          <p>Type the 6-digit code your authenticator app shows for this account.</p>
          {props.problem?.form === "totp" && <p class="error" role="alert">{props.problem.message}</p>}
          <form method="post" action="/signin/verify/totp">
            {hidden}
            <CodeField id="code" label="Code" autofocus />
            <div class="actions">
              <button type="submit">Verify</button>
            </div>
          </form>
        </>
      )}
      {props.passkeys && (
        <p>
          <a class="button secondary" href={`/signin/verify/passkey?p=${encodeURIComponent(props.p)}`}>
            Use a passkey instead
          </a>
        </p>
      )}
      {props.recoveryCodesLeft > 0 && (
        <details open={recoveryProblem !== undefined || (!props.totp && !props.passkeys)}>
          <summary>Use a recovery code</summary>
          {recoveryProblem && <p class="error" role="alert">{recoveryProblem}</p>}
          <form method="post" action="/signin/verify/recovery">
            {hidden}
            <label for="recovery-code">Recovery code</label>
            <input
              id="recovery-code"
              name="code"
              type="text"
              autocomplete="off"
              spellcheck={false}
              maxLength={40}
              required
            />
            <div class="actions">
              <button type="submit">Use recovery code</button>
            </div>
          </form>
        </details>
      )}
      <div class="actions">
        <Cancel />
      </div>
    </Layout>
  );
}

/** A workspace requires two-step sign-in and the person has no second factor: the walk starts here. */
export function PolicySetupIntroPage(props: { p: string; email: string; workspace?: string }) {
  return (
    <Layout title="Set up two-step sign-in">
      <h1>Set up two-step sign-in</h1>
      <p class="muted">{props.email}</p>
      <p>
        {props.workspace
          ? (
            <>
              <strong>{props.workspace}</strong> requires two-step sign-in
            </>
          )
          : "This request needs two-step sign-in"}: after your password, a code from an authenticator app on
        your phone. It takes a minute to set up, and then you continue where you were.
      </p>
      <div class="actions">
        <a class="button" href={`/signin/setup?p=${encodeURIComponent(props.p)}`}>Set up now</a>
        <Cancel />
      </div>
    </Layout>
  );
}

export function SignInSetupPage(
  props: { csrf: string; p: string; email: string; totp: TotpSetup; problem?: string },
) {
  return (
    <Layout title="Set up an authenticator app">
      <h1>Set up an authenticator app</h1>
      <p class="muted">{props.email}</p>
      <TotpSetupParts
        totp={props.totp}
        action="/signin/setup"
        hidden={{ csrf: props.csrf, p: props.p }}
        problem={props.problem}
      />
      <div class="actions">
        <Cancel />
      </div>
    </Layout>
  );
}

/** The end of the set-up walk: the recovery codes, then Continue (completes the sign-in). */
export function SignInCodesPage(props: { csrf: string; p: string; done: string; codes: string[] }) {
  return (
    <Layout title="Two-step sign-in is on">
      <h1>Two-step sign-in is on</h1>
      <RecoveryCodeList codes={props.codes} />
      <form method="post" action="/signin/verify/continue">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="p" value={props.p} />
        <input type="hidden" name="done" value={props.done} />
        <div class="actions">
          <button type="submit">I saved them, continue</button>
        </div>
      </form>
    </Layout>
  );
}

/** After a recovery code, when at most two are left: said before the sign-in goes on. */
export function LowRecoveryCodesPage(props: { csrf: string; p: string; done: string; left: number }) {
  return (
    <Layout title="Few recovery codes left">
      <h1>Few recovery codes left</h1>
      <p role="status" data-recovery-left={props.left}>
        {props.left === 0
          ? "That was your last recovery code."
          : props.left === 1
          ? "You have 1 recovery code left."
          : `You have ${props.left} recovery codes left.`}{" "}
        Create new ones under Security, Two-step sign-in, in your account, before you need one.
      </p>
      <form method="post" action="/signin/verify/continue">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="p" value={props.p} />
        <input type="hidden" name="done" value={props.done} />
        <div class="actions">
          <button type="submit">Continue</button>
        </div>
      </form>
    </Layout>
  );
}

export function PendingExpiredPage() {
  return (
    <Layout title="Sign-in expired">
      <h1>This sign-in has expired</h1>
      <p role="alert" data-error-code="sign_in_expired">
        The second step of a sign-in must follow the password within 10 minutes, in the same browser, and
        works once. Nothing was changed. Sign in again.
      </p>
      <div class="actions">
        <a class="button" href="/signin">Sign in again</a>
      </div>
    </Layout>
  );
}

/** Too many wrong codes: when to try again (`retryAfter` seconds). */
export function SecondFactorThrottledPage(props: { retryAfter: number; back?: string }) {
  const minutes = Math.ceil(props.retryAfter / 60);
  return (
    <Layout title="Too many attempts">
      <h1>Too many attempts</h1>
      <p role="alert" data-error-code="second_factor_throttled">
        Too many wrong codes. Try again in {minutes === 1 ? "1 minute" : `${minutes} minutes`}.
      </p>
      <div class="actions">
        {props.back && <a class="button" href={props.back}>Back</a>}
        <a class="button secondary" href="/signin">Sign in again</a>
      </div>
    </Layout>
  );
}

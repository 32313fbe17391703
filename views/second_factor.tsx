// The second step of a sign-in (/signin/verify): a code from the authenticator app, a recovery code, or a passkey
// (part of issue 29's passkey pages); the walk through setting up an app when a workspace requires two-step
// sign-in and the person has none yet (/signin/setup); the recovery codes shown once at the end of that walk; the
// page that warns when few recovery codes are left; and the pages for an expired sign-in and a braked one.
//
// Exports: `VerifyPage`, `PolicySetupIntroPage`, `SignInSetupPage`, `SignInCodesPage`, `LowRecoveryCodesPage`,
// `PendingExpiredPage`, `SecondFactorThrottledPage`.
import { type Text, textOf } from "../lib/i18n/mod.ts";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";
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
  problem?: { form: "totp" | "recovery"; message: Text };
}

function Cancel() {
  return <a class="button secondary" href="/signin">{useI18n().t.security.cancel}</a>;
}

export function VerifyPage(props: VerifyPageProps) {
  const { t: all } = useI18n();
  const t = all.security;
  const hidden = (
    <>
      <input type="hidden" name="csrf" value={props.csrf} />
      <input type="hidden" name="p" value={props.p} />
    </>
  );
  const problem = props.problem && { form: props.problem.form, message: textOf(all, props.problem.message) };
  const recoveryProblem = problem?.form === "recovery" ? problem.message : undefined;
  return (
    <Layout title={t.twoStepTitle}>
      <h1>{props.stepUp ? t.confirmItIsYou : t.twoStepTitle}</h1>
      <p class="muted">{props.email}</p>
      {props.totp && (
        <>
          <p>{t.typeCode}</p>
          {problem?.form === "totp" && <p class="error" role="alert">{problem.message}</p>}
          <form method="post" action="/signin/verify/totp">
            {hidden}
            <CodeField id="code" label={t.code} autofocus />
            <div class="actions">
              <button type="submit">{t.verify}</button>
            </div>
          </form>
        </>
      )}
      {props.passkeys && (
        <p>
          <a class="button secondary" href={`/signin/verify/passkey?p=${encodeURIComponent(props.p)}`}>
            {t.usePasskeyInstead}
          </a>
        </p>
      )}
      {props.recoveryCodesLeft > 0 && (
        <details open={recoveryProblem !== undefined || (!props.totp && !props.passkeys)}>
          <summary>{t.useRecoveryCode}</summary>
          {recoveryProblem && <p class="error" role="alert">{recoveryProblem}</p>}
          <form method="post" action="/signin/verify/recovery">
            {hidden}
            <label for="recovery-code">{t.recoveryCode}</label>
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
              <button type="submit">{t.useRecoveryCodeButton}</button>
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
  const t = useI18n().t.security;
  return (
    <Layout title={t.setUpTwoStep}>
      <h1>{t.setUpTwoStep}</h1>
      <p class="muted">{props.email}</p>
      <p>
        {props.workspace
          ? (
            <>
              <strong>{props.workspace}</strong> {t.workspaceRequires}
            </>
          )
          : t.requestRequires}
        {t.setUpWhy}
      </p>
      <div class="actions">
        <a class="button" href={`/signin/setup?p=${encodeURIComponent(props.p)}`}>{t.setUpNow}</a>
        <Cancel />
      </div>
    </Layout>
  );
}

export function SignInSetupPage(
  props: { csrf: string; p: string; email: string; totp: TotpSetup; problem?: Text },
) {
  const t = useI18n().t.security;
  return (
    <Layout title={t.setUpApp}>
      <h1>{t.setUpApp}</h1>
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
  const t = useI18n().t.security;
  return (
    <Layout title={t.twoStepIsOn}>
      <h1>{t.twoStepIsOn}</h1>
      <RecoveryCodeList codes={props.codes} />
      <form method="post" action="/signin/verify/continue">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="p" value={props.p} />
        <input type="hidden" name="done" value={props.done} />
        <div class="actions">
          <button type="submit">{t.savedContinue}</button>
        </div>
      </form>
    </Layout>
  );
}

/** After a recovery code, when at most two are left: said before the sign-in goes on. */
export function LowRecoveryCodesPage(props: { csrf: string; p: string; done: string; left: number }) {
  const t = useI18n().t.security;
  return (
    <Layout title={t.lowTitle}>
      <h1>{t.lowTitle}</h1>
      <p role="status" data-recovery-left={props.left}>
        {t.lowLeft(props.left)} {t.createNewUnder}
      </p>
      <form method="post" action="/signin/verify/continue">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="p" value={props.p} />
        <input type="hidden" name="done" value={props.done} />
        <div class="actions">
          <button type="submit">{t.continue}</button>
        </div>
      </form>
    </Layout>
  );
}

export function PendingExpiredPage() {
  const t = useI18n().t.security;
  return (
    <Layout title={t.expiredTitle}>
      <h1>{t.expiredHeading}</h1>
      <p role="alert" data-error-code="sign_in_expired">{t.expiredMessage}</p>
      <div class="actions">
        <a class="button" href="/signin">{t.signInAgain}</a>
      </div>
    </Layout>
  );
}

/** Too many wrong codes: when to try again (`retryAfter` seconds). */
export function SecondFactorThrottledPage(props: { retryAfter: number; back?: string }) {
  const t = useI18n().t.security;
  return (
    <Layout title={t.tooManyTitle}>
      <h1>{t.tooManyTitle}</h1>
      <p role="alert" data-error-code="second_factor_throttled">
        {t.tooManyCodes(Math.ceil(props.retryAfter / 60))}
      </p>
      <div class="actions">
        {props.back && <a class="button" href={props.back}>{t.back}</a>}
        <a class="button secondary" href="/signin">{t.signInAgain}</a>
      </div>
    </Layout>
  );
}

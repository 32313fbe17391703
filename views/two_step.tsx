// Two-step sign-in settings (/account/security/two-step): whether an authenticator app is set up, setting one up
// (QR code as inline SVG — the pages' CSP allows no outside image — plus the manual key in groups), confirming
// it with a first code, turning it off with the password, and new recovery codes, shown once.
//
// Exports: `TwoStepPage`, `TotpSetupPage` (account), and the parts the sign-in set-up walk (views/
// second_factor.tsx) shares: `TotpSetupParts`, `RecoveryCodeList`, `CodeField`.
import { type Text, textOf } from "../lib/i18n/mod.ts";
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";

/** The one-time-code field: numeric keyboard on phones, the browser's one-time-code autofill. */
export function CodeField(props: { id: string; label: string; autofocus?: boolean }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name="code"
        type="text"
        inputMode="numeric"
        autocomplete="one-time-code"
        pattern="[0-9 ]*"
        maxLength={7}
        autofocus={props.autofocus}
        required
      />
    </>
  );
}

export interface TotpSetup {
  /** the QR code of the otpauth:// URI, as an <svg> element's markup (uqr's renderSVG) */
  qrSvg: string;
  /** the secret in base32, grouped by four */
  manualKey: string;
  /** the sealed secret for the confirm form (lib/security/totp.ts sealSetup) */
  setup: string;
}

/** Scan or type, then confirm: the part of a set-up page the account and the sign-in walk share. */
export function TotpSetupParts(
  props: { totp: TotpSetup; action: string; hidden: Record<string, string>; problem?: Text },
) {
  const { t: all } = useI18n();
  const t = all.security;
  const problem = textOf(all, props.problem);
  return (
    <>
      <ol>
        <li>{t.setupStep1}</li>
        <li>{t.setupStep2}</li>
        <li>{t.setupStep3}</li>
      </ol>
      <div class="qr" role="img" aria-label={t.qrLabel}>
        {/* markup made by uqr from our own otpauth:// URI: rects and one path, no text from the request */}
        <div dangerouslySetInnerHTML={{ __html: props.totp.qrSvg }} />
      </div>
      <p>
        {t.keyInstead} <code class="secret key" id="manual-key" data-manual-key>{props.totp.manualKey}</code>
      </p>
      {problem && <p class="error" role="alert">{problem}</p>}
      <form method="post" action={props.action}>
        {Object.entries(props.hidden).map(([name, value]) => (
          <input
            type="hidden"
            name={name}
            value={value}
          />
        ))}
        <input type="hidden" name="setup" value={props.totp.setup} />
        <CodeField id="code" label={t.codeFromApp} />
        <div class="actions">
          <button type="submit">{t.turnOn}</button>
        </div>
      </form>
    </>
  );
}

/** New recovery codes, shown this once. */
export function RecoveryCodeList({ codes }: { codes: string[] }) {
  const t = useI18n().t.security;
  return (
    <section class="notice" aria-labelledby="codes-title">
      <h2 id="codes-title">{t.yourRecoveryCodes}</h2>
      <p>{t.saveCodes}</p>
      <ol class="codes" data-recovery-codes>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
    </section>
  );
}

export interface TwoStepPageProps {
  csrf: string;
  email: string;
  totp: boolean;
  passkeys: number;
  recoveryCodesLeft: number;
  /** recovery codes just created, shown this once */
  codes?: string[];
  notice?: Text;
  error?: Text;
}

export function TwoStepPage(props: TwoStepPageProps) {
  const { t: all } = useI18n();
  const t = all.security;
  const anyFactor = props.totp || props.passkeys > 0;
  return (
    <Layout title={t.twoStepTitle}>
      <AccountNav current="security" />
      <h1>{t.twoStepTitle}</h1>
      <p class="muted">{t.signedInAs(props.email)}</p>
      {props.notice && <p class="notice" role="status">{textOf(all, props.notice)}</p>}
      {props.error && <p class="error" role="alert">{textOf(all, props.error)}</p>}
      {props.codes && <RecoveryCodeList codes={props.codes} />}
      <h2>{t.authenticatorApp}</h2>
      {props.totp
        ? (
          <>
            <p data-totp-status="on">{t.totpOn}</p>
            <details>
              <summary>{t.turnOffApp}</summary>
              <form method="post" action="/account/security/two-step/off">
                <input type="hidden" name="csrf" value={props.csrf} />
                <label for="off-password">{t.yourPassword}</label>
                <input
                  id="off-password"
                  name="password"
                  type="password"
                  autocomplete="current-password"
                  required
                />
                <div class="actions">
                  <button type="submit" class="danger">{t.turnOff}</button>
                </div>
              </form>
            </details>
          </>
        )
        : (
          <>
            <p data-totp-status="off">{t.totpOff}</p>
            <div class="actions">
              <a class="button" href="/account/security/two-step/setup">{t.setUpApp}</a>
            </div>
          </>
        )}
      <h2>{t.recoveryCodes}</h2>
      {anyFactor
        ? (
          <>
            <p data-recovery-left={props.recoveryCodesLeft}>
              {t.unusedLeft(props.recoveryCodesLeft)}
              {props.recoveryCodesLeft <= 2 && ` ${t.runningOut}`}
            </p>
            <details>
              <summary>{t.createNewCodes}</summary>
              <p>{t.codesStop}</p>
              <form method="post" action="/account/security/two-step/recovery-codes">
                <input type="hidden" name="csrf" value={props.csrf} />
                <label for="codes-password">{t.yourPassword}</label>
                <input
                  id="codes-password"
                  name="password"
                  type="password"
                  autocomplete="current-password"
                  required
                />
                <div class="actions">
                  <button type="submit">{t.createNewCodes}</button>
                </div>
              </form>
            </details>
          </>
        )
        : <p>{t.codesComeWith}</p>}
      <div class="actions">
        <a class="button secondary" href="/account/security">{t.backToSecurity}</a>
      </div>
    </Layout>
  );
}

export function TotpSetupPage(props: { csrf: string; totp: TotpSetup; problem?: Text }) {
  const t = useI18n().t.security;
  return (
    <Layout title={t.setUpApp}>
      <h1>{t.setUpApp}</h1>
      <TotpSetupParts
        totp={props.totp}
        action="/account/security/two-step/setup"
        hidden={{ csrf: props.csrf }}
        problem={props.problem}
      />
      <div class="actions">
        <a class="button secondary" href="/account/security/two-step">{t.cancel}</a>
      </div>
    </Layout>
  );
}

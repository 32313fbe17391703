// Two-step sign-in settings (/account/security/two-step): whether an authenticator app is set up, setting one up
// (QR code as inline SVG — the pages' CSP allows no outside image — plus the manual key in groups), confirming
// it with a first code, turning it off with the password, and new recovery codes, shown once.
//
// Exports: `TwoStepPage`, `TotpSetupPage` (account), and the parts the sign-in set-up walk (views/
// second_factor.tsx) shares: `TotpSetupParts`, `RecoveryCodeList`, `CodeField`.
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";

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
  props: { totp: TotpSetup; action: string; hidden: Record<string, string>; problem?: string },
) {
  return (
    <>
      <ol>
        <li>
          Open an authenticator app on your phone (for example Google Authenticator, 1Password or Aegis).
        </li>
        <li>Scan this QR code, or type the key below into the app.</li>
        <li>Type the 6-digit code the app shows.</li>
      </ol>
      <div class="qr" role="img" aria-label="QR code for your authenticator app">
        {/* markup made by uqr from our own otpauth:// URI: rects and one path, no text from the request */}
        <div dangerouslySetInnerHTML={{ __html: props.totp.qrSvg }} />
      </div>
      <p>
        Key to type instead:{" "}
        <code class="secret key" id="manual-key" data-manual-key>{props.totp.manualKey}</code>
      </p>
      {props.problem && <p class="error" role="alert">{props.problem}</p>}
      <form method="post" action={props.action}>
        {Object.entries(props.hidden).map(([name, value]) => (
          <input
            type="hidden"
            name={name}
            value={value}
          />
        ))}
        <input type="hidden" name="setup" value={props.totp.setup} />
        <CodeField id="code" label="Code from the app" />
        <div class="actions">
          <button type="submit">Turn on two-step sign-in</button>
        </div>
      </form>
    </>
  );
}

/** New recovery codes, shown this once. */
export function RecoveryCodeList({ codes }: { codes: string[] }) {
  return (
    <section class="notice" aria-labelledby="codes-title">
      <h2 id="codes-title">Your recovery codes</h2>
      <p>
        Save these codes now, somewhere safe (a password manager, or printed): they are shown only this once.
        Each works one time, if you lose the phone with your authenticator app. Earlier recovery codes no
        longer work.
      </p>
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
  notice?: string;
  error?: string;
}

export function TwoStepPage(props: TwoStepPageProps) {
  const anyFactor = props.totp || props.passkeys > 0;
  return (
    <Layout title="Two-step sign-in">
      <AccountNav current="security" />
      <h1>Two-step sign-in</h1>
      <p class="muted">Signed in as {props.email}</p>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      {props.error && <p class="error" role="alert">{props.error}</p>}
      {props.codes && <RecoveryCodeList codes={props.codes} />}
      <h2>Authenticator app</h2>
      {props.totp
        ? (
          <>
            <p data-totp-status="on">
              On. After your password, sign-in asks for a code from your authenticator app.
            </p>
            <details>
              <summary>Turn off the authenticator app</summary>
              <form method="post" action="/account/security/two-step/off">
                <input type="hidden" name="csrf" value={props.csrf} />
                <label for="off-password">Your password</label>
                <input
                  id="off-password"
                  name="password"
                  type="password"
                  autocomplete="current-password"
                  required
                />
                <div class="actions">
                  <button type="submit" class="danger">Turn off</button>
                </div>
              </form>
            </details>
          </>
        )
        : (
          <>
            <p data-totp-status="off">Off. Sign-in asks for your password only.</p>
            <div class="actions">
              <a class="button" href="/account/security/two-step/setup">Set up an authenticator app</a>
            </div>
          </>
        )}
      <h2>Recovery codes</h2>
      {anyFactor
        ? (
          <>
            <p data-recovery-left={props.recoveryCodesLeft}>
              {props.recoveryCodesLeft === 1
                ? "1 unused recovery code left."
                : `${props.recoveryCodesLeft} unused recovery codes left.`}
              {props.recoveryCodesLeft <= 2 && " Create new ones before you run out."}
            </p>
            <details>
              <summary>Create new recovery codes</summary>
              <p>The codes you have now stop working.</p>
              <form method="post" action="/account/security/two-step/recovery-codes">
                <input type="hidden" name="csrf" value={props.csrf} />
                <label for="codes-password">Your password</label>
                <input
                  id="codes-password"
                  name="password"
                  type="password"
                  autocomplete="current-password"
                  required
                />
                <div class="actions">
                  <button type="submit">Create new recovery codes</button>
                </div>
              </form>
            </details>
          </>
        )
        : <p>Recovery codes come with an authenticator app or a passkey.</p>}
      <div class="actions">
        <a class="button secondary" href="/account/security">Back to security</a>
      </div>
    </Layout>
  );
}

export function TotpSetupPage(props: { csrf: string; totp: TotpSetup; problem?: string }) {
  return (
    <Layout title="Set up an authenticator app">
      <h1>Set up an authenticator app</h1>
      <TotpSetupParts
        totp={props.totp}
        action="/account/security/two-step/setup"
        hidden={{ csrf: props.csrf }}
        problem={props.problem}
      />
      <div class="actions">
        <a class="button secondary" href="/account/security/two-step">Cancel</a>
      </div>
    </Layout>
  );
}

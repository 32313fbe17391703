// The passkey pages: the sign-in page's passkey block, the second-factor page, and the
// account's passkeys (list, add, rename, remove). The ceremonies need /assets/passkeys.js (scripts/passkeys/
// client.ts): their elements are rendered `hidden` and the script shows them when the browser has WebAuthn, so
// without JavaScript nothing broken is on the page (password sign-in, renaming and removing still work).
//
// Exports: `PASSKEYS_SCRIPT_PATH`, `PASSKEY_CSP`, `PasskeySignIn`, `PasskeyScript`, `SecondFactorPasskeyPage`,
// `PasskeysPage`, `RenamePasskeyPage`, `RemovePasskeyConfirmPage`.
import type { PasskeyRow } from "../lib/security/passkeys.ts";
import { NAME_MAX } from "../lib/security/passkeys.ts";
import { ConfirmPage } from "./confirm.tsx";
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";
import { POLLING_CSP } from "./script.ts";

export const PASSKEYS_SCRIPT_PATH = "/assets/passkeys.js";
/** Pages with a passkey ceremony: same-origin scripts, and requests to this origin (options, answers). */
export const PASSKEY_CSP = POLLING_CSP;

export const PASSKEYS_PATH = "/account/security/passkeys";

/** The script element; the page's route must send PASSKEY_CSP. */
export function PasskeyScript() {
  return <script src={PASSKEYS_SCRIPT_PATH} defer></script>;
}

/** The sign-in page's passkey block: its fields (csrf, ticket, return_to) come from the form `formId`. */
export function PasskeySignIn({ formId }: { formId: string }) {
  const { t } = useI18n();
  return (
    <div
      class="passkey"
      data-passkey="sign-in"
      data-options="/signin/passkey/options"
      data-verify="/signin/passkey"
      data-form={formId}
      hidden
    >
      {/* "Use a passkey", not "Sign in with…": the password form's button stays the one named "Sign in". */}
      <p class="muted">{t.flow.signIn.passkeyOr}</p>
      <button type="button" class="secondary">{t.flow.signIn.passkeyButton}</button>
      <p class="muted" data-passkey-status role="status"></p>
      <PasskeyScript />
    </div>
  );
}

function when(d: Date | null): string {
  return d ? `${d.toISOString().slice(0, 16).replace("T", " ")} UTC` : "never";
}

export function SecondFactorPasskeyPage(props: { csrf: string; p: string; email: string }) {
  const href = `/signin/verify?p=${encodeURIComponent(props.p)}`;
  return (
    <Layout title="Confirm with a passkey">
      <h1>Confirm with a passkey</h1>
      <p>
        Signing in as <strong>{props.email}</strong>. Use one of your passkeys to finish signing in.
      </p>
      <form id="second-factor" method="post" action="/signin/verify/passkey">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="p" value={props.p} />
      </form>
      <div
        data-passkey="second-factor"
        data-options="/signin/verify/passkey/options"
        data-verify="/signin/verify/passkey"
        data-form="second-factor"
        hidden
      >
        <div class="actions">
          <button type="button">Use a passkey</button>
        </div>
        <p class="muted" data-passkey-status role="status"></p>
      </div>
      <noscript>
        <p>A passkey needs JavaScript in this browser. Use another way to sign in.</p>
      </noscript>
      <p>
        <a href={href}>Use another way</a>
      </p>
      <PasskeyScript />
    </Layout>
  );
}

export interface PasskeysPageProps {
  csrf: string;
  account: { email: string };
  passkeys: PasskeyRow[];
  notice?: string;
  error?: string;
  /** the name field's default, from the browser ("Passkey on Chrome (Linux)") */
  defaultName: string;
  /** MAX_PASSKEYS reached: no more can be added */
  full: boolean;
}

function PasskeyItem({ k }: { k: PasskeyRow }) {
  return (
    <li data-passkey-id={k.id}>
      <strong>{k.name}</strong>{" "}
      <span class="muted">
        {k.backedUp ? "synced by your passkey provider" : "on one device only"}, added{" "}
        {when(k.createdAt)}, last used {when(k.lastUsedAt)}
      </span>
      <div class="actions">
        <a class="button secondary" href={`${PASSKEYS_PATH}/rename?id=${k.id}`}>Rename {k.name}</a>
        <form method="get" action={`${PASSKEYS_PATH}/remove`}>
          <input type="hidden" name="id" value={k.id} />
          <button type="submit" class="danger">Remove {k.name}</button>
        </form>
      </div>
    </li>
  );
}

export function PasskeysPage(props: PasskeysPageProps) {
  return (
    <Layout title="Passkeys" wide>
      <AccountNav current="security" />
      <h1>Passkeys</h1>
      <p class="muted">Signed in as {props.account.email}</p>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      {props.error && <p class="error" role="alert">{props.error}</p>}
      <p>
        A passkey signs you in with your device's screen lock (fingerprint, face or PIN) instead of a
        password, and can confirm a sign-in as a second step after your password.
      </p>
      <h2>Your passkeys</h2>
      {props.passkeys.length === 0 ? <p class="muted">No passkeys yet.</p> : (
        <ul class="apps">
          {props.passkeys.map((k) => <PasskeyItem key={k.id} k={k} />)}
        </ul>
      )}
      <h2>Add a passkey</h2>
      {props.full
        ? <p class="muted">You have as many passkeys as an account may have. Remove one to add another.</p>
        : (
          <>
            <noscript>
              <p>Adding a passkey needs JavaScript in this browser.</p>
            </noscript>
            <div
              data-passkey="register"
              data-options={`${PASSKEYS_PATH}/options`}
              data-verify={PASSKEYS_PATH}
              data-form="add-passkey"
              hidden
            >
              <form id="add-passkey" method="post" action={PASSKEYS_PATH}>
                <input type="hidden" name="csrf" value={props.csrf} />
                <label for="passkey-name">Name</label>
                <input
                  id="passkey-name"
                  name="name"
                  type="text"
                  required
                  maxLength={NAME_MAX}
                  value={props.defaultName}
                />
                <div class="actions">
                  <button type="submit">Add a passkey</button>
                </div>
              </form>
              <p class="muted" data-passkey-status role="status"></p>
            </div>
            <PasskeyScript />
          </>
        )}
      <footer>
        <a href="/account/apps">Connected apps</a>
        <a href="/account/keys">API keys</a>
        <form method="post" action="/signout">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="return_to" value={PASSKEYS_PATH} />
          <button type="submit" class="link">Sign out</button>
        </form>
      </footer>
    </Layout>
  );
}

export function RenamePasskeyPage(props: { csrf: string; passkey: PasskeyRow; problem?: string }) {
  const k = props.passkey;
  return (
    <Layout title={`Rename ${k.name}`}>
      <h1>Rename {k.name}</h1>
      {props.problem && <p class="error" role="alert">{props.problem}</p>}
      <form method="post" action={`${PASSKEYS_PATH}/rename`}>
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="id" value={k.id} />
        <label for="passkey-name">New name</label>
        <input id="passkey-name" name="name" type="text" required maxLength={NAME_MAX} value={k.name} />
        <div class="actions">
          <button type="submit">Save</button>
          <a class="button secondary" href={PASSKEYS_PATH}>Cancel</a>
        </div>
      </form>
    </Layout>
  );
}

export function RemovePasskeyConfirmPage(props: { csrf: string; passkey: PasskeyRow; last: boolean }) {
  const k = props.passkey;
  return ConfirmPage({
    title: `Remove ${k.name}?`,
    csrf: props.csrf,
    action: `${PASSKEYS_PATH}/remove`,
    hidden: { id: k.id },
    confirmLabel: `Remove ${k.name}`,
    cancelHref: PASSKEYS_PATH,
    children: (
      <>
        <p>
          The passkey <strong>{k.name}</strong>{" "}
          stops working here at once: neither sign-in nor a second step accepts it any more. It stays on your
          device or in your passkey provider until you delete it there.
        </p>
        {props.last && <p>It is your last passkey: you will sign in with your password again.</p>}
      </>
    ),
  });
}

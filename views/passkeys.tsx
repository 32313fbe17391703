// The passkey pages: the sign-in page's passkey block, the second-factor page, and the
// account's passkeys (list, add, rename, remove). The ceremonies need /assets/passkeys.js (scripts/passkeys/
// client.ts): their elements are rendered `hidden` and the script shows them when the browser has WebAuthn, so
// without JavaScript nothing broken is on the page (password sign-in, renaming and removing still work).
//
// Exports: `PASSKEYS_SCRIPT_PATH`, `PASSKEY_CSP`, `PasskeySignIn`, `PasskeyScript`, `SecondFactorPasskeyPage`,
// `PasskeysPage`, `RenamePasskeyPage`, `RemovePasskeyConfirmPage`.
import type { Messages, Text } from "../lib/i18n/mod.ts";
import { textOf } from "../lib/i18n/mod.ts";
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

/**
 * What the script may say while a ceremony runs, in the page's language: data-say-* attributes of the ceremony's
 * element (scripts/passkeys/client.ts reads them), so the bundle carries no words of its own.
 */
function sayings(t: Messages): Record<string, string> {
  const s = t.security.passkeys.script;
  return {
    "data-say-waiting": s.waiting,
    "data-say-failed": s.failed,
    "data-say-duplicate": s.duplicate,
    "data-say-cancelled": s.cancelled,
    "data-say-refused": s.refused,
    "data-say-offline": s.offline,
  };
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
      {...sayings(t)}
      hidden
    >
      {/* "Use a passkey", not "Sign in with…": the password form's button stays the one named "Sign in". */}
      <p class="muted">{t.security.passkeys.orSignIn}</p>
      <button type="button" class="secondary">{t.security.passkeys.use}</button>
      <p class="muted" data-passkey-status role="status"></p>
      <PasskeyScript />
    </div>
  );
}

export function SecondFactorPasskeyPage(props: { csrf: string; p: string; email: string }) {
  const { t: all } = useI18n();
  const t = all.security.passkeys;
  const href = `/signin/verify?p=${encodeURIComponent(props.p)}`;
  return (
    <Layout title={t.confirmTitle}>
      <h1>{t.confirmTitle}</h1>
      <p>
        {t.signingInAs} <strong>{props.email}</strong>
        {t.finishSigningIn}
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
        {...sayings(all)}
        hidden
      >
        <div class="actions">
          <button type="button">{t.use}</button>
        </div>
        <p class="muted" data-passkey-status role="status"></p>
      </div>
      <noscript>
        <p>{t.needsScript}</p>
      </noscript>
      <p>
        <a href={href}>{t.useAnotherWay}</a>
      </p>
      <PasskeyScript />
    </Layout>
  );
}

export interface PasskeysPageProps {
  csrf: string;
  account: { email: string };
  passkeys: PasskeyRow[];
  notice?: Text;
  error?: Text;
  /** the name field's default, from the browser ("Passkey on Chrome (Linux)") */
  defaultName: string;
  /** MAX_PASSKEYS reached: no more can be added */
  full: boolean;
}

function PasskeyItem({ k }: { k: PasskeyRow }) {
  const { t: all, fmt } = useI18n();
  const t = all.security.passkeys;
  const when = (d: Date | null) => d ? fmt.time(d) : t.never;
  return (
    <li data-passkey-id={k.id}>
      <strong>{k.name}</strong>{" "}
      <span class="muted">
        {t.facts(k.backedUp ? t.synced : t.oneDevice, when(k.createdAt), when(k.lastUsedAt))}
      </span>
      <div class="actions">
        <a class="button secondary" href={`${PASSKEYS_PATH}/rename?id=${k.id}`}>{t.rename(k.name)}</a>
        <form method="get" action={`${PASSKEYS_PATH}/remove`}>
          <input type="hidden" name="id" value={k.id} />
          <button type="submit" class="danger">{t.remove(k.name)}</button>
        </form>
      </div>
    </li>
  );
}

export function PasskeysPage(props: PasskeysPageProps) {
  const { t: all } = useI18n();
  const t = all.security.passkeys;
  return (
    <Layout title={t.title} wide>
      <AccountNav current="security" />
      <h1>{t.title}</h1>
      <p class="muted">{all.security.signedInAs(props.account.email)}</p>
      {props.notice && <p class="notice" role="status">{textOf(all, props.notice)}</p>}
      {props.error && <p class="error" role="alert">{textOf(all, props.error)}</p>}
      <p>{t.intro}</p>
      <h2>{t.yours}</h2>
      {props.passkeys.length === 0 ? <p class="muted">{t.none}</p> : (
        <ul class="apps">
          {props.passkeys.map((k) => <PasskeyItem key={k.id} k={k} />)}
        </ul>
      )}
      <h2>{t.add}</h2>
      {props.full ? <p class="muted">{t.full}</p> : (
        <>
          <noscript>
            <p>{t.addNeedsScript}</p>
          </noscript>
          <div
            data-passkey="register"
            data-options={`${PASSKEYS_PATH}/options`}
            data-verify={PASSKEYS_PATH}
            data-form="add-passkey"
            {...sayings(all)}
            hidden
          >
            <form id="add-passkey" method="post" action={PASSKEYS_PATH}>
              <input type="hidden" name="csrf" value={props.csrf} />
              <label for="passkey-name">{t.name}</label>
              <input
                id="passkey-name"
                name="name"
                type="text"
                required
                maxLength={NAME_MAX}
                value={props.defaultName}
              />
              <div class="actions">
                <button type="submit">{t.add}</button>
              </div>
            </form>
            <p class="muted" data-passkey-status role="status"></p>
          </div>
          <PasskeyScript />
        </>
      )}
      <footer>
        <a href="/account/apps">{all.common.nav.apps}</a>
        <a href="/account/keys">{all.common.nav.keys}</a>
        <form method="post" action="/signout">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="return_to" value={PASSKEYS_PATH} />
          <button type="submit" class="link">{all.security.signOut}</button>
        </form>
      </footer>
    </Layout>
  );
}

export function RenamePasskeyPage(props: { csrf: string; passkey: PasskeyRow; problem?: Text }) {
  const { t: all } = useI18n();
  const t = all.security.passkeys;
  const k = props.passkey;
  const problem = textOf(all, props.problem);
  return (
    <Layout title={t.rename(k.name)}>
      <h1>{t.rename(k.name)}</h1>
      {problem && <p class="error" role="alert">{problem}</p>}
      <form method="post" action={`${PASSKEYS_PATH}/rename`}>
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="id" value={k.id} />
        <label for="passkey-name">{t.newName}</label>
        <input id="passkey-name" name="name" type="text" required maxLength={NAME_MAX} value={k.name} />
        <div class="actions">
          <button type="submit">{t.save}</button>
          <a class="button secondary" href={PASSKEYS_PATH}>{all.security.cancel}</a>
        </div>
      </form>
    </Layout>
  );
}

export function RemovePasskeyConfirmPage(props: { csrf: string; passkey: PasskeyRow; last: boolean }) {
  const t = useI18n().t.security.passkeys;
  const k = props.passkey;
  return (
    <ConfirmPage
      title={t.removeQuestion(k.name)}
      csrf={props.csrf}
      action={`${PASSKEYS_PATH}/remove`}
      hidden={{ id: k.id }}
      confirmLabel={t.remove(k.name)}
      cancelHref={PASSKEYS_PATH}
    >
      <p>
        {t.removeBefore} <strong>{k.name}</strong> {t.removeAfter}
      </p>
      {props.last && <p>{t.lastOne}</p>}
    </ConfirmPage>
  );
}

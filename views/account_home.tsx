// /account: the person's home — their profile (name and picture, which apps with `profile` get from UserInfo,
// and the language of the pages and mails), and what each account page holds, one line each with its link.
import type { AccountSummary } from "../lib/account_home.ts";
import { NAME_MAX, PICTURE_MAX } from "../lib/account_home.ts";
import { LOCALE_NAMES, LOCALES, type Text, textOf } from "../lib/i18n/mod.ts";
import { AccountNav } from "./account_nav.tsx";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";

export interface AccountHomeProps {
  csrf: string;
  summary: AccountSummary;
  /** the submitted values shown again with a problem, else the stored ones */
  form?: { name: string; picture: string; locale: string };
  problem?: Text;
  notice?: Text;
}

export function AccountHomePage(props: AccountHomeProps) {
  const { t: all } = useI18n();
  const t = all.home;
  const s = props.summary;
  const twoStep = s.factors.totp || s.factors.passkeys > 0
    ? [s.factors.totp ? t.authenticatorApp : "", s.factors.passkeys > 0 ? t.passkeys(s.factors.passkeys) : ""]
      .filter(Boolean).join(t.and)
    : t.twoStepOff;
  const form = props.form ?? { name: s.name, picture: s.picture ?? "", locale: s.locale ?? "" };
  const problem = textOf(all, props.problem);
  return (
    <Layout title={t.title} wide>
      <AccountNav current="home" />
      <h1>{t.title}</h1>
      <p class="muted">{t.signedInAs(s.email)}</p>
      {props.notice && <p class="notice" role="status">{textOf(all, props.notice)}</p>}
      <ul class="summary">
        <li data-summary="apps">
          <a href="/account/apps">{t.appsLine}</a>: {t.apps(s.apps)}
        </li>
        <li data-summary="keys">
          <a href="/account/keys">{t.keysLine}</a>: {t.keys(s.keys)}
        </li>
        <li data-summary="two-step">
          <a href="/account/security">{t.twoStepLine}</a>: {twoStep}
        </li>
        <li data-summary="sessions">
          <a href="/account/sessions">{t.sessionsLinePrefix}</a>
          {t.sessionsLine(s.sessions)}
        </li>
        <li data-summary="workspaces">
          <a href="/account/workspaces">{t.workspacesLine}</a>: {s.workspaces}
        </li>
      </ul>
      <h2>{t.profile}</h2>
      <p class="muted">{t.profileHint}</p>
      {problem && <p class="error" role="alert" id="profile-problem">{problem}</p>}
      <form method="post" action="/account/profile">
        <input type="hidden" name="csrf" value={props.csrf} />
        <label for="name">{t.name}</label>
        <input
          id="name"
          name="name"
          value={form.name}
          maxLength={NAME_MAX}
          autocomplete="name"
          required
          aria-describedby={problem ? "profile-problem" : undefined}
        />
        <label for="picture">{t.picture}</label>
        <input
          id="picture"
          name="picture"
          type="url"
          value={form.picture}
          maxLength={PICTURE_MAX}
          placeholder="https://"
          autocomplete="photo"
        />
        <label for="locale">{t.language}</label>
        <select id="locale" name="locale">
          <option value="" selected={form.locale === ""}>{t.languageAuto}</option>
          {LOCALES.map((l) => (
            // Each language in its own words, marked as such for screen readers (WCAG 3.1.2).
            <option key={l} value={l} lang={l} selected={form.locale === l}>{LOCALE_NAMES[l]}</option>
          ))}
        </select>
        <div class="actions">
          <button type="submit">{t.save}</button>
        </div>
      </form>
    </Layout>
  );
}

// A plain error page, for requests that cannot safely be sent back to the application: the title, what
// happened, a stable error code and the request id to quote to the operator, and, for a redirect URI the
// client did not register, the address sent beside the registered ones (as text, never as links).
import { useContext } from "preact/hooks";
import { type Text, textOf } from "../lib/i18n/mod.ts";
import { Layout } from "./layout.tsx";
import { PageContext, useI18n } from "./page_context.ts";

export interface ErrorPageProps {
  /** a catalogue text (`(t) => t.common.formExpiredTitle`); a plain string is looked up in ERROR_CODES */
  title: Text;
  message: Text;
  /** a stable code word; by default derived from the title (ERROR_CODES), else `error` */
  code?: string;
  /** an unregistered redirect URI: what was sent and what the client registered */
  redirect?: { sent: string; registered: string[] };
}

// Pages that pass an English title as a plain string and no code get their code word from here, so each page
// shows the same code word for the same failure. A translated title (a catalogue text) comes with its code.
export const ERROR_CODES: Record<string, string> = {
  "Unknown application": "unknown_client",
  "Invalid redirect": "invalid_redirect_uri",
  "This app needs an operator's approval": "client_not_approved",
  "This page has expired": "request_expired",
  "Form expired": "invalid_csrf",
  "Choose a workspace": "invalid_workspace",
  "Temporarily unavailable": "temporarily_unavailable",
};

function Reference({ code }: { code: string }) {
  const { requestId, i18n: { t } } = useContext(PageContext);
  return (
    <dl class="facts" data-error-code={code}>
      <dt>{t.common.errorCode}</dt>
      <dd>
        <code>{code}</code>
      </dd>
      {requestId && (
        <>
          <dt>{t.common.requestId}</dt>
          <dd>
            <code data-request-id>{requestId}</code>
          </dd>
        </>
      )}
    </dl>
  );
}

export function ErrorPage(props: ErrorPageProps) {
  const { t } = useI18n();
  const { code, redirect } = props;
  const title = textOf(t, props.title);
  const shown = code ?? (typeof props.title === "string" ? ERROR_CODES[props.title] : undefined) ?? "error";
  return (
    <Layout title={title}>
      <h1>{title}</h1>
      <p role="alert">{textOf(t, props.message)}</p>
      {redirect && (
        <dl class="facts uris">
          <dt>{t.common.redirectSent}</dt>
          <dd>
            <code data-redirect-sent>{redirect.sent}</code>
          </dd>
          <dt>{t.common.redirectRegistered}</dt>
          {redirect.registered.map((uri) => (
            <dd key={uri}>
              <code data-redirect-registered>{uri}</code>
            </dd>
          ))}
        </dl>
      )}
      <Reference code={shown} />
      <p class="muted">{t.common.quoteReference}</p>
    </Layout>
  );
}

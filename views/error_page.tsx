// A plain error page, for requests that cannot safely be sent back to the application: the title, what
// happened, a stable error code and the request id to quote to the operator, and, for a redirect URI the
// client did not register, the address sent beside the registered ones (as text, never as links).
import { useContext } from "preact/hooks";
import { Layout } from "./layout.tsx";
import { PageContext } from "./page_context.ts";

export interface ErrorPageProps {
  title: string;
  message: string;
  /** a stable code word; by default derived from the title (ERROR_CODES), else `error` */
  code?: string;
  /** an unregistered redirect URI: what was sent and what the client registered */
  redirect?: { sent: string; registered: string[] };
}

// Pages rendered by code outside views/ (authorize, middleware) pass only a title: their codes live here, in one
// place, so each page shows the same code word for the same failure.
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
  const { requestId } = useContext(PageContext);
  return (
    <dl class="facts" data-error-code={code}>
      <dt>Error code</dt>
      <dd>
        <code>{code}</code>
      </dd>
      {requestId && (
        <>
          <dt>Request id</dt>
          <dd>
            <code data-request-id>{requestId}</code>
          </dd>
        </>
      )}
    </dl>
  );
}

export function ErrorPage({ title, message, code, redirect }: ErrorPageProps) {
  const shown = code ?? ERROR_CODES[title] ?? "error";
  return (
    <Layout title={title}>
      <h1>{title}</h1>
      <p role="alert">{message}</p>
      {redirect && (
        <dl class="facts uris">
          <dt>Sent</dt>
          <dd>
            <code data-redirect-sent>{redirect.sent}</code>
          </dd>
          <dt>Registered</dt>
          {redirect.registered.map((uri) => (
            <dd key={uri}>
              <code data-redirect-registered>{uri}</code>
            </dd>
          ))}
        </dl>
      )}
      <Reference code={shown} />
      <p class="muted">If you contact the operator of this service, quote the error code and request id.</p>
    </Layout>
  );
}

// The consent page: who is asking (name, redirect host, self-registered or not), what each scope means, where
// its tokens go, the workspace it will act in and the tools it may use there (for `workspace`), Allow/Deny.
import { type Text, textOf } from "../lib/i18n/mod.ts";
import { Fill } from "./fill.tsx";
import { BrandName, Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";
import { type PlaceChoice, PlaceFieldset } from "./place_choice.tsx";
import { ToolsetChoice } from "./toolset_choice.tsx";

export interface ConsentProps {
  csrf: string;
  ticket: string;
  clientName: string;
  clientUri: string | null;
  redirectHost: string;
  selfRegistered: boolean;
  /** the host serving the app's Client ID Metadata Document, when its client_id is a URL */
  metadataHost: string | null;
  /** a metadata-document app that returns only to this computer (localhost) */
  loopbackOnly?: boolean;
  account: { email: string; name: string };
  /** each scope in words, in the page's language (lib/oauth/scopes.ts describeScopes) */
  scopes: Array<{ scope: string; text: Text }>;
  /** the workspaces (and companies) the person may let the app act in; present when `workspace` is asked */
  places?: PlaceChoice[];
  /** the place to check (the person's own choice, when the page is shown again); default the first */
  chosenPlace?: string;
  /** the toolsets and read-only choice to start from (for `workspace`): what this app had before, or none */
  limits?: { toolsets: readonly string[] | null; readOnly: boolean };
  /** why the page is shown again after Allow */
  problem?: Text;
  /** where the app's tokens are meant to be used, when that is not Portico's own tool server */
  audience?: string;
}

// scheme://host, then the rest (path, query, fragment); a value that does not look so is shown whole.
const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is;

/**
 * A URL as text that wraps on a phone without breaking inside its scheme: `scheme://host` is one unit that moves
 * to the next line whole (it breaks only when longer than a line, and never inside the scheme), the path after
 * it may break anywhere (views/style.ts, `code.url`).
 */
function UrlText({ url }: { url: string }) {
  const parts = URL_PARTS.exec(url);
  if (!parts) return <code class="url">{url}</code>;
  const [, scheme, host, rest] = parts;
  return (
    <code class="url">
      <span class="url-origin">
        <span class="url-scheme">{scheme}</span>
        {host}
      </span>
      {rest}
    </code>
  );
}

export function ConsentPage(props: ConsentProps) {
  const { t } = useI18n();
  const k = t.flow.consent;
  const canAllow = props.places === undefined || props.places.length > 0;
  return (
    <Layout title={k.title(props.clientName)}>
      <h1>
        <Fill text={k.heading} app={<strong>{props.clientName}</strong>} />
      </h1>
      <div class="whoami">
        <p class="muted">
          {t.flow.signedInAs(
            props.account.name ? `${props.account.name} (${props.account.email})` : props.account.email,
          )}
        </p>
        {/* Signs this account out and returns to this request's sign-in (routes/oauth_pages.ts). */}
        <form method="post" action="/oauth/authorize/switch">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="ticket" value={props.ticket} />
          <button type="submit" class="link">{k.notYou}</button>
        </form>
      </div>
      {props.problem && <p class="error" role="alert">{textOf(t, props.problem)}</p>}
      {
        /* The form holds the whole explanation so its sticky Allow/Deny bar (views/style.ts) is in view from
          the top of the page down, on a phone too. */
      }
      <form method="post" action="/oauth/authorize/consent">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="ticket" value={props.ticket} />
        <p>
          <Fill text={k.sentBack} app={props.clientName} host={<strong>{props.redirectHost}</strong>} />
          {props.metadataHost
            ? <Fill text={k.describedBy} host={props.metadataHost} brand={<BrandName />} />
            : props.selfRegistered
            ? <Fill text={k.selfRegistered} brand={<BrandName />} />
            : k.operatorRegistered}
          {props.clientUri && <Fill text={k.website} url={<UrlText url={props.clientUri} />} />}
        </p>
        {props.loopbackOnly && (
          <p class="error" data-warning="loopback">
            {k.loopback(props.clientName)}
          </p>
        )}
        <h2>{k.ableTo}</h2>
        <ul class="scopes">
          {props.scopes.map((s) => <li key={s.scope} data-scope={s.scope}>{textOf(t, s.text)}</li>)}
        </ul>
        {props.audience && (
          <p data-audience={props.audience}>
            <Fill text={k.audience} audience={<strong>{props.audience}</strong>} brand={<BrandName />} />
          </p>
        )}
        {props.places !== undefined && props.places.length > 0 && (
          <PlaceFieldset
            places={props.places}
            checked={props.chosenPlace}
            legend={k.placeLegend}
          />
        )}
        {props.places !== undefined && props.places.length > 0 && (
          <ToolsetChoice
            summary={k.limitSummary}
            toolsets={props.limits?.toolsets ?? null}
            readOnly={props.limits?.readOnly ?? false}
          />
        )}
        {props.places !== undefined && props.places.length === 0 && (
          <p class="notice">
            {k.noWorkspace(props.clientName)}
          </p>
        )}
        <p class="muted">{k.disconnectLater}</p>
        <div class="sticky-actions">
          <div class="actions">
            {canAllow && <button type="submit" name="decision" value="allow">{k.allow}</button>}
            <button type="submit" name="decision" value="deny" class="secondary">{k.deny}</button>
          </div>
        </div>
      </form>
    </Layout>
  );
}

// The consent page: who is asking (name, redirect host, self-registered or not), what each scope means, where
// its tokens go, the workspace it will act in and the tools it may use there (for `workspace`), Allow/Deny.
import { BrandName, Layout } from "./layout.tsx";
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
  scopes: Array<{ scope: string; text: string }>;
  /** the workspaces (and companies) the person may let the app act in; present when `workspace` is asked */
  places?: PlaceChoice[];
  /** the place to check (the person's own choice, when the page is shown again); default the first */
  chosenPlace?: string;
  /** the toolsets and read-only choice to start from (for `workspace`): what this app had before, or none */
  limits?: { toolsets: readonly string[] | null; readOnly: boolean };
  /** why the page is shown again after Allow */
  problem?: string;
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
  const canAllow = props.places === undefined || props.places.length > 0;
  return (
    <Layout title={`Allow ${props.clientName}?`}>
      <h1>
        Allow <strong>{props.clientName}</strong> to use your account?
      </h1>
      <div class="whoami">
        <p class="muted">
          Signed in as{" "}
          {props.account.name ? `${props.account.name} (${props.account.email})` : props.account.email}
        </p>
        {/* Signs this account out and returns to this request's sign-in (routes/oauth_pages.ts). */}
        <form method="post" action="/oauth/authorize/switch">
          <input type="hidden" name="csrf" value={props.csrf} />
          <input type="hidden" name="ticket" value={props.ticket} />
          <button type="submit" class="link">Not you? Use another account</button>
        </form>
      </div>
      {props.problem && <p class="error" role="alert">{props.problem}</p>}
      {
        /* The form holds the whole explanation so its sticky Allow/Deny bar (views/style.ts) is in view from
          the top of the page down, on a phone too. */
      }
      <form method="post" action="/oauth/authorize/consent">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="ticket" value={props.ticket} />
        <p>
          {props.clientName} will be sent back to <strong>{props.redirectHost}</strong>. {props.metadataHost
            ? (
              <>
                This application is described by {props.metadataHost}; <BrandName /> has not reviewed it.{" "}
              </>
            )
            : props.selfRegistered
            ? (
              <>
                This application registered itself; <BrandName />{" "}
                has not reviewed it. Only allow it if you trust it.
              </>
            )
            : "This application was registered by the operator of this service."}
          {props.clientUri && (
            <>
              {" "}Its website: <UrlText url={props.clientUri} />
            </>
          )}
        </p>
        {props.loopbackOnly && (
          <p class="error" data-warning="loopback">
            {props.clientName}{" "}
            returns to a program on your own computer. Anyone can publish an app description like this one:
            allow it only if you started this sign-in yourself, from that program, just now.
          </p>
        )}
        <h2>It will be able to:</h2>
        <ul class="scopes">
          {props.scopes.map((s) => <li key={s.scope} data-scope={s.scope}>{s.text}</li>)}
        </ul>
        {props.audience && (
          <p data-audience={props.audience}>
            Its access will be used at <strong>{props.audience}</strong>, a service other than <BrandName />.
          </p>
        )}
        {props.places !== undefined && props.places.length > 0 && (
          <PlaceFieldset
            places={props.places}
            checked={props.chosenPlace}
            legend="Where may it act as you?"
          />
        )}
        {props.places !== undefined && props.places.length > 0 && (
          <ToolsetChoice
            summary="Limit the tools it may use (optional)"
            toolsets={props.limits?.toolsets ?? null}
            readOnly={props.limits?.readOnly ?? false}
          />
        )}
        {props.places !== undefined && props.places.length === 0 && (
          <p class="notice">
            You are not a member of any workspace, so there is nothing {props.clientName}{" "}
            could use. You can only deny this request.
          </p>
        )}
        <p class="muted">You can disconnect it at any time under Connected apps.</p>
        <div class="sticky-actions">
          <div class="actions">
            {canAllow && <button type="submit" name="decision" value="allow">Allow</button>}
            <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
          </div>
        </div>
      </form>
    </Layout>
  );
}

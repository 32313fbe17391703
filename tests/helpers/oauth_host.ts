// What an MCP host brings to an OAuth test: an in-memory OAuthClientProvider for the official SDK client, a
// fetch that records every exchange the SDK makes, and a loopback redirect listener (RFC 8252) for the code.
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * An OAuthClientProvider as a host application writes one, keeping everything in memory. Without `preset`
 * client information the SDK registers itself (RFC 7591).
 */
export class MemoryProvider implements OAuthClientProvider {
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier: string | undefined;
  #state: string | undefined;
  /** every authorization URL the SDK asked the host to open */
  readonly authorizationUrls: URL[] = [];
  /** how many times the SDK stored fresh client information */
  saved = 0;

  constructor(
    readonly redirectUrl: string,
    readonly clientName: string,
    preset?: OAuthClientInformationMixed,
  ) {
    this.#client = preset;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state(): string {
    this.#state = crypto.randomUUID();
    return this.#state;
  }
  get lastState(): string | undefined {
    return this.#state;
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.saved++;
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier(): string {
    if (!this.#verifier) throw new Error("no code verifier saved");
    return this.#verifier;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "client") this.#client = undefined;
    if (scope === "all" || scope === "tokens") this.#tokens = undefined;
    if (scope === "all" || scope === "verifier") this.#verifier = undefined;
  }
  get lastAuthorizationUrl(): URL {
    const url = this.authorizationUrls.at(-1);
    if (!url) throw new Error("the SDK asked for no authorization");
    return url;
  }
}

/** One HTTP exchange as the recording fetch saw it. */
export interface SeenExchange {
  method: string;
  path: string;
  status: number;
  /** the form body of form posts (token requests) */
  form?: URLSearchParams;
}

/** A fetch for the SDK's transport that records each exchange; `since(mark)` lists them as "METHOD /path status". */
export function recordingFetch(): {
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  seen: SeenExchange[];
  since(mark: number): string[];
} {
  const seen: SeenExchange[] = [];
  return {
    seen,
    since: (mark) => seen.slice(mark).map((s) => `${s.method} ${s.path} ${s.status}`),
    async fetch(url, init) {
      const res = await fetch(url, init);
      seen.push({
        method: init?.method ?? "GET",
        path: new URL(url).pathname,
        status: res.status,
        form: init?.body instanceof URLSearchParams ? new URLSearchParams(init.body) : undefined,
      });
      return res;
    },
  };
}

/** A host's loopback redirect listener: every arrival at /callback, and a page saying the window may close. */
export function loopbackCallback(): { redirectUri: string; arrivals: URL[]; close(): Promise<void> } {
  const arrivals: URL[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/callback") arrivals.push(url);
    return new Response("<!doctype html><title>done</title><p>You can close this window.</p>", {
      headers: { "content-type": "text/html" },
    });
  });
  return {
    redirectUri: `http://127.0.0.1:${server.addr.port}/callback`,
    arrivals,
    close: () => server.shutdown(),
  };
}

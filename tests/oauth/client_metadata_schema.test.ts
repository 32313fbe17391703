// The one client-metadata schema: both surfaces (registration, metadata documents) apply the same rules, each in
// its own words and order; where they differ, the difference is a rule of one surface, pinned here.
import assert from "node:assert/strict";
import { GRANT_TYPES, REQUIRED_GRANT } from "../../lib/oauth/grants/names.ts";
import { orList } from "../../lib/oauth/client_metadata_schema.ts";
import { OAuthError } from "../../lib/oauth/errors.ts";
import { DocumentRefusal, validateMetadataDocument } from "../../lib/oauth/metadata_document.ts";
import { parseRegistrationMetadata } from "../../lib/oauth/registration.ts";

const URL_ID = "https://app.example.com/oauth/client.json";
const REDIRECT = "http://127.0.0.1:33418/callback";

/** null when registration accepts the body, else [error code, description]. */
function register(body: Record<string, unknown>): [string, string] | null {
  try {
    parseRegistrationMetadata(body);
    return null;
  } catch (e) {
    if (e instanceof OAuthError) return [e.error, e.description];
    throw e;
  }
}

/** null when a document with these fields is accepted, else the refusal. */
function document(body: Record<string, unknown>): string | null {
  try {
    validateMetadataDocument(URL_ID, { client_id: URL_ID, ...body });
    return null;
  } catch (e) {
    if (e instanceof DocumentRefusal) return e.message;
    throw e;
  }
}

Deno.test("shared rules: what one surface refuses, the other refuses too (each in its words)", () => {
  const refusedByBoth: Record<string, unknown>[] = [
    { redirect_uris: [] },
    { redirect_uris: Array(21).fill(REDIRECT) },
    { redirect_uris: ["http://app.example.com/cb"] },
    { redirect_uris: ["https://app.example.com/cb#x"] },
    { redirect_uris: [`https://app.example.com/${"a".repeat(2000)}`] },
    { redirect_uris: [REDIRECT], grant_types: [] },
    { redirect_uris: [REDIRECT], grant_types: ["client_credentials"] },
    { redirect_uris: [REDIRECT], grant_types: GRANT_TYPES.filter((g) => g !== REQUIRED_GRANT) },
    { redirect_uris: [REDIRECT], response_types: ["token"] },
    { redirect_uris: [REDIRECT], scope: "s".repeat(2001) },
    { redirect_uris: [REDIRECT], client_name: "   " },
    { redirect_uris: [REDIRECT], client_name: "n".repeat(201) },
    { redirect_uris: [REDIRECT], client_uri: "javascript:alert(1)" },
    { redirect_uris: [REDIRECT], client_uri: "not a url" },
    { redirect_uris: [REDIRECT], logo_uri: "ftp://app.example.com/l.png" },
  ];
  for (const body of refusedByBoth) {
    assert.notEqual(register(body), null, JSON.stringify(body).slice(0, 120));
    assert.notEqual(document(body), null, JSON.stringify(body).slice(0, 120));
  }
  const acceptedByBoth: Record<string, unknown>[] = [
    { redirect_uris: [REDIRECT] },
    { redirect_uris: [REDIRECT, "https://app.example.com/cb", "com.example.app:/cb"], client_name: "App" },
    { redirect_uris: [REDIRECT], grant_types: [...GRANT_TYPES], response_types: ["code"], scope: "openid" },
    {
      redirect_uris: [REDIRECT],
      client_uri: "http://app.example.com",
      logo_uri: "https://app.example.com/l",
    },
  ];
  for (const body of acceptedByBoth) {
    assert.equal(register(body), null, JSON.stringify(body));
    assert.equal(document(body), null, JSON.stringify(body));
  }
});

Deno.test("grant types are the registry's: every one is accepted, and the messages list them", () => {
  for (const g of GRANT_TYPES) {
    const grants = [...new Set([REQUIRED_GRANT, g])];
    assert.equal(register({ redirect_uris: [REDIRECT], grant_types: grants }), null, g);
    assert.equal(document({ redirect_uris: [REDIRECT], grant_types: grants }), null, g);
  }
  assert.deepEqual(register({ redirect_uris: [REDIRECT], grant_types: ["password"] }), [
    "invalid_client_metadata",
    `grant_types.0 must be ${orList(GRANT_TYPES)}`,
  ]);
  assert.equal(
    document({ redirect_uris: [REDIRECT], grant_types: ["password"] }),
    `grant type password is not supported (${GRANT_TYPES.join(", ")})`,
  );
  const withoutRequired = GRANT_TYPES.filter((g) => g !== REQUIRED_GRANT);
  assert.deepEqual(register({ redirect_uris: [REDIRECT], grant_types: withoutRequired }), [
    "invalid_client_metadata",
    `grant_types must include ${REQUIRED_GRANT}`,
  ]);
  assert.equal(
    document({ redirect_uris: [REDIRECT], grant_types: withoutRequired }),
    `grant_types must include ${REQUIRED_GRANT}`,
  );
});

Deno.test("each surface reports its first problem in its own order", () => {
  // Registration: a field of the wrong shape before a refused redirect URI; documents: field by field.
  const body = { redirect_uris: ["http://app.example.com/cb"], scope: 5 };
  assert.deepEqual(register(body), [
    "invalid_client_metadata",
    "scope Invalid input: expected string, received number",
  ]);
  assert.equal(
    document(body),
    "redirect_uris: http://app.example.com/cb may use http only for loopback hosts",
  );
  // A refused redirect URI is invalid_redirect_uri, named without its index.
  assert.deepEqual(register({ redirect_uris: [REDIRECT, "http://app.example.com/cb"] }), [
    "invalid_redirect_uri",
    "redirect_uris: http://app.example.com/cb may use http only for loopback hosts",
  ]);
  // Documents judge client_name after scope; registration before redirect_uris.
  const both = { redirect_uris: [], client_name: "" };
  assert.deepEqual(register(both), ["invalid_client_metadata", "client_name must not be empty"]);
  assert.equal(document(both), "redirect_uris must list at least one URI");
});

Deno.test("rules of one surface: documents are public clients with an https logo and a plain name", () => {
  const differs: [Record<string, unknown>, string][] = [
    [{ token_endpoint_auth_method: "client_secret_basic" }, "token_endpoint_auth_method client_secret_basic"],
    [{ logo_uri: "http://app.example.com/l.png" }, "logo_uri must be an https URL"],
    [{ client_name: "Good\u202eevil" }, "client_name must not contain control or text-direction characters"],
    // The 200 counts the name as written in a document, the trimmed name in a registration.
    [{ client_name: `${"n".repeat(200)} ` }, "client_name must be 1-200 characters"],
  ];
  for (const [extra, refusal] of differs) {
    const body = { redirect_uris: [REDIRECT], ...extra };
    assert.equal(register(body), null, JSON.stringify(extra));
    assert.ok(document(body)?.startsWith(refusal), `${document(body)}`);
  }
  assert.equal(
    document({ redirect_uris: [REDIRECT], client_secret: "x" }),
    "the document must not contain client_secret (a shared secret cannot be published)",
  );
});

Deno.test("redirect URIs: any private-use scheme (Cursor's cursor: too) but schemes that are never a callback", () => {
  for (
    const uri of [
      "cursor://anysphere.cursor-mcp/oauth/callback",
      "vscode://vscode.github-authentication/did-authenticate",
      "com.example.app:/oauth",
      "myapp:callback",
    ]
  ) {
    assert.equal(register({ redirect_uris: [uri] }), null, uri);
    assert.equal(document({ redirect_uris: [uri] }), null, uri);
  }
  for (
    const scheme of [
      "javascript",
      "vbscript",
      "data",
      "blob",
      "about",
      "file",
      "filesystem",
      "view-source",
      "ftp",
      "ws",
      "wss",
      "mailto",
      "tel",
      "intent",
      "urn",
    ]
  ) {
    const uri = `${scheme}:x/callback`;
    const why =
      `uses the scheme ${scheme}:, which is never an app's callback (use https, loopback http, or the ` +
      "app's own scheme such as com.example.app:/callback)";
    assert.deepEqual(register({ redirect_uris: [uri] }), [
      "invalid_redirect_uri",
      `redirect_uris: ${uri} ${why}`,
    ]);
    assert.equal(document({ redirect_uris: [uri] }), `redirect_uris: ${uri} ${why}`);
  }
  // Upper case is the same scheme; a one-letter "scheme" is a Windows path.
  assert.equal(register({ redirect_uris: ["JavaScript:alert(1)"] })?.[0], "invalid_redirect_uri");
  assert.equal(register({ redirect_uris: ["c:\\Users\\cb"] })?.[0], "invalid_redirect_uri");
  // Fragments and wildcards stay refused whatever the scheme.
  assert.match(register({ redirect_uris: ["cursor://a/cb#x"] })![1], /fragment/);
  assert.match(register({ redirect_uris: ["cursor://*/cb"] })![1], /wildcards/);
});

Deno.test("application_type: web or native on both surfaces, anything else refused", () => {
  for (const type of ["web", "native"]) {
    assert.equal(register({ redirect_uris: [REDIRECT], application_type: type }), null, type);
    assert.equal(document({ redirect_uris: [REDIRECT], application_type: type }), null, type);
  }
  // It constrains no redirect URI: native with https (VS Code), web with a private-use scheme (Cursor).
  assert.equal(
    register({ redirect_uris: ["https://vscode.dev/redirect", REDIRECT], application_type: "native" }),
    null,
  );
  assert.equal(document({ redirect_uris: ["cursor://a/cb"], application_type: "web" }), null);
  for (const bad of ["service", "Native", "", 1]) {
    assert.deepEqual(register({ redirect_uris: [REDIRECT], application_type: bad }), [
      "invalid_client_metadata",
      "application_type must be web or native",
    ]);
    assert.equal(
      document({ redirect_uris: [REDIRECT], application_type: bad }),
      "application_type must be web or native",
    );
  }
});

Deno.test("documents: a grant type Portico lacks beside authorization_code is dropped (VS Code's device code)", () => {
  const vscode = {
    client_id: "https://vscode.dev/oauth/client-metadata.json",
    client_name: "Visual Studio Code",
    logo_uri: "https://code.visualstudio.com/assets/branding/code-stable.png",
    grant_types: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    application_type: "native",
    client_uri: "https://vscode.dev/product",
    redirect_uris: ["http://127.0.0.1:33418/", "https://vscode.dev/redirect"],
  };
  const doc = validateMetadataDocument(vscode.client_id, vscode);
  assert.deepEqual(doc.grantTypes, ["authorization_code", "refresh_token"]);
  assert.deepEqual(doc.redirectUris, vscode.redirect_uris);
  // Registration stays strict: the client can change its request (VS Code filters by grant_types_supported).
  assert.deepEqual(register({ redirect_uris: [REDIRECT], grant_types: vscode.grant_types }), [
    "invalid_client_metadata",
    `grant_types.2 must be ${orList(GRANT_TYPES)}`,
  ]);
  // Without authorization_code the document is refused, naming the first unsupported grant, as before.
  assert.equal(
    document({ redirect_uris: [REDIRECT], grant_types: ["urn:ietf:params:oauth:grant-type:device_code"] }),
    `grant type urn:ietf:params:oauth:grant-type:device_code is not supported (${GRANT_TYPES.join(", ")})`,
  );
  assert.equal(
    document({ redirect_uris: [REDIRECT], grant_types: ["authorization_code", 7] }),
    `grant type of a wrong type is not supported (${GRANT_TYPES.join(", ")})`,
  );
});

/// <reference lib="dom" />
// The passkey pages' script (bundled with @simplewebauthn/browser into /assets/passkeys.js by
// scripts/build_passkeys.ts). Every element `[data-passkey]` is one ceremony, shown only when the browser has
// WebAuthn (without it, or without JavaScript, the element stays hidden and the page's other ways remain):
//
// - data-passkey="sign-in" | "second-factor" | "register"
// - data-options / data-verify: the JSON endpoints (options, then the authenticator's answer)
// - data-form: the id of the form whose fields (csrf, ticket, return_to, p, name) go with both requests
// - a `button` (sign-in, second factor) or the form's submit (register) starts it; `[data-passkey-status]` says
//   what went wrong: the server's `error_description`, or one of the element's data-say-waiting, -failed,
//   -duplicate, -cancelled, -refused, -offline texts (the page's language; this script has no words of its own).
//
// On the sign-in page the browser may also offer passkeys in the email field's autofill (conditional UI).
// The server answers `{ redirect }` on success (same-origin path) or `{ error, error_description }`.
import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  startRegistration,
} from "@simplewebauthn/browser";

const FIELDS = ["csrf", "ticket", "return_to", "p", "name"];

function fieldsOf(form: HTMLFormElement | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!form) return out;
  for (const [k, v] of new FormData(form)) if (FIELDS.includes(k) && typeof v === "string") out[k] = v;
  return out;
}

async function post(url: string, body: unknown): Promise<{ ok: boolean; data: Record<string, unknown> }> {
  const answer = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    credentials: "same-origin",
    body: JSON.stringify(body),
  });
  const data = await answer.json().catch(() => ({}));
  return { ok: answer.ok, data };
}

function samePath(value: unknown): value is string {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//") &&
    !value.startsWith("/\\");
}

function setUp(el: HTMLElement): void {
  const kind = el.dataset.passkey;
  const form = document.getElementById(el.dataset.form ?? "") as HTMLFormElement | null;
  const status = el.querySelector<HTMLElement>("[data-passkey-status]");
  const say = (text: string) => {
    if (status) status.textContent = text;
  };
  /** One of the page's texts for the script (data-say-<name>). */
  const text = (name: string) => el.getAttribute(`data-say-${name}`) ?? "";
  let busy = false;
  // The autofill ceremony's options, asked for at load: a click waits for them, so its own options (and
  // challenge cookie) come last and are the ones the server checks.
  let optionsAsked: () => void = () => {};
  const autofillOptions = new Promise<void>((resolve) => optionsAsked = resolve);

  const run = async (autofill: boolean) => {
    if (busy && !autofill) return;
    if (!autofill) busy = true;
    try {
      const body = fieldsOf(form);
      if (!autofill) {
        say(text("waiting"));
        await autofillOptions;
      }
      const options = await post(el.dataset.options!, body).finally(() => {
        if (autofill) optionsAsked();
      });
      if (!options.ok) {
        return say(String(options.data.error_description ?? text("failed")));
      }
      let response: unknown;
      try {
        response = kind === "register"
          // deno-lint-ignore no-explicit-any
          ? await startRegistration({ optionsJSON: options.data as any })
          // deno-lint-ignore no-explicit-any
          : await startAuthentication({ optionsJSON: options.data as any, useBrowserAutofill: autofill });
      } catch (err) {
        if (autofill) return;
        const name = err instanceof Error ? err.name : "";
        return say(text(name === "InvalidStateError" ? "duplicate" : "cancelled"));
      }
      const answer = await post(el.dataset.verify!, { ...body, response });
      if (answer.ok && samePath(answer.data.redirect)) return location.assign(answer.data.redirect);
      say(String(answer.data.error_description ?? text("refused")));
    } catch {
      say(text("offline"));
    } finally {
      if (!autofill) busy = false;
    }
  };

  if (kind === "register" && form) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      run(false);
    });
  } else {
    el.querySelector("button")?.addEventListener("click", () => run(false));
  }
  el.hidden = false;
  if (kind === "sign-in") {
    browserSupportsWebAuthnAutofill().then((yes) => yes ? run(true) : optionsAsked(), () => optionsAsked());
  } else {
    optionsAsked();
  }
}

if (browserSupportsWebAuthn()) {
  for (const el of document.querySelectorAll<HTMLElement>("[data-passkey]")) setUp(el);
}

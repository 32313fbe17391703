// How a person signed in, in the words ID tokens use: RFC 8176 `amr` values and Portico's two `acr` values.
//
// - Password alone: amr ["pwd"], acr ACR_SINGLE.
// - Password then a one-time code (TOTP or a recovery code): ["pwd", "otp", "mfa"], acr ACR_MULTI.
// - Password then a passkey as second factor: ["pwd", "hwk", "mfa"], acr ACR_MULTI.
// - A passkey alone with user verification (PIN or biometric on the authenticator): ["hwk", "user", "mfa"]
//   ("user": the authenticator verified the person; the key and that check are two factors), acr ACR_MULTI.
// `mfa` is added whenever two independent factors were used; `isMultiFactor` asks for it.

/** RFC 8176 values Portico emits. */
export type AmrValue = "pwd" | "otp" | "hwk" | "user" | "mfa";

/** acr for a sign-in with one factor. */
export const ACR_SINGLE = "urn:portico:acr:1fa";
/** acr for a sign-in with two factors (or a user-verified passkey). */
export const ACR_MULTI = "urn:portico:acr:2fa";
/** Discovery's `acr_values_supported`, weakest first. */
export const ACR_VALUES_SUPPORTED = [ACR_SINGLE, ACR_MULTI] as const;

const KNOWN = new Set<string>(["pwd", "otp", "hwk", "user", "mfa"]);
const ORDER = ["pwd", "hwk", "otp", "user", "mfa"];

/** amr as stored (text[]): known values only, each once, in a stable order. */
export function normalizeAmr(values: readonly string[]): AmrValue[] {
  const set = new Set(values.filter((v) => KNOWN.has(v)));
  return ORDER.filter((v) => set.has(v)) as AmrValue[];
}

/** Whether the sign-in used two factors. */
export function isMultiFactor(amr: readonly string[]): boolean {
  return amr.includes("mfa");
}

/** The acr an ID token carries for these methods. */
export function acrOf(amr: readonly string[]): string {
  return isMultiFactor(amr) ? ACR_MULTI : ACR_SINGLE;
}

/** The methods after a second factor (`otp` or `hwk`) was added to a first one: always with `mfa`. */
export function withSecondFactor(amr: readonly string[], factor: "otp" | "hwk"): AmrValue[] {
  return normalizeAmr([...amr, factor, "mfa"]);
}

/** The methods of a passkey sign-in: user verification makes it two factors. */
export function passkeyAmr(userVerified: boolean): AmrValue[] {
  return userVerified ? ["hwk", "user", "mfa"] : ["hwk"];
}

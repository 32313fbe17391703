// A fetch Portico refused or could not complete, with a reason fit to show: remote text made printable and bounded.

/** Why a fetch was refused or failed; the message is meant for the person and the remote's developer. */
export class FetchRefusal extends Error {}

/**
 * Text from elsewhere made safe to quote in an OAuth error_description (RFC 6749 allows %x20-21 / %x23-5B /
 * %x5D-7E only) or a log line: anything else becomes `?`, and more than `max` characters end in `...`.
 */
export function printable(text: string, max = 400): string {
  const safe = text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "?");
  return safe.length > max ? `${safe.slice(0, max - 3)}...` : safe;
}

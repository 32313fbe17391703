// Byte sizes of text as it travels: UTF-8, and UTF-8 inside a JSON string (escapes included), without encoding.
import { Buffer } from "node:buffer";

/** UTF-8 bytes of `s` (a lone surrogate counts 3, as TextEncoder writes U+FFFD for it); native, no copy. */
export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/**
 * UTF-8 bytes of `s` once JSON.stringify has escaped it, without the enclosing quotes: `"` and `\` take 2,
 * \b \f \n \r \t take 2, other control characters and lone surrogates take 6 (\uXXXX).
 */
export function jsonStringBytes(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x80) {
      if (c === 0x22 || c === 0x5c) n += 1;
    } else if (c < 0x20) {
      n += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 1 : 5;
    } else if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        n += 2;
        i++;
      } else n += 5;
    } else n += 2;
  }
  return n;
}

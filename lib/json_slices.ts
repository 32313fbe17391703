// Long texts escaped as JSON strings a slice at a time, letting other requests run between slices: escaping a 10 MiB
// export in one go held every other request for tens of milliseconds (bench/export_stall.ts).

/** Content texts longer than this (UTF-16 units) are escaped in slices of it, letting other requests run between. */
export const SLICE_CHARS = 512 * 1024;

export const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** JSON.stringify(text), escaped SLICE_CHARS at a time with a yield between slices. */
export async function escapeInSlices(text: string): Promise<string> {
  let out = '"';
  for (let i = 0; i < text.length;) {
    let end = Math.min(i + SLICE_CHARS, text.length);
    // never between the halves of a surrogate pair: each half alone would be escaped as \uXXXX
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    out += JSON.stringify(text.slice(i, end)).slice(1, -1);
    i = end;
    if (i < text.length) await yieldToEventLoop();
  }
  return out + '"';
}

// A tool result as JSON text within the bytes one /mcp answer may still carry: the one place a result becomes
// JSON, the one byte bound on it, and the slicing that keeps a 10 MiB export from holding every other request.
import { utf8Bytes } from "../json_bytes.ts";
import type { ToolResult } from "./errors.ts";

/**
 * The most bytes (UTF-8) one HTTP answer of /mcp carries, a batch's answers together: a tool result over what is
 * left is replaced by a notice, and batch members after the limit is reached are not run. Tools that can grow
 * (export_contacts) cut themselves below it first and say how to get the rest.
 */
export const ANSWER_MAX_BYTES = 16 * 1024 * 1024;

/** Per HTTP request: the bytes its answer may still carry, and whether a result already did not fit. */
export interface Room {
  left: number;
  full: boolean;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Room for the JSON-RPC envelope around a result: `{"jsonrpc":"2.0","id":…,"result":…}` with a long id. */
export const ENVELOPE_BYTES = 1024;
/** Content texts longer than this (UTF-16 units) are escaped in slices of it, letting other requests run between. */
export const SLICE_CHARS = 512 * 1024;

const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The one place a tool result becomes JSON, and the one byte bound on it: a result larger than the room left is
 * not sent, and the room is marked full. In its place comes a result (not an error: the call ran, and a write
 * it made stands) whose text says how large the answer was and how to ask for less.
 */
export async function serialiseResult(result: ToolResult, params: unknown, room: Room): Promise<string> {
  const limit = Math.max(room.left - ENVELOPE_BYTES, 0);
  let json: string | null = null;
  try {
    json = await resultJson(result);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err; // "Invalid string length": larger than any answer can be
  }
  // A UTF-16 unit is at most 3 UTF-8 bytes: most answers need no counting.
  const bytes = json === null ? null : json.length * 3 <= limit ? 0 : utf8Bytes(json);
  if (json !== null && bytes !== null && bytes <= limit) return json;
  room.full = true;
  const tool = isObject(params) && typeof params.name === "string" ? params.name : "the tool";
  const notice = {
    truncated: true,
    answerBytes: bytes,
    limitBytes: limit,
    message: `The answer of ${tool} was ${bytes === null ? "too large to build" : `${bytes} bytes`}, more ` +
      `than the ${limit} bytes this answer could still carry (${ANSWER_MAX_BYTES} per HTTP answer, a batch's ` +
      "answers together), so it was not sent. The call itself completed. Ask for less: a smaller limit, a " +
      "narrower filter, a later offset, or one call per request.",
  };
  return JSON.stringify({
    content: [{ type: "text", text: JSON.stringify(notice) }],
    structuredContent: notice,
  });
}

/**
 * JSON.stringify(result), except that long content texts (an exported CSV of 10 MiB) are escaped slice by
 * slice with the event loop let through between slices, and then structuredContent is serialised on its own
 * turn: escaping such an answer in one go held every other request for tens of milliseconds
 * (bench/export_stall.ts).
 */
async function resultJson(result: ToolResult): Promise<string> {
  // Most answers hold no long text: one JSON.stringify, nothing else (not even the nonce below).
  if (!result.content.some(isLong)) return JSON.stringify(result);
  const long: (() => Promise<string>)[] = [];
  const nonce = crypto.randomUUID();
  // A stand-in no tool text can hold (a NUL cannot come from Postgres, and the nonce is new), spliced out below.
  const standIn = (json: () => Promise<string>) => `\u0000${nonce}:${long.push(json) - 1}\u0000`;
  const content = result.content.map((block) => {
    if (block.type === "text" && block.text.length > SLICE_CHARS) {
      return { ...block, text: standIn(() => escapeInSlices(block.text)) };
    }
    if (block.type === "resource" && block.resource.text.length > SLICE_CHARS) {
      const text = block.resource.text;
      return { ...block, resource: { ...block.resource, text: standIn(() => escapeInSlices(text)) } };
    }
    return block;
  });
  if (long.length === 0) return JSON.stringify(result);
  const structured = result.structuredContent;
  const rest = structured === undefined ? { ...result, content } : {
    ...result,
    content,
    structuredContent: standIn(async () => {
      await yieldToEventLoop();
      return JSON.stringify(structured);
    }),
  };
  let json = JSON.stringify(rest);
  for (const [i, part] of long.entries()) {
    const marker = JSON.stringify(`\u0000${nonce}:${i}\u0000`);
    const at = json.indexOf(marker);
    json = `${json.slice(0, at)}${await part()}${json.slice(at + marker.length)}`;
  }
  return json;
}

function isLong(block: ToolResult["content"][number]): boolean {
  return (block.type === "text" && block.text.length > SLICE_CHARS) ||
    (block.type === "resource" && block.resource.text.length > SLICE_CHARS);
}

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

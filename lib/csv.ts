// CSV for spreadsheet users: RFC 4180 quoting, CRLF lines, a UTF-8 byte order mark, and a formula-injection guard.
import { utf8Bytes } from "./json_bytes.ts";

/** Excel and LibreOffice read a leading U+FEFF as "this file is UTF-8" (without it, accents turn into mojibake). */
export const CSV_BOM = "\uFEFF";
/** RFC 4180 line break. */
export const CSV_EOL = "\r\n";

// A cell starting with one of these is evaluated as a formula by spreadsheets (OWASP "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;
// RFC 4180: a field holding a quote, a comma or a line break is enclosed in double quotes.
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One cell: null/undefined → empty, formula starts neutralised with a leading apostrophe (spreadsheets show the
 * text as typed; the apostrophe is the conventional marker), then quoted when needed with `"` doubled.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let s = typeof value === "string" ? value : String(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One record as a CSV line, including the CRLF. */
export function csvRow(values: readonly unknown[]): string {
  return values.map(csvCell).join(",") + CSV_EOL;
}

/** A whole document: BOM, header line, then the rows. */
export function toCsv(header: readonly string[], rows: Iterable<readonly unknown[]>): string {
  const parts = [CSV_BOM, csvRow(header)];
  for (const r of rows) parts.push(csvRow(r));
  return parts.join("");
}

/**
 * A document (BOM and header first) built record by record within a byte budget. `measure` says what a piece of
 * text costs where the document goes (UTF-8 by default; inside a JSON answer, its escaped size), so the budget
 * holds for the bytes actually sent. Appending builds a rope: nothing is copied per record.
 */
export class CsvBuilder {
  #text: string;
  /** bytes of the text so far, as `measure` counts them */
  bytes: number;
  /** records appended (the header not counted) */
  rows = 0;

  constructor(
    header: readonly string[],
    readonly maxBytes: number,
    readonly measure: (text: string) => number = utf8Bytes,
  ) {
    this.#text = CSV_BOM + csvRow(header);
    this.bytes = measure(this.#text);
  }

  /** Appends one record; false, and nothing appended, when it would take the document past maxBytes. */
  add(values: readonly unknown[]): boolean {
    const line = csvRow(values);
    const size = this.measure(line);
    if (this.bytes + size > this.maxBytes) return false;
    this.#text += line;
    this.bytes += size;
    this.rows++;
    return true;
  }

  get text(): string {
    return this.#text;
  }
}

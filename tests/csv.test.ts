// lib/csv.ts: quoting, BOM, line breaks and the formula-injection guard, byte for byte.
import assert from "node:assert/strict";
import { CSV_BOM, csvCell, csvRow, toCsv } from "../lib/csv.ts";

Deno.test("csvCell leaves plain text alone and empties null/undefined", () => {
  assert.equal(csvCell("Acme"), "Acme");
  assert.equal(csvCell("Zürich – Café"), "Zürich – Café");
  assert.equal(csvCell(null), "");
  assert.equal(csvCell(undefined), "");
  assert.equal(csvCell(""), "");
  assert.equal(csvCell(42), "42");
});

Deno.test("csvCell quotes commas, quotes and line breaks (RFC 4180)", () => {
  assert.equal(csvCell("a,b"), '"a,b"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell("line1\nline2"), '"line1\nline2"');
  assert.equal(csvCell("line1\r\nline2"), '"line1\r\nline2"');
  assert.equal(csvCell('"'), '""""');
});

Deno.test("csvCell neutralises every formula start: = + - @ tab CR", () => {
  assert.equal(csvCell("=1+1"), "'=1+1");
  assert.equal(csvCell("+41 79 000 00 00"), "'+41 79 000 00 00");
  assert.equal(csvCell("-2"), "'-2");
  assert.equal(csvCell("@SUM(A1)"), "'@SUM(A1)");
  assert.equal(csvCell("\tcmd"), "'\tcmd");
  // CR also needs quoting, after the guard
  assert.equal(csvCell("\rcmd"), '"\'\rcmd"');
  assert.equal(csvCell('=HYPERLINK("http://x","y")'), '"\'=HYPERLINK(""http://x"",""y"")"');
  // only the first character counts
  assert.equal(csvCell("a=b"), "a=b");
  assert.equal(csvCell(" =x"), " =x");
});

Deno.test("csvRow joins with commas and ends with CRLF", () => {
  assert.equal(csvRow(["a", null, "b,c"]), 'a,,"b,c"\r\n');
});

Deno.test("toCsv starts with the UTF-8 BOM and a header line", () => {
  const csv = toCsv(["name", "email"], [["Ann", "ann@x.test"], ["=evil", null]]);
  assert.equal(csv, "\uFEFFname,email\r\nAnn,ann@x.test\r\n'=evil,\r\n");
  const bytes = new TextEncoder().encode(csv);
  assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf]);
  assert.equal(CSV_BOM, "\uFEFF");
});

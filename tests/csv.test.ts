// lib/csv.ts: quoting, BOM, line breaks and the formula-injection guard, byte for byte.
import assert from "node:assert/strict";
import { CSV_BOM, CsvBuilder, csvCell, csvRow, toCsv } from "../lib/csv.ts";
import { jsonStringBytes, utf8Bytes } from "../lib/json_bytes.ts";

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

Deno.test("jsonStringBytes and utf8Bytes agree with JSON.stringify and TextEncoder on every kind of character", () => {
  const enc = new TextEncoder();
  const samples = [
    "",
    "plain ascii",
    '"quoted" and \\ backslash',
    "\b\f\n\r\t",
    "\u0000\u0001\u001f\u007f",
    "é ü ß € 中文",
    "😀 a pair",
    "\ud800 lone high, lone low \udc00, reversed \udc00\ud800",
    "\u2028\u2029",
    '""'.repeat(1000),
  ];
  for (const s of samples) {
    assert.equal(jsonStringBytes(s), enc.encode(JSON.stringify(s)).length - 2, JSON.stringify(s));
    assert.equal(utf8Bytes(s), enc.encode(s).length, JSON.stringify(s));
  }
});

Deno.test("CsvBuilder: BOM and header first, whole records only, never past maxBytes as measured", () => {
  const header = ["name", "notes"];
  const headerBytes = jsonStringBytes(CSV_BOM + "name,notes\r\n");
  const row = ["Ann", 'say "hi"']; // Ann,"say ""hi"""CRLF: 18 characters, 26 bytes once JSON-escaped
  assert.equal(jsonStringBytes(csvRow(row)), 26);
  const b = new CsvBuilder(header, headerBytes + 2 * 26 + 25, jsonStringBytes);
  assert.equal(b.bytes, headerBytes);
  assert.equal(b.add(row), true);
  assert.equal(b.add(row), true);
  assert.equal(b.add(row), false, "the third record would pass the limit by one byte");
  assert.equal(b.add(["x", null]), true, "a smaller record still fits");
  assert.equal(b.rows, 3);
  assert.equal(b.text, toCsv(header, [row, row, ["x", null]]));
  assert.equal(b.bytes, jsonStringBytes(b.text));
  // by default the budget is UTF-8 bytes of the file
  const u = new CsvBuilder(["é"], 3 + 4 + 5);
  assert.equal(u.bytes, 3 + 4); // BOM, é CR LF
  assert.equal(u.add(["€"]), true); // 3 + 2
  assert.equal(u.add([""]), false);
});

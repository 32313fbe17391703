import assert from "node:assert/strict";
import { AppError } from "../lib/errors.ts";
import {
  computeTotals,
  divRound,
  formatMoney,
  formatQuantity,
  parseDecimal,
  parseMoney,
  percentageShares,
  percentOf,
  rowAmount,
} from "../lib/money.ts";

function refused(fn: () => unknown, message: string) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, "invalid_input");
    assert.equal(err.message, message);
    return true;
  });
}

Deno.test("money: parses strings and numbers with at most 2 decimals into cents", () => {
  assert.equal(parseMoney("12.5", "x"), 1250n);
  assert.equal(parseMoney(12.5, "x"), 1250n);
  assert.equal(parseMoney("12.50", "x"), 1250n);
  assert.equal(parseMoney("12.500", "x"), 1250n); // trailing zeros are not decimals
  assert.equal(parseMoney(" 7 ", "x"), 700n);
  assert.equal(parseMoney(0, "x"), 0n);
  assert.equal(parseMoney("-3.05", "x"), -305n);
  assert.equal(parseMoney(-0.01, "x"), -1n);
  assert.equal(parseMoney("+1", "x"), 100n);
  assert.equal(parseMoney("999999999999.99", "x"), 99999999999999n);
  assert.equal(parseMoney(0.29, "x"), 29n); // 0.29 * 100 is 28.999999999999996 in floating point
});

Deno.test("money: refuses more than 2 decimals, exponents, separators and non-finite numbers", () => {
  refused(() => parseMoney("12.345", "unitPrice"), "unitPrice: must have at most 2 decimals");
  refused(() => parseMoney(12.345, "unitPrice"), "unitPrice: must have at most 2 decimals");
  refused(() => parseMoney(0.1 + 0.2, "amount"), "amount: must have at most 2 decimals");
  refused(() => parseMoney("1e3", "amount"), 'amount: must be a decimal number like 12.50 (got "1e3")');
  refused(() => parseMoney(1e21, "amount"), "amount: must be a decimal number like 12.50 (got 1e+21)");
  refused(() => parseMoney("1,50", "amount"), 'amount: must be a decimal number like 12.50 (got "1,50")');
  refused(() => parseMoney("", "amount"), 'amount: must be a decimal number like 12.50 (got "")');
  refused(() => parseMoney(".5", "amount"), 'amount: must be a decimal number like 12.50 (got ".5")');
  refused(() => parseMoney(NaN, "amount"), "amount: must be a finite number");
  refused(() => parseMoney(Infinity, "amount"), "amount: must be a finite number");
});

Deno.test("money: formats cents with exactly 2 decimals and quantities without trailing zeros", () => {
  assert.equal(formatMoney(1250n), "12.50");
  assert.equal(formatMoney(5n), "0.05");
  assert.equal(formatMoney(0n), "0.00");
  assert.equal(formatMoney(-305n), "-3.05");
  assert.equal(formatMoney(-5n), "-0.05");
  assert.equal(formatMoney(99999999999999n), "999999999999.99");
  assert.equal(formatQuantity(1500n, 3), "1.5");
  assert.equal(formatQuantity(2000n, 3), "2");
  assert.equal(formatQuantity(125n, 3), "0.125");
  assert.equal(parseDecimal("0.125", 3, "quantity"), 125n);
});

Deno.test("money: rounding is half away from zero, never banker's rounding", () => {
  assert.equal(divRound(15n, 10n), 2n);
  assert.equal(divRound(25n, 10n), 3n); // banker's would give 2
  assert.equal(divRound(14n, 10n), 1n);
  assert.equal(divRound(-15n, 10n), -2n);
  assert.equal(divRound(-25n, 10n), -3n);
  assert.equal(divRound(-14n, 10n), -1n);
  assert.equal(divRound(-4n, 10n), 0n);
  assert.equal(divRound(0n, 10n), 0n);
  // 8.1 % of 0.50 = 0.0405 → 0.04; 10 % of 0.05 = 0.005 → 0.01
  assert.equal(percentOf(50n, 810n), 4n);
  assert.equal(percentOf(5n, 1000n), 1n);
});

Deno.test("money: row amount = quantity × unit price less the row discount, rounded once", () => {
  // 12.5 h × 95.00 = 1187.50
  assert.equal(rowAmount({ quantity: 12500n, unitPrice: 9500n, discountPercent: 0n }), 118750n);
  // 3 × 19.99 = 59.97, less 10 % = 53.973 → 53.97
  assert.equal(rowAmount({ quantity: 3000n, unitPrice: 1999n, discountPercent: 1000n }), 5397n);
  // 1.5 × 0.15 = 0.225 → 0.23 (half away from zero)
  assert.equal(rowAmount({ quantity: 1500n, unitPrice: 15n, discountPercent: 0n }), 23n);
  // 7 × 12.35 = 86.45, less 15 % = 73.4825 → 73.48
  assert.equal(rowAmount({ quantity: 7000n, unitPrice: 1235n, discountPercent: 1500n }), 7348n);
  // 100 % discount → 0
  assert.equal(rowAmount({ quantity: 2000n, unitPrice: 5000n, discountPercent: 10000n }), 0n);
});

Deno.test("money: the worked totals example of docs/commercial.md", () => {
  const t = computeTotals(
    [
      { quantity: 12500n, unitPrice: 9500n, discountPercent: 0n },
      { quantity: 3000n, unitPrice: 1999n, discountPercent: 1000n },
      { quantity: 1500n, unitPrice: 15n, discountPercent: 0n },
    ],
    810n, // 8.1 % VAT
    -3n, // rounding adjustment −0.03 (to the 5 cents)
  );
  assert.deepEqual(t.rowAmounts.map(formatMoney), ["1187.50", "53.97", "0.23"]);
  assert.equal(formatMoney(t.subtotal), "1241.70");
  assert.equal(formatMoney(t.vatAmount), "100.58"); // 100.5777 → 100.58
  assert.equal(formatMoney(t.roundingAdjustment), "-0.03");
  assert.equal(formatMoney(t.total), "1342.25");
});

Deno.test("money: VAT rounds half away from zero on the subtotal; no rows gives zero totals", () => {
  // 19 % of 0.50 = 0.095 → 0.10
  const t = computeTotals([{ quantity: 1000n, unitPrice: 50n, discountPercent: 0n }], 1900n, 0n);
  assert.equal(formatMoney(t.vatAmount), "0.10");
  assert.equal(formatMoney(t.total), "0.60");
  const empty = computeTotals([], 2000n, 0n);
  assert.deepEqual([empty.subtotal, empty.vatAmount, empty.total], [0n, 0n, 0n]);
  // per-row VAT would give 3 × round(0.095) = 0.30; VAT on the subtotal 1.50 × 19 % = 0.285 → 0.29
  const three = computeTotals(
    Array.from({ length: 3 }, () => ({ quantity: 1000n, unitPrice: 50n, discountPercent: 0n })),
    1900n,
    0n,
  );
  assert.equal(formatMoney(three.vatAmount), "0.29");
});

Deno.test("money: percentage shares use cumulative rounding and never exceed the total", () => {
  // 50 % + 50 % of 100.01: 50.005 → 50.01, then 100.01 − 50.01 = 50.00
  assert.deepEqual(percentageShares(10001n, [5000n, 5000n]).map(formatMoney), ["50.01", "50.00"]);
  // thirds of 100.00
  assert.deepEqual(
    percentageShares(10000n, [3333n, 3333n, 3334n]).map(formatMoney),
    ["33.33", "33.33", "33.34"],
  );
  // 30 % + 40 % of 1241.70 = 372.51 + 496.68 (round(869.19) − 372.51)
  assert.deepEqual(percentageShares(124170n, [3000n, 4000n]).map(formatMoney), ["372.51", "496.68"]);
});

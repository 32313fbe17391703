// Exact decimal money arithmetic on BigInt integers (cents, thousandths, basis points) — never floating point.
import { invalidInput } from "./errors.ts";

/** An amount in cents (1.00 = 100n). */
export type Cents = bigint;

/** The largest amount numeric(14,2) holds, in cents: 999999999999.99. */
export const MAX_CENTS: Cents = 99_999_999_999_999n;

// An optional sign, digits, optionally a point and more digits. No exponents, no thousands separators.
const DECIMAL = /^([+-])?(\d+)(?:\.(\d+))?$/;

/**
 * Parses a decimal given as a string ("12.5") or a JSON number (12.5) into an integer scaled by 10^scale
 * (scale 2: cents). More than `scale` decimals are refused (trailing zeros do not count: "1.500" is 1.50), as are
 * exponents, separators, NaN and infinities. A number is read through its shortest decimal form, so 0.1 + 0.2
 * (0.30000000000000004) is refused rather than silently rounded.
 */
export function parseDecimal(value: string | number, scale: number, field: string): bigint {
  const r = readDecimal(value, scale);
  if (!r.ok) throw invalidInput(`${field}: ${r.problem}`);
  return r.units;
}

/** parseDecimal without the exception: the scaled value, or what is wrong with the input ("must …"). */
export function readDecimal(
  value: unknown,
  scale: number,
): { ok: true; units: bigint } | { ok: false; problem: string } {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return { ok: false, problem: "must be a finite number" };
    text = String(value);
  } else if (typeof value === "string") {
    text = value.trim();
  } else {
    return { ok: false, problem: "must be a number or a decimal string" };
  }
  const m = DECIMAL.exec(text);
  if (!m) return { ok: false, problem: `must be a decimal number like 12.50 (got ${JSON.stringify(value)})` };
  const [, sign, whole, frac = ""] = m;
  const significant = frac.replace(/0+$/, "");
  if (significant.length > scale) return { ok: false, problem: `must have at most ${scale} decimals` };
  const n = BigInt(whole + significant.padEnd(scale, "0"));
  return { ok: true, units: sign === "-" ? -n : n };
}

/** Money: a decimal with at most 2 decimals, in cents. */
export function parseMoney(value: string | number, field: string): Cents {
  return parseDecimal(value, 2, field);
}

/** `units` scaled by 10^scale as a decimal string with exactly `scale` decimals: (1250n, 2) → "12.50". */
export function formatDecimal(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const frac = digits.slice(digits.length - scale);
  return `${negative ? "-" : ""}${whole}${scale > 0 ? `.${frac}` : ""}`;
}

/** Cents as "12.50" / "-3.05". */
export function formatMoney(cents: Cents): string {
  return formatDecimal(cents, 2);
}

/** Like formatDecimal, without trailing zeros in the fraction: (1500n, 3) → "1.5", (2000n, 3) → "2". */
export function formatQuantity(units: bigint, scale: number): string {
  const s = formatDecimal(units, scale);
  return scale > 0 ? s.replace(/\.?0+$/, "") : s;
}

/** n / d rounded half away from zero (d > 0). */
export function divRound(n: bigint, d: bigint): bigint {
  if (d <= 0n) throw new Error("divRound: divisor must be positive");
  const q = n / d; // truncates toward zero
  const r = n % d; // same sign as n
  const twice = 2n * (r < 0n ? -r : r);
  if (twice >= d) return n < 0n ? q - 1n : q + 1n;
  return q;
}

/** Scales used for the non-money decimals. */
export const QUANTITY_SCALE = 3; // 1.5 h → 1500n
export const PERCENT_SCALE = 2; // 8.1 % → 810n (basis points)

const QUANTITY_ONE = 10n ** BigInt(QUANTITY_SCALE); // 1000n
const HUNDRED_PERCENT = 100n * 10n ** BigInt(PERCENT_SCALE); // 10000n

/** `percentBp` (basis points: 8.1 % = 810n) of `cents`, rounded half away from zero to the cent. */
export function percentOf(cents: Cents, percentBp: bigint): Cents {
  return divRound(cents * percentBp, HUNDRED_PERCENT);
}

export interface RowInput {
  /** thousandths: 1.5 → 1500n */
  quantity: bigint;
  unitPrice: Cents;
  /** basis points: 10 % → 1000n; 0n for none */
  discountPercent: bigint;
}

/**
 * A row's net amount: quantity × unit price × (1 − discount/100), rounded once, half away from zero, to the
 * cent. One rounding per row so the row shows exactly what the subtotal adds up.
 */
export function rowAmount(row: RowInput): Cents {
  return divRound(
    row.quantity * row.unitPrice * (HUNDRED_PERCENT - row.discountPercent),
    QUANTITY_ONE * HUNDRED_PERCENT,
  );
}

export interface Totals {
  /** each row's net amount, in the order given */
  rowAmounts: Cents[];
  /** Σ row amounts */
  subtotal: Cents;
  /** subtotal × VAT rate, rounded half away from zero to the cent */
  vatAmount: Cents;
  roundingAdjustment: Cents;
  /** subtotal + VAT + rounding adjustment */
  total: Cents;
}

/**
 * The totals of an invoice or offer: rows → subtotal, VAT on the subtotal (one rounding), plus the rounding
 * adjustment. The server always computes these; a caller never sets a total.
 */
export function computeTotals(
  rows: readonly RowInput[],
  vatRateBp: bigint,
  roundingAdjustment: Cents,
): Totals {
  const rowAmounts = rows.map(rowAmount);
  const subtotal = rowAmounts.reduce((a, b) => a + b, 0n);
  const vatAmount = percentOf(subtotal, vatRateBp);
  return {
    rowAmounts,
    subtotal,
    vatAmount,
    roundingAdjustment,
    total: subtotal + vatAmount + roundingAdjustment,
  };
}

/** Which input field to name when a computed amount is too large. */
export interface TotalFields {
  /** the rows' field; a row is named `${rows}.${index}` */
  rows: string;
  /** the field of the VAT rate (the VAT can push the total over) */
  vatRate: string;
  /** the field of the rounding adjustment */
  roundingAdjustment: string;
}

const TOTAL_FIELDS: TotalFields = {
  rows: "rows",
  vatRate: "vatRate",
  roundingAdjustment: "roundingAdjustment",
};

/**
 * Refuses totals a numeric(14,2) column cannot hold, naming the input that made them too large: a row's amount
 * (quantity × unitPrice), the sum of the rows, the VAT on top, the rounding adjustment. Each input may be within
 * its own bound while the product or the sum is not; without this check Postgres would refuse the insert.
 */
export function checkTotals(t: Totals, fields: TotalFields = TOTAL_FIELDS): void {
  const max = formatMoney(MAX_CENTS);
  t.rowAmounts.forEach((amount, i) => {
    if (abs(amount) > MAX_CENTS) {
      throw invalidInput(
        `${fields.rows}.${i}: quantity × unitPrice comes to ${formatMoney(amount)}, more than ${max}`,
      );
    }
  });
  if (abs(t.subtotal) > MAX_CENTS) {
    throw invalidInput(`${fields.rows}: the rows add up to ${formatMoney(t.subtotal)}, more than ${max}`);
  }
  if (abs(t.vatAmount) > MAX_CENTS || abs(t.subtotal + t.vatAmount) > MAX_CENTS) {
    throw invalidInput(
      `${fields.vatRate}: the total with VAT comes to ${
        formatMoney(t.subtotal + t.vatAmount)
      }, more than ${max}`,
    );
  }
  if (abs(t.total) > MAX_CENTS) {
    throw invalidInput(
      `${fields.roundingAdjustment}: the total comes to ${formatMoney(t.total)}, more than ${max}`,
    );
  }
}

/**
 * The shares of percentage tranches of `total`, by cumulative rounding: share i = round(total × (p1+…+pi)) −
 * round(total × (p1+…+p(i−1))). Each share is its percentage rounded to the cent, yet the shares always add up
 * to round(total × Σp) — never a cent more than the offer total when Σp ≤ 100 (50 % + 50 % of 100.01 gives
 * 50.01 + 50.00, not 50.01 + 50.01).
 */
export function percentageShares(total: Cents, percentsBp: readonly bigint[]): Cents[] {
  let cumulative = 0n;
  let previous = 0n;
  return percentsBp.map((p) => {
    cumulative += p;
    const upTo = percentOf(total, cumulative);
    const share = upTo - previous;
    previous = upTo;
    return share;
  });
}

export function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

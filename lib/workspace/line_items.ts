// Line items of offers and invoices: exact parsing of the input, the stored form, and the answer form.
import type { Db } from "../db/client.ts";
import { invalidInput } from "../errors.ts";
import {
  abs,
  type Cents,
  formatDecimal,
  formatMoney,
  formatQuantity,
  MAX_CENTS,
  parseDecimal,
  parseMoney,
  PERCENT_SCALE,
  QUANTITY_SCALE,
  type Totals,
} from "../money.ts";

export const MAX_ROWS = 200;
const MAX_QUANTITY = 1_000_000_000n; // 1 000 000 with 3 decimals

/** A row as a caller sends it; decimals as numbers or strings. */
export interface LineInput {
  description: string;
  /** default 1; at most 3 decimals */
  quantity?: string | number;
  unit?: string;
  unitPrice: string | number;
  /** percent 0-100, at most 2 decimals; default 0 */
  discountPercent?: string | number;
}

export interface ParsedLine {
  description: string;
  quantity: bigint;
  unit: string | null;
  unitPrice: Cents;
  discountPercent: bigint;
}

/** A row as answered: decimals as strings ("1.5", "95.00", "10.00"). */
export interface Line {
  position: number;
  description: string;
  quantity: string;
  unit: string | null;
  unitPrice: string;
  discountPercent: string;
  amount: string;
}

/**
 * Parses rows exactly. `normaliseSign` (credit notes): a negative quantity or unit price is taken as its absolute
 * value, and `negative` tells whether any row was written negative. Otherwise negatives are refused.
 */
export function parseLines(
  rows: readonly LineInput[],
  opts: { normaliseSign: boolean },
): { lines: ParsedLine[]; negative: boolean } {
  if (rows.length > MAX_ROWS) throw invalidInput(`rows: at most ${MAX_ROWS} rows`);
  let negative = false;
  const lines = rows.map((r, i) => {
    const f = (name: string) => `rows.${i}.${name}`;
    const description = r.description.trim();
    if (description.length < 1 || description.length > 1000) {
      throw invalidInput(`${f("description")}: must be 1-1000 characters`);
    }
    let quantity = parseDecimal(r.quantity ?? 1, QUANTITY_SCALE, f("quantity"));
    let unitPrice = parseMoney(r.unitPrice, f("unitPrice"));
    const discountPercent = parseDecimal(r.discountPercent ?? 0, PERCENT_SCALE, f("discountPercent"));
    if (quantity < 0n || unitPrice < 0n) {
      if (!opts.normaliseSign) {
        throw invalidInput(
          `${
            f(quantity < 0n ? "quantity" : "unitPrice")
          }: must not be negative (a discount is discountPercent; ` +
            "money going back is a credit note)",
        );
      }
      negative = true;
      quantity = abs(quantity);
      unitPrice = abs(unitPrice);
    }
    if (quantity === 0n) throw invalidInput(`${f("quantity")}: must be greater than 0`);
    if (quantity > MAX_QUANTITY) throw invalidInput(`${f("quantity")}: must be at most 1000000`);
    if (unitPrice > MAX_CENTS) throw invalidInput(`${f("unitPrice")}: must be at most 999999999999.99`);
    if (discountPercent < 0n || discountPercent > 10_000n) {
      throw invalidInput(`${f("discountPercent")}: must be between 0 and 100`);
    }
    const unit = r.unit?.trim() || null;
    if (unit && unit.length > 20) throw invalidInput(`${f("unit")}: must be at most 20 characters`);
    return { description, quantity, unit, unitPrice, discountPercent };
  });
  return { lines, negative };
}

/** Rows to insert (numerics as exact decimal strings) for the given parent column. */
export function lineRecords(
  workspaceId: string,
  parent: { column: "offer_id" | "invoice_id"; id: string },
  lines: readonly ParsedLine[],
  totals: Totals,
): Record<string, string | number | null>[] {
  return lines.map((l, i) => ({
    workspace_id: workspaceId,
    [parent.column]: parent.id,
    position: i + 1,
    description: l.description,
    quantity: formatDecimal(l.quantity, QUANTITY_SCALE),
    unit: l.unit,
    unit_price: formatMoney(l.unitPrice),
    discount_percent: formatDecimal(l.discountPercent, PERCENT_SCALE),
    amount: formatMoney(totals.rowAmounts[i]),
  }));
}

export const LINE_COLUMNS = [
  "workspace_id",
  "position",
  "description",
  "quantity",
  "unit",
  "unit_price",
  "discount_percent",
  "amount",
] as const;

/** A stored row as selected by `lineColumns` (numerics as Postgres prints them). */
export type LineRow = Line;

/** The columns of a stored row, aliased to the answer's names; `toLine` then trims the quantity. */
export function lineColumns(db: Db) {
  return db`
    position, description, quantity::text as quantity, unit, unit_price::text as "unitPrice",
    discount_percent::text as "discountPercent", amount::text as amount`;
}

/** The answer form: the quantity without trailing zeros ("1.500" → "1.5"). */
export function toLine(r: LineRow): Line {
  return {
    ...r,
    quantity: formatQuantity(parseDecimal(r.quantity, QUANTITY_SCALE, "quantity"), QUANTITY_SCALE),
  };
}

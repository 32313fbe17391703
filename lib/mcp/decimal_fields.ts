// Zod fields for exact decimals (money, percentages, quantities) that accept a JSON number or a decimal string.
//
// lib/mcp/fields.ts moneyField takes numbers only; money tools also take "12.50" so a client can send amounts it
// never held as a float. The value passes through unchanged; lib/money.ts parses it exactly (BigInt) later.
import { z } from "zod";
import { formatDecimal, MAX_CENTS, readDecimal } from "../money.ts";

export interface DecimalLimits {
  /** decimals allowed: 2 for money and percentages, 3 for quantities */
  scale: number;
  /** smallest allowed value, scaled by 10^scale; default 0 */
  min?: bigint;
  /** true: the value must be greater than `min` */
  minExclusive?: boolean;
  /** largest allowed value, scaled by 10^scale */
  max: bigint;
  /** true: negative values are accepted (and `min` is ignored); used where they are normalised later */
  negative?: boolean;
}

/** A decimal as a JSON number or string ("12.5", 12.5), checked for its decimals and range. */
export function decimalField(description: string, limits: DecimalLimits) {
  const min = limits.min ?? 0n;
  return z.union([z.string(), z.number()], { error: "must be a number or a decimal string" })
    .superRefine((value, ctx) => {
      const r = readDecimal(value, limits.scale);
      if (!r.ok) return ctx.addIssue({ code: "custom", message: r.problem });
      const abs = r.units < 0n ? -r.units : r.units;
      if (limits.negative) {
        if (abs > limits.max) {
          ctx.addIssue({
            code: "custom",
            message: `must be between -${fmt(limits.max)} and ${fmt(limits.max)}`,
          });
        }
        return;
      }
      if (r.units < min || (limits.minExclusive && r.units === min)) {
        const word = limits.minExclusive ? "greater than" : "at least";
        return ctx.addIssue({ code: "custom", message: `must be ${word} ${fmt(min)}` });
      }
      if (r.units > limits.max) {
        ctx.addIssue({ code: "custom", message: `must be at most ${fmt(limits.max)}` });
      }
    })
    .describe(description);

  function fmt(v: bigint) {
    return formatDecimal(v, limits.scale).replace(/\.0+$/, "");
  }
}

export { MAX_CENTS };

/** Money:, 0 (or above, with minExclusive) up to 999999999999.99. */
export function decimalMoneyField(
  description: string,
  opts: { positive?: boolean; negative?: boolean } = {},
) {
  return decimalField(description, {
    scale: 2,
    min: 0n,
    minExclusive: opts.positive,
    max: MAX_CENTS,
    negative: opts.negative,
  });
}

/** A percentage 0-100 with at most 2 decimals (8.1 = 8.1 %). */
export function percentField(description: string, opts: { positive?: boolean } = {}) {
  return decimalField(description, { scale: 2, min: 0n, minExclusive: opts.positive, max: 10_000n });
}

const MAX_QUANTITY = 1_000_000_000n; // 1 000 000 with 3 decimals

/**
 * Line items of offers and invoices (at most 200). `negative`: quantity and unit price may be negative — credit
 * notes, whose negative input is normalised to positive, never refused.
 */
export function rowsField(description: string, opts: { negative?: boolean; min?: number } = {}) {
  const negativeNote = opts.negative ? " Negative values (credit notes) are taken as positive." : "";
  const row = z.strictObject({
    description: z.string({ error: "must be a string" }).trim()
      .min(1, { error: "must not be empty" }).max(1000, { error: "must be at most 1000 characters" })
      .describe("What the row is for."),
    quantity: decimalField(
      `Units, > 0 and at most 1000000, at most 3 decimals. Default 1.${negativeNote}`,
      { scale: 3, min: 0n, minExclusive: true, max: MAX_QUANTITY, negative: opts.negative },
    ).optional(),
    unit: z.string({ error: "must be a string" }).trim().max(20, { error: "must be at most 20 characters" })
      .describe("Unit shown with the quantity (h, days, pcs).").optional(),
    unitPrice: decimalField(
      `Net unit price.${negativeNote}`,
      { scale: 2, min: 0n, max: MAX_CENTS, negative: opts.negative },
    ),
    discountPercent: percentField("Row discount in percent, 0-100. Default 0.")
      .optional(),
  });
  return z.array(row, { error: "must be an array of rows" })
    .min(opts.min ?? 0, { error: `must have at least ${opts.min ?? 0} row` })
    .max(200, { error: "must have at most 200 rows" })
    .describe(description);
}

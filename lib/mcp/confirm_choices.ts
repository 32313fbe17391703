// Calls that miss one value the server can offer as a short list (docs/mcp.md "Choices"): the person picks it in the
// same form that confirms what will happen, instead of the call failing. Today: the tranche of an offer to invoice.
//
// Like confirm_texts.ts, each entry reads with the caller's own scope and computes amounts with the tool's own
// domain function in a rolled-back transaction; null means "run the call as it is" (the tool then answers its own
// error — an unknown offer, no tranche left to invoice — exactly as without a form).
import type { Db } from "../db/client.ts";
import type { Caller } from "./caller.ts";
import { amounts, clientPart, percent, preview, quoted } from "./confirm_texts.ts";
import { invoiceOfferTranche, type TrancheInvoiceInput } from "../workspace/invoices.ts";
import { LISTED_TRANCHES, trancheChoices, trancheName } from "../workspace/offer_reads.ts";
import { scopeOf } from "../workspace/scope.ts";

/** One choice of a titled enum (MCP form mode: `{type: "string", oneOf: [{const, title}]}`). */
export interface ChoiceOption {
  const: string;
  title: string;
}

/** What the form asks: one value among `options`, and the box that confirms `message`. */
export interface Choice {
  /** the title of the choice in the form */
  title: string;
  message: string;
  options: ChoiceOption[];
}

export interface Chooser {
  /** the argument the chosen value fills in */
  field: string;
  /** cheap, without the database: does this call miss the value? */
  misses(input: Record<string, unknown>): boolean;
  /** the form, or null to run the call as it is */
  ask(db: Db, caller: Caller, input: Record<string, unknown>): Promise<Choice | null>;
}

const tranche: Chooser = {
  field: "trancheId",
  misses: (input) => input.trancheId === undefined,
  async ask(db, caller, input) {
    const i = input as unknown as TrancheInvoiceInput;
    const s = scopeOf(caller);
    const found = await preview(db, async (tx) => {
      const offer = await trancheChoices(tx, s, i.offerId);
      if (!offer) return null;
      const open = offer.tranches.filter((t) => t.status === "to_invoice");
      // None: the tool says so. Too many for a form: the tool's answer points to get_offer.
      if (open.length === 0 || open.length > LISTED_TRANCHES) return null;
      const invoices = [];
      for (const t of open) {
        invoices.push((await invoiceOfferTranche(tx, caller, { ...i, trancheId: t.id })).invoice);
      }
      return { title: offer.title, open, invoices };
    });
    if (!found) return null;
    const { title, open, invoices } = found;
    const first = invoices[0];
    return {
      title: "Tranche to invoice",
      message:
        `Invoice one tranche of offer ${quoted(title)} (id ${i.offerId}): a draft invoice ${
          clientPart(first)
        }, dated ${first.invoiceDate}, under the next number of ${
          first.invoiceDate.slice(0, 4)
        }; the tranche is ` +
        "marked invoiced and cannot be invoiced again. Choose the tranche and tick to go ahead.",
      options: open.map((t, n) => ({
        const: t.id,
        title: `${trancheName(t)}${t.percentage ? ` (${percent(t.percentage)} %)` : ""}: ${
          amounts(invoices[n])
        }`,
      })),
    };
  },
};

/** The tools that ask for a missing value, by name. */
export const CHOICES: Readonly<Record<string, Chooser>> = Object.freeze({
  generate_invoice_from_offer_tranche: tranche,
});

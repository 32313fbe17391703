// The offer view (MCP Apps, issue 26): get_offer's (or create_offer's) answer as rows, totals and payment plan,
// with "Invoice this tranche" for each tranche still to invoice.
//
// data-* contract (stable; tests and the host test read these):
//   [data-view=offer]           the view's frame; data-theme="light"|"dark"
//   [data-offer]                the offer: data-offer-id, data-currency, data-status (get_offer's; absent otherwise)
//   [data-row]                  one line item (tr): data-position, data-amount (decimal string as answered)
//   [data-total]                a total: data-total="net" (the offer total), "vat" (none on offers: "0.00"),
//                               "planned" (Σ tranches), "invoiced", "open" (still to invoice); data-amount,
//                               data-currency
//   [data-tranche]              one tranche (tr): data-tranche-id, data-status="to_invoice"|"invoiced",
//                               data-amount, data-due (or absent), data-invoice-id, data-invoice-number (when invoiced)
//   [data-invoice-number]       the invoice number shown in an invoiced tranche's row
//   [data-invoice-tranche]      the "Invoice this tranche" button (data-tranche-id)
//   [data-alert]                a refusal (role=alert); data-confirm present when the server asks for a confirmation
//   [data-outcome]              the outcome (role=status), data-invoice-number of the new invoice
import { useState } from "preact/hooks";
import { arr, Frame, mountView, obj, resultText, Scroll, str, structured, thrownText } from "./shared.tsx";
import type { ViewContext } from "./view_context.ts";

const CSS = `
.pv .meta { display: flex; flex-wrap: wrap; gap: .1rem 1rem; margin: 0 0 .5rem; }
.pv .totals { margin-left: auto; max-width: 22rem; }
.pv .totals th { font-weight: 400; color: var(--muted); }
.pv .totals tr.grand th, .pv .totals tr.grand td { font-weight: 700; color: var(--fg); }
.pv caption { text-align: left; font-weight: 600; padding: .25rem 0; }
@media (max-width: 560px) {
  .pv table.lines thead { display: none; }
  .pv table.lines tr { display: grid; grid-template-columns: 1fr auto; border-bottom: 1px solid var(--line);
    padding: .25rem 0; }
  .pv table.lines td { border: none; padding: .1rem .25rem; }
  .pv table.lines td.desc { grid-column: 1 / -1; font-weight: 600; }
  .pv table.lines td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-weight: 400; }
}
`;

/** "1234.50" → 123450 cents (exact; the answers carry at most 2 decimals). NaN when it is no amount. */
function cents(v: string | null): number {
  const m = v ? /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(v.trim()) : null;
  if (!m) return NaN;
  const c = Number(m[2]) * 100 + Number((m[3] ?? "").padEnd(2, "0"));
  return m[1] ? -c : c;
}

const decimal = (c: number) =>
  `${c < 0 ? "-" : ""}${Math.floor(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, "0")}`;

function money(amount: string | null, currency: string, locale?: string): string {
  if (amount === null) return "";
  const n = Number(amount);
  if (!Number.isFinite(n)) return amount;
  try {
    return new Intl.NumberFormat(locale, { style: "currency", currency }).format(n);
  } catch {
    return `${amount} ${currency}`;
  }
}

interface Tranche {
  id: string;
  label: string;
  percentage: string | null;
  amount: string;
  dueDate: string | null;
  status: string;
  invoiceId: string | null;
  invoiceNumber: string | null;
}

function readTranche(v: unknown): Tranche | null {
  const t = obj(v);
  const id = str(t.id);
  if (!id) return null;
  return {
    id,
    label: str(t.label) ?? "",
    percentage: str(t.percentage),
    amount: str(t.amount) ?? "0.00",
    dueDate: str(t.dueDate),
    status: str(t.status) ?? "",
    invoiceId: str(t.invoiceId),
    invoiceNumber: str(t.invoiceNumber),
  };
}

interface Message {
  text: string;
  kind: "refusal" | "confirm" | "done";
  invoiceNumber?: string;
}

function OfferView({ ctx }: { ctx: ViewContext }) {
  const offer = ctx.result;
  const [tranches, setTranches] = useState<Tranche[]>(
    () => arr(offer?.tranches).map(readTranche).filter((t): t is Tranche => t !== null),
  );
  const [busy, setBusy] = useState<string | null>(null);
  const [msg, setMsg] = useState<Message | null>(null);
  if (!offer) return <p class="muted">Waiting for the offer…</p>;
  const offerId = str(offer.id) ?? "";
  const currency = str(offer.currency) ?? "EUR";
  const locale = ctx.locale;
  const rows = arr(offer.rows).map(obj);
  const net = str(offer.total) ?? decimal(rows.reduce((s, r) => s + (cents(str(r.amount)) || 0), 0));
  const sum = (ts: Tranche[]) => decimal(ts.reduce((s, t) => s + (cents(t.amount) || 0), 0));
  const invoiced = tranches.filter((t) => t.status === "invoiced");
  const open = tranches.filter((t) => t.status !== "invoiced");

  async function invoice(t: Tranche) {
    setBusy(t.id);
    setMsg(null);
    try {
      const r = await ctx.callTool("generate_invoice_from_offer_tranche", { offerId, trancheId: t.id });
      const s = structured(r);
      const inv = obj(s?.invoice);
      const number = str(inv.number);
      if (r.isError || !s || !str(inv.id)) {
        const text = resultText(r) ||
          (r.isError ? "The server refused." : "The server asked for a confirmation.");
        setMsg({ text, kind: r.isError ? "refusal" : "confirm" });
        return;
      }
      const tr = obj(s.tranche);
      setTranches((all) =>
        all.map((x) =>
          x.id === t.id
            ? { ...x, status: str(tr.status) ?? "invoiced", invoiceId: str(inv.id), invoiceNumber: number }
            : x
        )
      );
      const total = str(inv.total), vat = str(inv.vatAmount), cur = str(inv.currency) ?? currency;
      setMsg({
        kind: "done",
        invoiceNumber: number ?? "",
        text: `Invoice ${number ?? "(no number yet)"} created for ${t.label || "the tranche"}` +
          (total ? `: ${money(total, cur, locale)}` : "") + (vat ? `, VAT ${money(vat, cur, locale)}` : "") +
          ".",
      });
    } catch (err) {
      setMsg({ text: thrownText(err), kind: "refusal" });
    } finally {
      setBusy(null);
    }
  }

  const totals: Array<[string, string, string]> = [
    ["net", "Offer total (net)", net],
    ["vat", "VAT (added on each tranche's invoice)", "0.00"],
    ["planned", "Payment plan", sum(tranches)],
    ["invoiced", "Invoiced", sum(invoiced)],
    ["open", "Still to invoice", sum(open)],
  ];
  return (
    <div
      data-offer
      data-offer-id={offerId}
      data-currency={currency}
      data-status={str(offer.status) ?? undefined}
    >
      <h1>{str(offer.subject) ?? "Offer"}</h1>
      <p class="meta muted">
        {str(offer.clientName) && <span>For {str(offer.clientName)}</span>}
        {str(offer.offerDate) && <span>Dated {str(offer.offerDate)}</span>}
        {str(offer.validUntil) && <span>Valid until {str(offer.validUntil)}</span>}
        <span>{currency}</span>
      </p>
      {msg && msg.kind !== "done" && (
        <div class="alert" role="alert" data-alert data-confirm={msg.kind === "confirm" ? "" : undefined}>
          {msg.text}
        </div>
      )}
      {msg && msg.kind === "done" && (
        <div class="status" role="status" data-outcome data-invoice-number={msg.invoiceNumber}>
          {msg.text}
        </div>
      )}
      <h2>Rows</h2>
      {rows.length === 0 ? <p class="muted" data-no-rows>No rows.</p> : (
        <Scroll label="Rows">
          <table class="lines">
            <thead>
              <tr>
                <th scope="col">Description</th>
                <th scope="col" class="num">Quantity</th>
                <th scope="col" class="num">Unit price</th>
                <th scope="col" class="num">Discount</th>
                <th scope="col" class="num">Amount</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr
                  key={i}
                  data-row
                  data-position={String(r.position ?? i + 1)}
                  data-amount={str(r.amount) ?? ""}
                >
                  <td class="desc">{str(r.description)}</td>
                  <td class="num" data-label="Quantity">
                    {str(r.quantity)}
                    {str(r.unit) ? ` ${str(r.unit)}` : ""}
                  </td>
                  <td class="num" data-label="Unit price">{money(str(r.unitPrice), currency, locale)}</td>
                  <td class="num" data-label="Discount">
                    {str(r.discountPercent) ? `${str(r.discountPercent)} %` : ""}
                  </td>
                  <td class="num" data-label="Amount">{money(str(r.amount), currency, locale)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      <table class="totals">
        <caption>Totals</caption>
        <tbody>
          {totals.map(([key, name, amount]) => (
            <tr key={key} class={key === "net" ? "grand" : undefined}>
              <th scope="row">{name}</th>
              <td class="num" data-total={key} data-amount={amount} data-currency={currency}>
                {money(amount, currency, locale)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Payment plan</h2>
      {tranches.length === 0
        ? <p class="muted" data-no-tranches>No payment plan.</p>
        : (
          <Scroll label="Payment plan">
            <table class="lines">
              <thead>
                <tr>
                  <th scope="col">Tranche</th>
                  <th scope="col" class="num">Amount</th>
                  <th scope="col">Due</th>
                  <th scope="col">Status</th>
                  <th scope="col">Invoice</th>
                </tr>
              </thead>
              <tbody>
                {tranches.map((t) => (
                  <tr
                    key={t.id}
                    data-tranche
                    data-tranche-id={t.id}
                    data-status={t.status}
                    data-amount={t.amount}
                    data-due={t.dueDate ?? undefined}
                    data-invoice-id={t.invoiceId ?? undefined}
                    data-invoice-number={t.invoiceNumber ?? undefined}
                  >
                    <td class="desc">
                      {t.label}
                      {t.percentage ? <span class="muted">{` (${t.percentage} %)`}</span> : null}
                    </td>
                    <td class="num" data-label="Amount">{money(t.amount, currency, locale)}</td>
                    <td data-label="Due">{t.dueDate ?? "—"}</td>
                    <td data-label="Status">
                      <span class={t.status === "invoiced" ? "tag ok" : "tag warn"}>
                        {t.status === "invoiced" ? "Invoiced" : "To invoice"}
                      </span>
                    </td>
                    <td data-label="Invoice">
                      {t.status === "invoiced"
                        ? (
                          <span data-invoice-number={t.invoiceNumber ?? ""}>
                            {t.invoiceNumber ?? "Invoiced"}
                          </span>
                        )
                        : (
                          <button
                            type="button"
                            data-invoice-tranche
                            data-tranche-id={t.id}
                            disabled={busy !== null}
                            aria-label={`Invoice this tranche: ${t.label}, ${
                              money(t.amount, currency, locale)
                            }`}
                            onClick={() => invoice(t)}
                          >
                            {busy === t.id ? "Invoicing…" : "Invoice this tranche"}
                          </button>
                        )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
        )}
    </div>
  );
}

function Offer({ ctx }: { ctx: ViewContext }) {
  return (
    <Frame theme={ctx.theme} css={CSS} view="offer">
      <OfferView ctx={ctx} />
    </Frame>
  );
}

/** Renders get_offer's or create_offer's structuredContent (ctx.result) into root; called again, starts afresh. */
export function mount(root: HTMLElement, ctx: ViewContext): void {
  mountView(Offer, root, ctx);
}

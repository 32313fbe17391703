// Demo data of the commercial side: clients, an offer with a payment plan, invoices (one from a tranche,
// one recurring) and a credit note — created through the domain functions, so they follow the same rules.
import type { Db } from "../db/client.ts";
import type { DemoContext } from "./demo_context.ts";
import { createClient } from "./clients.ts";
import { createIdea } from "./ideas.ts";
import { createInvoice, invoiceOfferTranche } from "./invoices.ts";
import { createOffer } from "./offers.ts";

export async function seedDemoCommercial(db: Db, ctx: DemoContext): Promise<void> {
  const [north, south] = ctx.companyIds;
  const owner = { workspaceId: ctx.workspaceId, userId: ctx.users.owner };
  const accounting = { workspaceId: ctx.workspaceId, userId: ctx.users.accounting };

  const helvetia = await createClient(db, owner, {
    companyName: "Helvetia Design AG",
    firstName: "Lea",
    lastName: "Meier",
    email: "lea.meier@helvetia-design.example",
    phone: "+41 44 555 01 23",
    vatNumber: "CHE-109.322.551 MWST",
    address: "Seefeldstrasse 12",
    postalCode: "8008",
    city: "Zürich",
    country: "CH",
    companyId: north,
    department: "Marketing",
    vatRate: "8.1",
    intermediary: "Alpine Partners GmbH",
    commission: "5",
  });
  const nordlicht = await createClient(db, owner, {
    companyName: "Nordlicht GmbH",
    firstName: "Jonas",
    lastName: "Berg",
    email: "jonas@nordlicht.example",
    city: "Hamburg",
    country: "DE",
    companyId: south,
    vatRate: 19,
  });
  await createClient(db, owner, {
    companyName: "Atelier Rive Gauche",
    city: "Paris",
    country: "FR",
    companyId: north,
  });

  // The worked example of docs/commercial.md as an offer with a payment plan.
  const offer = await createOffer(db, owner, {
    subject: "Website relaunch",
    description: "Design, build and first year of hosting.",
    clientId: helvetia.id,
    offerDate: "2026-02-02",
    validUntil: "2026-03-02",
    currency: "CHF",
    rows: [
      { description: "Design and build", quantity: "12.5", unit: "h", unitPrice: "95.00" },
      { description: "Hosting (months)", quantity: 3, unitPrice: "19.99", discountPercent: 10 },
      { description: "Stickers", quantity: "1.5", unitPrice: "0.15" },
    ],
    tranches: [
      { label: "Deposit", percentage: 30, dueDate: "2026-02-16" },
      { label: "On delivery", percentage: 60, dueDate: "2026-04-30" },
      { label: "Hosting", amount: "53.97" },
    ],
  });
  await invoiceOfferTranche(db, accounting, {
    offerId: offer.id,
    trancheId: offer.tranches[0].id,
    invoiceDate: "2026-02-16",
    dueDate: "2026-03-18",
    paymentMethod: "bank transfer",
  });

  const march = await createInvoice(db, accounting, {
    clientId: nordlicht.id,
    subject: "Reporting, March",
    invoiceDate: "2026-03-31",
    dueDate: "2026-04-30",
    currency: "EUR",
    status: "paid",
    collectedAmount: "1059.10",
    paymentMethod: "bank transfer",
    rows: [
      { description: "Monthly report", quantity: 1, unitPrice: "650.00" },
      { description: "Workshop", quantity: 4, unit: "h", unitPrice: "120.00", discountPercent: "50" },
    ],
  });
  await createInvoice(db, accounting, {
    isCreditNote: true,
    originalInvoiceId: march.id,
    subject: "Workshop cancelled",
    invoiceDate: "2026-04-03",
    rows: [{ description: "Workshop (refund)", quantity: -2, unit: "h", unitPrice: "-60.00" }],
  });
  await createInvoice(db, accounting, {
    clientId: nordlicht.id,
    subject: "Hosting, April",
    invoiceDate: "2026-04-01",
    dueDate: "2026-04-15",
    status: "sent",
    rows: [{ description: "Hosting", quantity: 1, unit: "month", unitPrice: "49.90" }],
  }, { type: "recurring" });

  await createIdea(db, owner, {
    title: "Client newsletter",
    description: "A quarterly newsletter with project highlights.",
    estimatedBudget: "2400",
    currency: "EUR",
    priority: 2,
    companyId: north,
  });
  await createIdea(db, owner, {
    title: "Booking widget for Nordlicht",
    clientId: nordlicht.id,
    estimatedBudget: "3800.50",
    priority: 3,
  });
}

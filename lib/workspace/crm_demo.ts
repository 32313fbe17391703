// Demo data of the CRM and AI-work side: contacts, collaborators, suppliers, activities, AI activities, documents.
import type { Db } from "../db/client.ts";
import type { DemoContext } from "./demo_context.ts";
import { createActivity } from "./activities.ts";
import { trackAiActivity, updateAiActivityPhase } from "./ai_activities.ts";
import { createContact, type NewContact, updateContact } from "./contacts.ts";
import { createDocument } from "./documents.ts";

const CONTACTS: NewContact[] = [
  {
    companyName: "Helvetia Bikes AG",
    contactName: "Lena Frei",
    firstName: "Lena",
    lastName: "Frei",
    email: "lena.frei@helvetia-bikes.example",
    phone: "+41 44 555 01 10",
    city: "Zürich",
    country: "Switzerland",
    department: "Marketing",
    groups: "retail, vip",
    source: "website",
    status: "qualified",
    nextFollowUp: "2026-12-03",
  },
  {
    companyName: "Nordlicht Design GmbH",
    contactName: "Jonas Berg",
    firstName: "Jonas",
    lastName: "Berg",
    email: "jonas@nordlicht.example",
    phone: "+49 40 555 2020",
    city: "Hamburg",
    country: "Germany",
    source: "referral",
    status: "proposal",
    vatNumber: "DE123456789",
  },
  {
    companyName: "Café Lumière",
    contactName: "Amélie Durand",
    email: "amelie@cafe-lumiere.example",
    phone: "+33 1 55 50 30 30",
    city: "Lyon",
    country: "France",
    source: "fair",
    status: "new",
    notes: "Wants a booking page for tastings.",
  },
  {
    companyName: "Oak & Iron Ltd",
    contactName: "Sam Carter",
    email: "sam@oakiron.example",
    mobileNumber: "+44 7700 900123",
    city: "Leeds",
    country: "United Kingdom",
    source: "linkedin",
    status: "contacted",
  },
  {
    companyName: "Studio Verde",
    contactName: "Giulia Rossi",
    email: "giulia@studioverde.example",
    city: "Milano",
    country: "Italy",
    source: "website",
    status: "won",
  },
  {
    companyName: "Polar Logistics",
    contactName: "Mikko Virtanen",
    email: "mikko@polar.example",
    city: "Helsinki",
    country: "Finland",
    source: "cold_call",
    status: "lost",
    notes: "Chose an in-house solution; ask again next year.",
  },
];

/** Appended to DEMO_SEEDERS in lib/demo.ts. */
export async function seedDemoCrm(db: Db, ctx: DemoContext): Promise<void> {
  const [north, south] = ctx.companyIds;
  const owner = { workspaceId: ctx.workspaceId, userId: ctx.users.owner };
  const contacts: string[] = [];
  for (const c of CONTACTS) contacts.push((await createContact(db, owner, c)).id);
  await updateContact(db, owner, contacts[0], { assignedTo: ctx.users.member });
  await updateContact(db, owner, contacts[1], { assignedTo: ctx.users.admin });
  // a contact of the north company only (visible to the limited member)
  const milo = { workspaceId: ctx.workspaceId, userId: ctx.users.member, companyIds: [north] };
  await createContact(db, milo, {
    companyName: "Bergbau Kollektiv",
    contactName: "Uli Stein",
    status: "new",
  });

  const [collab] = await db<{ id: string }[]>`
    insert into collaborators (workspace_id, company_id, name, email, role)
    values (${ctx.workspaceId}, ${north}, 'Nina Freelance', 'nina@freelance.example', 'Illustrator'),
           (${ctx.workspaceId}, null, 'Tom Copy', 'tom@copy.example', 'Copywriter')
    returning id`;
  const [supplier] = await db<{ id: string }[]>`
    insert into suppliers (workspace_id, company_id, name, email, vat_number)
    values (${ctx.workspaceId}, ${south}, 'PrintWorks AG', 'orders@printworks.example', 'CHE-111.222.333'),
           (${ctx.workspaceId}, null, 'CloudHost Ltd', 'billing@cloudhost.example', null)
    returning id`;
  const [client] = await db<{ id: string }[]>`
    select id from clients where workspace_id = ${ctx.workspaceId} order by created_at, id limit 1`;

  await createActivity(db, owner, {
    title: "Discovery call",
    type: "call",
    contactId: contacts[0],
    activityDate: "2026-11-02T09:30:00Z",
    durationMinutes: 30,
    isCompleted: true,
    outcome: "Interested in a spring campaign; send a proposal.",
  });
  await createActivity(db, owner, {
    title: "Proposal walkthrough",
    type: "video_call",
    contactId: contacts[1],
    startDate: "2026-11-10T14:00:00Z",
    endDate: "2026-11-10T14:45:00Z",
  });
  await createActivity(db, owner, {
    title: "Tasting visit",
    type: "visit",
    contactId: contacts[2],
    activityDate: "2026-11-20",
    isAllDay: true,
    notes: "Bring the booking page mock-up.",
  });
  await createActivity(db, owner, {
    title: "Briefing illustrations",
    type: "meeting",
    collaboratorId: collab.id,
    activityDate: "2026-11-05T10:00:00Z",
    isCompleted: true,
  });
  await createActivity(db, owner, {
    title: "Reorder brochures",
    type: "email",
    supplierId: supplier.id,
    activityDate: "2026-11-06T08:00:00Z",
  });
  if (client) {
    await createActivity(db, owner, {
      title: "Quarterly check-in",
      type: "lunch",
      clientId: client.id,
      activityDate: "2026-11-12T12:00:00Z",
      isCompleted: true,
      outcome: "Happy with the relaunch so far.",
    });
  }

  const research = await trackAiActivity(db, owner, {
    kind: "research",
    title: "Competitor scan for Helvetia Bikes",
    source: "chat",
    agentName: "Research Assistant",
    companyId: north,
    phases: [
      { name: "collect sources", status: "completed", summary: "14 sources" },
      { name: "compare offers", status: "running" },
    ],
    metadata: { model: "demo-model", sources: 14 },
  });
  await updateAiActivityPhase(db, owner, research.id, {
    phaseName: "compare offers",
    phaseStatus: "completed",
    phaseSummary: "3 direct competitors",
    resultMarkdown: "## Competitors\n\n| Name | Price |\n|---|---|\n| VeloMax | 1'290 CHF |",
  });
  await updateAiActivityPhase(db, owner, research.id, {
    phaseName: "write summary",
    phaseStatus: "completed",
    activityStatus: "completed",
    resultMarkdown: "## Summary\n\nHelvetia Bikes is priced 8% below the market average.",
  });
  await createDocument(db, owner, {
    title: "Competitor report — Helvetia Bikes",
    kind: "report",
    description: "The result of the competitor scan.",
    contentMarkdown: "# Competitor report\n\nThree direct competitors; see the table in the AI activity.",
    activityId: research.id,
    relationship: "output",
  });
  await createDocument(db, owner, {
    title: "Client brief (PDF)",
    kind: "brief",
    source: "upload",
    mimeType: "application/pdf",
    storageProvider: "url",
    storageUrl: "https://files.example.test/helvetia-brief.pdf",
    fileSizeBytes: 284113,
    activityId: research.id,
    relationship: "input",
  });
  await trackAiActivity(db, owner, {
    kind: "writing",
    title: "Newsletter draft (November)",
    source: "mcp",
    agentName: "Sales Coach",
    status: "waiting",
    phases: [{ name: "outline", status: "completed" }, { name: "draft", status: "pending" }],
  });
  await createDocument(db, owner, {
    title: "Meeting notes — Nordlicht",
    kind: "notes",
    source: "user",
    contentMarkdown: "- Budget approved\n- Start in January",
    companyId: south,
  });
}

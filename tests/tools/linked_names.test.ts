// Names across boundaries: a linked record's name (a time log's task and project, a project's, invoice's or CRM
// activity's client, an activity's contact) is shown only to callers who could read that record themselves.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callOk, mcpApp } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const A = mcpApp(db.sql, "A");
const B = mcpApp(db.sql, "B");
const owner = f.keys.owner;
const ownerA = f.keys.ownerCompanyA; // the owner's key limited to company a

Deno.test("time logs: the title of a task that moved to another company is null for a company-limited caller", async () => {
  const projA = await callOk(A, owner, "create_project", {
    name: "Northern works",
    companyId: f.companies.a,
  });
  const projB = await callOk(A, owner, "create_project", {
    name: "Southern works",
    companyId: f.companies.b,
  });
  const task = await callOk(A, owner, "create_task", { title: "Paint the fence", projectId: projA.id });
  const log = await callOk(A, f.keys.limited, "create_time_log", {
    date: "2026-03-02",
    startTime: "09:00",
    endTime: "10:00",
    taskId: task.id,
  });
  assert.deepEqual([log.taskTitle, log.projectName], ["Paint the fence", "Northern works"]);

  await callOk(A, owner, "update_task", { taskId: task.id, projectId: projB.id });
  const limitedAssistant = await f.key({ kind: "internal", user: f.users.limited });
  for (const [app, key] of [[A, f.keys.limited], [B, limitedAssistant]] as const) {
    const [listed] = (await callOk(app, key, "list_time_logs", {})).items.filter((l: { id: string }) =>
      l.id === log.id
    );
    // The log is still the limited member's own (company a); what it links to is not readable for them.
    assert.deepEqual(
      [listed.taskId, listed.taskTitle, listed.projectId, listed.projectName],
      [task.id, null, projB.id, null],
    );
  }
  const [stored] = await db.sql`select company_id from time_logs where id = ${log.id}`;
  assert.equal(stored.company_id, f.companies.a);
  const summary = await callOk(A, f.keys.limited, "time_log_summary", {});
  const byProject = summary.byProject.find((p: { projectId: string }) => p.projectId === projB.id);
  assert.equal(byProject.projectName, null);
  assert.ok(!JSON.stringify(summary).includes("Southern works"));

  // The owner, who reads every company, sees the title on their own log of the same task.
  const own = await callOk(A, owner, "create_time_log", {
    date: "2026-03-03",
    startTime: "09:00",
    endTime: "09:30",
    taskId: task.id,
  });
  assert.deepEqual([own.taskTitle, own.projectName], ["Paint the fence", "Southern works"]);
});

Deno.test("time logs: the title of a task that became private is null until its logger may see it again", async () => {
  const task = await callOk(A, owner, "create_task", { title: "Quarterly review", companyId: f.companies.a });
  const log = await callOk(A, f.keys.member, "create_time_log", {
    date: "2026-03-04",
    startTime: "14:00",
    endTime: "15:00",
    taskId: task.id,
  });
  assert.equal(log.taskTitle, "Quarterly review");
  const titleOf = async () =>
    (await callOk(A, f.keys.member, "list_time_logs", {})).items.find((l: { id: string }) => l.id === log.id)
      .taskTitle;

  await callOk(A, owner, "update_task", { taskId: task.id, isPrivate: true });
  assert.equal(await titleOf(), null);
  assert.ok(
    !JSON.stringify((await callOk(A, f.keys.member, "list_time_logs", {})).items).includes(
      "Quarterly review",
    ),
  );
  // The owner (its creator) still reads it on their own logs.
  const ownLog = await callOk(A, owner, "create_time_log", {
    date: "2026-03-04",
    startTime: "16:00",
    endTime: "17:00",
    taskId: task.id,
  });
  assert.equal(ownLog.taskTitle, "Quarterly review");
  // Assigned to the member, the private task is readable for them again, and so is its title on the log.
  await callOk(A, owner, "update_task", { taskId: task.id, assigneeIds: [f.users.member, f.users.owner] });
  assert.equal(await titleOf(), "Quarterly review");
});

Deno.test("projects, invoices and CRM activities: a client that moved company is named only where readable", async () => {
  const client = await callOk(A, owner, "create_client", {
    companyName: "Wandering Ltd",
    companyId: f.companies.a,
  });
  // Made through the company-a key, the contact belongs to company a.
  const contact = await callOk(A, ownerA, "create_contact", { contactName: "Mira Mover" });
  assert.equal(contact.companyId, f.companies.a);
  const project = await callOk(A, owner, "create_project", { name: "Stay here", clientId: client.id });
  assert.equal(project.companyId, f.companies.a);
  const invoice = await callOk(A, owner, "create_invoice", {
    clientId: client.id,
    rows: [{ description: "Work", unitPrice: "100.00" }],
  });
  const activity = await callOk(A, owner, "create_activity", { title: "Visit", clientId: client.id });
  const contactActivity = await callOk(A, owner, "create_activity", { title: "Call", contactId: contact.id });
  assert.equal(activity.entity.name, "Wandering Ltd");
  assert.equal(contactActivity.entity.name, "Mira Mover");

  // Before the move the company-a key reads every name.
  assert.equal(
    (await callOk(A, ownerA, "get_project", { projectId: project.id })).clientName,
    "Wandering Ltd",
  );

  await callOk(A, owner, "update_client", { clientId: client.id, companyId: f.companies.b });
  // No tool moves a contact between companies; the data may still hold one that moved.
  await db.sql`update contacts set company_id = ${f.companies.b} where id = ${contact.id}`;

  // The records stay in company a; the client's and contact's names are gone for the company-a key …
  const got = await callOk(A, ownerA, "get_project", { projectId: project.id });
  assert.deepEqual([got.clientId, got.clientName], [client.id, null]);
  const listed = (await callOk(A, ownerA, "list_projects", {})).find((p: { id: string }) =>
    p.id === project.id
  );
  assert.deepEqual([listed.clientId, listed.clientName], [client.id, null]);
  const inv = (await callOk(A, ownerA, "list_invoices", {})).items.find((i: { id: string }) =>
    i.id === invoice.id
  );
  assert.deepEqual([inv.clientId, inv.clientName], [client.id, null]);
  const acts = (await callOk(A, ownerA, "list_activities", {})).items;
  const act = acts.find((a: { id: string }) => a.id === activity.id);
  assert.deepEqual(act.entity, { kind: "client", id: client.id, name: null });
  const cact = acts.find((a: { id: string }) => a.id === contactActivity.id);
  assert.deepEqual(cact.entity, { kind: "contact", id: contact.id, name: null });
  for (const answer of [got, listed, inv, acts]) {
    const text = JSON.stringify(answer);
    assert.ok(!text.includes("Wandering Ltd") && !text.includes("Mira"), text);
  }
  // … and for a company-a workspace key in variant B.
  const b = (await callOk(B, f.keys.workspaceCompanyA, "list_projects", {}))
    .find((p: { id: string }) => p.id === project.id);
  assert.deepEqual([b.clientId, b.clientName], [client.id, null]);

  // An unlimited caller, who may read the client wherever it is, still sees every name.
  assert.equal(
    (await callOk(A, owner, "get_project", { projectId: project.id })).clientName,
    "Wandering Ltd",
  );
  const ownerInv = (await callOk(A, owner, "list_invoices", {})).items.find((i: { id: string }) =>
    i.id === invoice.id
  );
  assert.equal(ownerInv.clientName, "Wandering Ltd");
  const ownerActs = (await callOk(A, owner, "list_activities", {})).items;
  assert.equal(ownerActs.find((a: { id: string }) => a.id === activity.id).entity.name, "Wandering Ltd");
  assert.equal(ownerActs.find((a: { id: string }) => a.id === contactActivity.id).entity.name, "Mira Mover");
});

Deno.test("appointments: the name of a linked project is null where the caller could not read the project", async () => {
  const projA = await callOk(A, owner, "create_project", { name: "Harbour site", companyId: f.companies.a });
  const loose = await callOk(A, owner, "create_project", { name: "Secret company-less plan" });
  // The owner's key limited to company a books it with a project of company a: the appointment is company a's.
  const appt = await callOk(A, ownerA, "create_appointment", {
    date: "2026-04-02",
    startTime: "10:00",
    endTime: "11:00",
    projectId: projA.id,
  });
  assert.deepEqual([appt.companyId, appt.projectName], [f.companies.a, "Harbour site"]);
  // With the unlimited key the owner links a company-less project; the appointment keeps company a.
  const moved = await callOk(A, owner, "update_appointment", { appointmentId: appt.id, projectId: loose.id });
  assert.deepEqual([moved.companyId, moved.projectName], [f.companies.a, "Secret company-less plan"]);
  // The company-a key sees the appointment (company a) but may not read a company-less project.
  const listed = (await callOk(A, ownerA, "list_appointments", {})).items.find((a: { id: string }) =>
    a.id === appt.id
  );
  assert.deepEqual([listed.projectId, listed.projectName], [loose.id, null]);
  assert.ok(!JSON.stringify(listed).includes("Secret company-less plan"));
  const touched = await callOk(A, ownerA, "update_appointment", { appointmentId: appt.id, notes: "n" });
  assert.equal(touched.projectName, null);
  assert.ok(!JSON.stringify(touched).includes("Secret company-less plan"));
});

// Test-only: answers shaped exactly as gantt_plan, get_task, get_offer, generate_invoice_from_offer_tranche,
// list_time_logs and time_log_summary answer them (lib/workspace/task_plan.ts, offer_reads.ts, invoices.ts,
// time_logs.ts), for the views' own Chromium tests.

export const ANA = "0b6c1a52-5a1e-4c8e-9a43-0a0000000001";
export const BEN = "0b6c1a52-5a1e-4c8e-9a43-0a0000000002";
export const T = (n: number) => `7d1e0c3a-0000-4000-8000-${String(n).padStart(12, "0")}`;

const bar = (
  n: number,
  userId: string | null,
  userName: string | null,
  kind: "solid" | "ghost",
  start: string,
  end: string,
  extra: Partial<
    { status: string; dueDate: string | null; endsAfterDueDate: boolean; clippedStart: boolean }
  > = {},
) => ({
  taskId: T(n),
  displayId: `WEB-${n}`,
  title: `Task number ${n}`,
  projectId: "5f0c0e1e-0000-4000-8000-000000000001",
  status: extra.status ?? (kind === "ghost" ? "todo" : "in_progress"),
  userId,
  userName,
  start,
  end,
  kind,
  dueDate: extra.dueDate ?? null,
  endsAfterDueDate: extra.endsAfterDueDate ?? false,
  clippedStart: extra.clippedStart ?? false,
  clippedEnd: false,
});

export const PLAN_INPUT = { from: "2026-11-23", to: "2026-12-20", taskScope: "all" };

/** Ana: a solid overdue bar, three ghost bars (the last forecast late); Ben: one solid, one ghost; one unassigned. */
export function plan(order: number[] = [3, 4, 5]) {
  const ghostDates = [["2026-11-27", "2026-11-30"], ["2026-12-01", "2026-12-03"], [
    "2026-12-04",
    "2026-12-10",
  ]];
  return {
    from: "2026-11-23",
    to: "2026-12-20",
    today: "2026-11-27",
    bars: [
      bar(1, ANA, "Ana Alves", "solid", "2026-11-23", "2026-11-26", {
        dueDate: "2026-11-25",
        clippedStart: true,
      }),
      ...order.map((n, i) =>
        bar(
          n,
          ANA,
          "Ana Alves",
          "ghost",
          ghostDates[i][0],
          ghostDates[i][1],
          n === 5 ? { dueDate: "2026-12-05", endsAfterDueDate: i === 2 } : {},
        )
      ),
      bar(6, BEN, "Ben Brook", "solid", "2026-11-30", "2026-12-11", {
        dueDate: "2026-12-18",
        status: "todo",
      }),
      bar(7, BEN, "Ben Brook", "ghost", "2026-11-27", "2026-11-27"),
      bar(8, null, null, "solid", "2026-12-14", "2026-12-18", { status: "todo" }),
    ],
    total: 7,
    truncated: false,
    horizon: "2036-11-27",
    beyondHorizon: [{
      taskId: T(9),
      displayId: "WEB-9",
      title: "Someday",
      projectId: null,
      status: "todo",
      userId: BEN,
      userName: "Ben Brook",
      dueDate: null,
      endsAfterDueDate: false,
    }],
    beyondHorizonTotal: 1,
  };
}

export function task(n: number) {
  return {
    id: T(n),
    displayId: `WEB-${n}`,
    number: n,
    title: `Task number ${n}`,
    status: "todo",
    priority: "high",
    projectId: "5f0c0e1e-0000-4000-8000-000000000001",
    projectName: "Website",
    parentTaskId: null,
    companyId: null,
    isPrivate: false,
    startDate: null,
    dueDate: "2026-12-05",
    estimatedHours: 24,
    actualHours: 3.5,
    sortOrder: 2048,
    assigneeIds: [ANA],
    childTaskCount: 0,
    isOverdue: false,
    isForecastLate: true,
    createdBy: ANA,
    createdAt: "2026-11-01T10:00:00.000Z",
    updatedAt: "2026-11-02T10:00:00.000Z",
    description: "<script>alert(1)</script> stays text",
    assignees: [{ userId: ANA, name: "Ana Alves", email: "ana@example.com" }],
    subtasks: [],
    comments: [],
  };
}

export const OFFER_ID = "a1f0c0e1-0000-4000-8000-000000000001";
export const TR = (n: number) => `b2f0c0e1-0000-4000-8000-${String(n).padStart(12, "0")}`;

export function offer() {
  return {
    id: OFFER_ID,
    subject: "Website relaunch",
    description: "",
    clientId: "c3f0c0e1-0000-4000-8000-000000000001",
    clientName: "Acme <b>GmbH</b>",
    companyId: null,
    offerDate: "2026-11-01",
    validUntil: "2026-12-31",
    currency: "EUR",
    notes: "",
    total: "12500.00",
    rows: [
      {
        position: 1,
        description: "Design",
        quantity: "40",
        unit: "h",
        unitPrice: "100.00",
        discountPercent: "0.00",
        amount: "4000.00",
      },
      {
        position: 2,
        description: "Build",
        quantity: "100",
        unit: "h",
        unitPrice: "90.00",
        discountPercent: "5.56",
        amount: "8500.00",
      },
    ],
    tranches: [
      {
        id: TR(1),
        position: 1,
        label: "Deposit",
        percentage: "30.00",
        amount: "3750.00",
        dueDate: "2026-11-15",
        status: "invoiced",
        invoiceId: "d4f0c0e1-0000-4000-8000-000000000001",
        invoiceNumber: "2026-0007",
      },
      {
        id: TR(2),
        position: 2,
        label: "On delivery",
        percentage: "50.00",
        amount: "6250.00",
        dueDate: "2026-12-15",
        status: "to_invoice",
        invoiceId: null,
        invoiceNumber: null,
      },
      {
        id: TR(3),
        position: 3,
        label: "Support",
        percentage: null,
        amount: "2500.00",
        dueDate: null,
        status: "to_invoice",
        invoiceId: null,
        invoiceNumber: null,
      },
    ],
    createdBy: null,
    createdAt: "2026-11-01T09:00:00.000Z",
    status: "partially_invoiced",
  };
}

export function trancheInvoice(n: number, number: string) {
  const t = offer().tranches[n - 1];
  return {
    invoice: {
      id: "d4f0c0e1-0000-4000-8000-000000000042",
      number,
      type: "invoice",
      status: "draft",
      currency: "EUR",
      subtotal: t.amount,
      vatRate: "20.00",
      vatAmount: "1250.00",
      total: "7500.00",
      rows: [],
    },
    tranche: { ...t, status: "invoiced", invoiceId: "d4f0c0e1-0000-4000-8000-000000000042" },
  };
}

export const P1 = "e5f0c0e1-0000-4000-8000-000000000001";
export const P2 = "e5f0c0e1-0000-4000-8000-000000000002";
export const CAT = "f6f0c0e1-0000-4000-8000-000000000001";

const log = (
  n: number,
  date: string,
  startTime: string,
  endTime: string,
  hours: number,
  link: {
    projectId?: string;
    projectName?: string;
    categoryId?: string;
    categoryName?: string;
    task?: string;
  },
) => ({
  id: `a7f0c0e1-0000-4000-8000-${String(n).padStart(12, "0")}`,
  date,
  startTime,
  endTime,
  hours,
  description: n === 1 ? "Kick-off <i>call</i>" : "",
  taskId: link.task ? T(n) : null,
  taskTitle: link.task ?? null,
  categoryId: link.categoryId ?? null,
  categoryName: link.categoryName ?? null,
  projectId: link.projectId ?? null,
  projectName: link.projectName ?? null,
  isBillable: true,
  hourlyRate: null,
  amount: null,
});

export const WEEK_INPUT = { startDate: "2026-11-23", endDate: "2026-11-29" };

/** list_time_logs' page: Website 2.5 + 4 + 1.5 = 8 h, Intranet 3 h, Admin (category, no project) 0.75 h. */
export function timeLogs() {
  const web = { projectId: P1, projectName: "Website" };
  return {
    items: [
      log(5, "2026-11-26", "10:00:00", "11:30:00", 1.5, { ...web, task: "Review" }),
      log(4, "2026-11-25", "13:00:00", "16:00:00", 3, { projectId: P2, projectName: "Intranet" }),
      log(3, "2026-11-24", "09:00:00", "09:45:00", 0.75, { categoryId: CAT, categoryName: "Admin" }),
      log(2, "2026-11-23", "13:00:00", "17:00:00", 4, { ...web, task: "Build" }),
      log(1, "2026-11-23", "09:00:00", "11:30:00", 2.5, { ...web, categoryId: CAT, categoryName: "Admin" }),
    ],
    total: 5,
    hasMore: false,
    nextOffset: null,
  };
}

export function timeSummary() {
  return {
    startDate: "2026-11-23",
    endDate: "2026-11-29",
    projectIds: null,
    totalHours: 11.75,
    entryCount: 5,
    billableHours: 11.75,
    byProject: [
      { projectId: P1, projectName: "Website", hours: 8, entryCount: 3 },
      { projectId: P2, projectName: "Intranet", hours: 3, entryCount: 1 },
    ],
    byCategory: [{ categoryId: CAT, categoryName: "Admin", hours: 3.25, entryCount: 2 }],
    withoutProject: { hours: 0.75, entryCount: 1 },
  };
}

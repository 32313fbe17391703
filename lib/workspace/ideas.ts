// Ideas: proposals for future work (title, estimated budget, priority), recorded with the person who had them.
import { isoColumn } from "../db/sql.ts";
import type { Db } from "../db/client.ts";
import { invalidInput, notFound } from "../errors.ts";
import { formatMoney, parseMoney } from "../money.ts";
import { requireClient } from "./clients.ts";
import { companyFilter, companyForWrite, requireCompany, type ScopedCaller, scopeOf } from "./scope.ts";

/** 1 low, 2 medium, 3 high. */
export const PRIORITY_LABELS = { 1: "low", 2: "medium", 3: "high" } as const;
export type Priority = keyof typeof PRIORITY_LABELS;
export type PriorityLabel = typeof PRIORITY_LABELS[Priority];
export const PRIORITY_BY_LABEL: Record<PriorityLabel, Priority> = { low: 1, medium: 2, high: 3 };

export interface NewIdea {
  title: string;
  description?: string;
  estimatedBudget?: string | number;
  currency?: string;
  /** default 2 (medium) */
  priority?: Priority;
  notes?: string;
  companyId?: string;
  clientId?: string;
}

export interface Idea {
  id: string;
  title: string;
  description: string;
  estimatedBudget: string | null;
  currency: string;
  priority: Priority;
  priorityLabel: PriorityLabel;
  notes: string;
  companyId: string | null;
  clientId: string | null;
  createdBy: string | null;
  createdAt: string;
}

export async function getIdea(db: Db, caller: ScopedCaller, id: string): Promise<Idea> {
  const s = scopeOf(caller);
  const [row] = await db<Omit<Idea, "priorityLabel">[]>`
    select id, title, description, estimated_budget::text as "estimatedBudget", currency, priority, notes,
           company_id as "companyId", client_id as "clientId", created_by as "createdBy",
           ${isoColumn(db, "created_at")} as "createdAt"
      from ideas where workspace_id = ${s.workspaceId} and id = ${id} and ${companyFilter(db, s)}`;
  if (!row) throw notFound(`ideaId: no idea ${id}`);
  return { ...row, priorityLabel: PRIORITY_LABELS[row.priority] };
}

/** Records an idea as the calling person; the company is the client's unless given (and then must match). */
export async function createIdea(db: Db, caller: ScopedCaller, input: NewIdea): Promise<Idea> {
  const s = scopeOf(caller);
  const title = input.title.trim();
  if (title.length < 1 || title.length > 200) throw invalidInput("title: must be 1-200 characters");
  const description = (input.description ?? "").trim();
  const notes = (input.notes ?? "").trim();
  if (description.length > 10000) throw invalidInput("description: must be at most 10000 characters");
  if (notes.length > 10000) throw invalidInput("notes: must be at most 10000 characters");
  let budget: string | null = null;
  if (input.estimatedBudget !== undefined) {
    const cents = parseMoney(input.estimatedBudget, "estimatedBudget");
    if (cents < 0n) throw invalidInput("estimatedBudget: must not be negative");
    budget = formatMoney(cents);
  }
  const priority = input.priority ?? 2;
  if (!(priority in PRIORITY_LABELS)) throw invalidInput("priority: must be 1 (low), 2 (medium) or 3 (high)");
  let companyId = input.companyId ?? null;
  if (input.clientId) {
    const client = await requireClient(db, s, input.clientId);
    if (companyId && client.companyId && companyId !== client.companyId) {
      throw invalidInput(`clientId: client ${input.clientId} belongs to another company than companyId`);
    }
    companyId ??= client.companyId;
  }
  companyId = companyForWrite(s, companyId);
  if (companyId) await requireCompany(db, s, companyId);
  const [{ id }] = await db<{ id: string }[]>`
    insert into ideas (workspace_id, company_id, client_id, title, description, estimated_budget, currency,
                       priority, notes, created_by)
    values (${s.workspaceId}, ${companyId}, ${input.clientId ?? null}, ${title}, ${description}, ${budget},
            ${input.currency ?? "EUR"}, ${priority}, ${notes}, ${caller.userId ?? null})
    returning id`;
  return await getIdea(db, caller, id);
}

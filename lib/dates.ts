// Calendar dates as the tools speak them: YYYY-MM-DD in UTC.

/** Today's date in UTC, YYYY-MM-DD: the default date of offers and invoices and the "today" of task plans. */
export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

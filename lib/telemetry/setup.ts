// Starts Portico's own telemetry for a serving process when OpenTelemetry is on (lib/telemetry/otel.ts): the SQL
// spans and the gauges read at each metric export (the pool, the audit trail's buffer and drops).
//
// Exports: startTelemetry.
import type { AuditLog } from "../audit.ts";
import type { Sql } from "../db/client.ts";
import { type GaugeSpec, observeGauges, OTEL_ON } from "./otel.ts";
import { dbGauges, instrumentSql } from "./sql.ts";

/** The audit trail's gauges, read from its stats (lib/audit.ts): entries dropped since start, entries waiting. */
function auditGauges(audit: AuditLog): GaugeSpec[] {
  return [
    {
      name: "portico.audit.dropped",
      description: "audit entries dropped since start because the buffer was full, by kind",
      kind: "counter",
      read: () => {
        const { dropped } = audit.stats();
        return [[dropped.authenticated, { "portico.audit.kind": "authenticated" }], [dropped.refused, {
          "portico.audit.kind": "refused",
        }]];
      },
    },
    {
      name: "portico.audit.buffered",
      description: "audit entries waiting to be written",
      kind: "gauge",
      read: () => [[audit.stats().buffered]],
    },
  ];
}

/** When OTel is on: SQL spans for every pool of the process, and the gauges. Off: nothing at all. */
export function startTelemetry(deps: { sql: Sql; audit?: AuditLog }): void {
  if (!OTEL_ON) return;
  instrumentSql(deps.sql);
  observeGauges([...dbGauges(), ...(deps.audit ? auditGauges(deps.audit) : [])]);
}

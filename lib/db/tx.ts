// The one way to run work atomically: a transaction on a pool, a savepoint inside a caller's transaction.
import type { TransactionSql } from "postgres";
import type { Db, Sql } from "./client.ts";
import { pgCode } from "../errors.ts";

export interface TxOptions {
  /** isolation level of a new transaction; default read committed. Ignored inside a caller's transaction. */
  isolation?: "read committed" | "repeatable read" | "serializable";
  /** a new transaction that only reads (lets Postgres skip work and refuses a write by mistake) */
  readOnly?: boolean;
  /** how many times a new transaction is run again after a deadlock or serialization failure; default 2 */
  retries?: number;
}

/** SQLSTATEs after which running the whole transaction again can succeed. */
const RETRYABLE = new Set([
  "40P01", // deadlock_detected: one of two writers is chosen as the victim
  "40001", // serialization_failure: repeatable read / serializable lost a race
]);

function isTransaction(db: Db): db is TransactionSql {
  // A postgres.js transaction has savepoint(); a pool has begin(). Decided here and nowhere else.
  return "savepoint" in db;
}

/**
 * Runs `fn` atomically. On a pool: a new transaction (with `options`), run again up to `retries` times when
 * Postgres aborts it as a deadlock victim or a serialization failure — `fn` must therefore be safe to repeat (it
 * is: everything it did was rolled back). Inside a caller's transaction: a savepoint, so a failure of `fn` undoes
 * only its own work and leaves the caller's transaction usable; the caller's isolation applies, and a retry is
 * the caller's business (its snapshot is shared).
 */
export async function withTx<T>(
  db: Db,
  fn: (tx: TransactionSql) => Promise<T>,
  options: TxOptions = {},
): Promise<T> {
  if (isTransaction(db)) return await db.savepoint(fn) as T;
  const mode = [
    options.isolation ? `isolation level ${options.isolation}` : "",
    options.readOnly ? "read only" : "",
  ].filter(Boolean).join(" ");
  const retries = options.retries ?? 2;
  for (let attempt = 0;; attempt++) {
    try {
      return mode ? await (db as Sql).begin(mode, fn) as T : await (db as Sql).begin(fn) as T;
    } catch (err) {
      const code = pgCode(err);
      if (!code || !RETRYABLE.has(code) || attempt >= retries) throw err;
    }
  }
}

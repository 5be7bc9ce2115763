import { type Insertable, sql } from "kysely";
import type { Db } from "../database.js";
import type { CreditLedgerTable } from "../schema/index.js";

export async function insertLedgerEntry(db: Db, row: Insertable<CreditLedgerTable>): Promise<void> {
  await db.insertInto("credit_ledger").values(row).execute();
}

export interface LedgerTotals {
  /** Credits charged for finished jobs in the period. */
  charged: number;
  /** Sum of grants and corrections in the period. */
  adjustments: number;
}

export async function ledgerTotals(db: Db, accountId: string, periodStart: string): Promise<LedgerTotals> {
  const rows = await db
    .selectFrom("credit_ledger")
    .select(["kind", (eb) => eb.fn.sum<number | string>("amount").as("total")])
    .where("account_id", "=", accountId)
    .where("period_start", "=", periodStart)
    .groupBy("kind")
    .execute();
  const total = (kind: string) => Number(rows.find((row) => row.kind === kind)?.total ?? 0);
  return { charged: total("charge"), adjustments: total("adjustment") };
}

export interface CreditsOfDay {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  credits: number;
}

/**
 * Credits charged to the account in the period, per UTC day of the charge (a job is charged when it
 * finishes), ascending. Days without charges are absent. The first 10 characters of the ISO text are the
 * day on both dialects.
 */
export async function creditsPerDay(db: Db, accountId: string, periodStart: string): Promise<CreditsOfDay[]> {
  // The numbers are part of the SQL text, not parameters, so PostgreSQL sees the grouped expression and
  // the selected one as the same.
  const day = sql<string>`substr(${sql.ref("created_at")}, 1, 10)`;
  const rows = await db
    .selectFrom("credit_ledger")
    .select([day.as("day"), (eb) => eb.fn.sum<number | string>("amount").as("credits")])
    .where("account_id", "=", accountId)
    .where("period_start", "=", periodStart)
    .where("kind", "=", "charge")
    .groupBy(day)
    .orderBy(day)
    .execute();
  return rows.map((row) => ({ day: row.day, credits: Number(row.credits) }));
}

import type { Insertable } from "kysely";
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

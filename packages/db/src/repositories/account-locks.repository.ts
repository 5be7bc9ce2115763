import { sql, type Transaction } from "kysely";
import type { DialectName } from "../database.js";
import type { Database } from "../schema/index.js";

/*
 * An account's row locked for the rest of a transaction, so two API nodes or workers cannot both
 * take its last credit or its last running place. SQLite needs none: its single writer holds the
 * whole database for an immediate transaction.
 */

export async function lockAccount(
  trx: Transaction<Database>,
  dialect: DialectName,
  accountId: string,
): Promise<void> {
  if (dialect !== "postgres") return;
  await sql`select id from accounts where id = ${accountId} for update`.execute(trx);
}

/** The same for the account that owns a job. */
export async function lockAccountOfJob(
  trx: Transaction<Database>,
  dialect: DialectName,
  jobId: string,
): Promise<void> {
  if (dialect !== "postgres") return;
  await sql`select id from accounts where id = (select account_id from jobs where id = ${jobId}) for update`.execute(
    trx,
  );
}

import type {
  DatabaseHandle,
  Db,
  JobFileRow,
  JobRow,
  WebhookAttemptRow,
  WebhookDeliveryRow,
  WebhookDeliveryStatus,
} from "@octavo/db";
import {
  deleteWebhookDeliveriesFinishedBefore,
  findJob,
  findUnfinishedWebhookDeliveries,
  findWebhookDelivery,
  findWebhookDeliveryOfAccount,
  insertWebhookDelivery,
  kyselyOf,
  listJobFiles,
  listWebhookAttemptsOfDeliveries,
  listWebhookDeliveriesOfAccount,
  recordWebhookAttempt,
} from "@octavo/db/repositories";
import { newId, toIso } from "./time.js";

/**
 * Records a pending delivery of a job's webhook and returns its id. The row is written before the
 * delivery goes on the queue (with the job's final state, in the same transaction), so one lost on its
 * way to Redis is found and sent by the janitor.
 */
export async function recordWebhookDelivery(
  db: Db,
  delivery: { jobId: string; accountId: string; url: string },
  now = new Date(),
): Promise<string> {
  const id = newId();
  await insertWebhookDelivery(db, {
    id,
    job_id: delivery.jobId,
    account_id: delivery.accountId,
    url: delivery.url,
    status: "pending",
    last_status_code: null,
    last_error: null,
    created_at: toIso(now),
    finished_at: null,
  });
  return id;
}

/** A delivery still to be sent, with what it sends: the job and its outputs. */
export interface PendingDelivery {
  delivery: WebhookDeliveryRow;
  job: JobRow;
  outputs: JobFileRow[];
}

export interface AttemptRecord {
  attempt: number;
  startedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** Webhook deliveries and their attempts: sent by the worker, shown and re-sent by the dashboard. */
export class WebhookDeliveries {
  constructor(private readonly database: DatabaseHandle) {}

  /** The delivery when it is still pending (not delivered, not given up), with its job. */
  async pending(deliveryId: string): Promise<PendingDelivery | undefined> {
    const db = kyselyOf(this.database);
    const delivery = await findWebhookDelivery(db, deliveryId);
    if (delivery?.status !== "pending") return undefined;
    const job = await findJob(db, delivery.job_id);
    if (!job) return undefined;
    const outputs = job.status === "done" ? await listJobFiles(db, job.id, "output") : [];
    return { delivery, job, outputs };
  }

  /** One attempt, and where the delivery stands after it. */
  async recordAttempt(
    deliveryId: string,
    attempt: AttemptRecord,
    outcome: { status: WebhookDeliveryStatus; finishedAt: Date | null },
  ): Promise<void> {
    await recordWebhookAttempt(
      kyselyOf(this.database),
      {
        id: newId(),
        delivery_id: deliveryId,
        attempt: attempt.attempt,
        started_at: toIso(attempt.startedAt),
        status_code: attempt.statusCode,
        error: attempt.error,
        duration_ms: attempt.durationMs,
      },
      { status: outcome.status, finishedAt: outcome.finishedAt ? toIso(outcome.finishedAt) : null },
    );
  }

  /** The account's latest deliveries, newest first, each with its attempts. */
  async recent(
    accountId: string,
    limit: number,
  ): Promise<{ delivery: WebhookDeliveryRow; attempts: WebhookAttemptRow[] }[]> {
    const db = kyselyOf(this.database);
    const deliveries = await listWebhookDeliveriesOfAccount(db, accountId, limit);
    const attempts = await listWebhookAttemptsOfDeliveries(
      db,
      deliveries.map((delivery) => delivery.id),
    );
    return deliveries.map((delivery) => ({
      delivery,
      attempts: attempts.filter((attempt) => attempt.delivery_id === delivery.id),
    }));
  }

  /**
   * Sends a delivery of the account's again, as a new delivery of the same job to the same URL (with
   * its own attempts and retries). Undefined for another account's, or an unknown, delivery.
   */
  async resend(accountId: string, deliveryId: string, now = new Date()): Promise<string | undefined> {
    const db = kyselyOf(this.database);
    const original = await findWebhookDeliveryOfAccount(db, accountId, deliveryId);
    if (!original) return undefined;
    return recordWebhookDelivery(db, { jobId: original.job_id, accountId, url: original.url }, now);
  }

  /** Deliveries still pending that were recorded before the cut-off (their queue message may be lost). */
  unfinished(createdBefore: Date, limit: number): Promise<WebhookDeliveryRow[]> {
    return findUnfinishedWebhookDeliveries(kyselyOf(this.database), toIso(createdBefore), limit);
  }

  /** Deletes up to `limit` deliveries (with their attempts) that ended before the cut-off. */
  pruneFinished(finishedBefore: Date, limit: number): Promise<number> {
    return deleteWebhookDeliveriesFinishedBefore(kyselyOf(this.database), toIso(finishedBefore), limit);
  }
}

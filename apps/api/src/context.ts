import type { Config, Logger } from "@octavo/config";
import type { JobKind } from "@octavo/contracts";
import type {
  AccountService,
  BacklogEstimator,
  DownloadLinks,
  FileLinkSigner,
  IdempotencyService,
  JobActions,
  JobService,
  StoredFile,
} from "@octavo/core";
import type { DatabaseHandle } from "@octavo/db";
import type { ServiceMetrics } from "@octavo/metrics";
import type { JobEndedListener, JobProducer } from "@octavo/queue";
import type { BlobStore } from "@octavo/storage";
import type { RequestHandler } from "express";
import type { PlanRateLimiter } from "./middleware/rate-limit.js";
import type { InputSession } from "./uploads/input-session.js";

/** The API's side of the outbound policy (@octavo/net): URL inputs and URLs the service will call later. */
export interface Outbound {
  /** Refuses (400 blocked_url) a URL the service may not reach; nothing is sent. `field` names it in errors. */
  check(url: string, field: string): Promise<void>;
  /** Downloads a URL input into the request's session; 400 blocked_url/unreachable_url or 413 too_large. */
  download(url: string, session: InputSession, position: number, maxBytes: number): Promise<StoredFile>;
}

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
  /** Reported by /readyz but not failing it. */
  advisory?: boolean;
}

/** Everything a request handler may use, built once at start-up and passed in (nothing at import time). */
export interface ApiContext {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  store: BlobStore;
  producer: JobProducer;
  /** Wakes the long polls of GET /v1/jobs/{id}?wait= when a worker ends their job. */
  jobEnded: Pick<JobEndedListener, "wait">;
  accounts: AccountService;
  jobs: JobService;
  /** A caller's own job: read, canceled, its results deleted. */
  jobActions: JobActions;
  /** Verifies the API's own signed /v1/files/ links. */
  links: FileLinkSigner;
  /** Makes the links of GET /v1/jobs/{id}: the API's own, or presigned S3 URLs. */
  downloadLinks: DownloadLinks;
  idempotency: IdempotencyService;
  rateLimiter: PlanRateLimiter;
  /** Back-pressure in time: an account's own backlog (429) and a queue's (503). */
  backlog: Pick<BacklogEstimator, "check">;
  outbound: Outbound;
  /** Operations whose engines are installed; the others answer 503 unavailable. */
  availableOperations: ReadonlySet<JobKind>;
  /** Database, Redis, storage, and (advisory) workers; /readyz runs them all. */
  readinessChecks: readonly ReadinessCheck[];
  /** Counts requests and accepted jobs; /metrics is served apart (see createMetricsApp). */
  metrics: ServiceMetrics;
  /** The customer dashboard's pages, served at /dashboard on the same origin (see @octavo/dashboard). */
  dashboard?: RequestHandler;
}

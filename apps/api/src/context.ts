import type { Config, Logger } from "@octavo/config";
import type { OperationId } from "@octavo/contracts";
import type { AccountService, FileLinkSigner, JobService } from "@octavo/core";
import type { DatabaseHandle } from "@octavo/db";
import type { JobProducer } from "@octavo/queue";
import type { BlobStore } from "@octavo/storage";

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** Everything a request handler may use, built once at start-up and passed in (nothing at import time). */
export interface ApiContext {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  store: BlobStore;
  producer: JobProducer;
  accounts: AccountService;
  jobs: JobService;
  links: FileLinkSigner;
  /** Operations whose engines are installed; the others answer 503 unavailable. */
  availableOperations: ReadonlySet<OperationId>;
  /** Database, Redis, storage and workers; /readyz runs them all. */
  readinessChecks: readonly ReadinessCheck[];
}

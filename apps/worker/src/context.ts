import type { Config, Logger } from "@octavo/config";
import type { JobService } from "@octavo/core";
import type { DatabaseHandle } from "@octavo/db";
import type { JobProducer } from "@octavo/queue";
import type { BlobStore } from "@octavo/storage";

/** What the workers need, built once by the process that runs them. */
export interface WorkerContext {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  store: BlobStore;
  jobs: JobService;
  producer: JobProducer;
  redisUrl: string;
}

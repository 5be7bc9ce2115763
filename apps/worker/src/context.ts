import type { Config, Logger } from "@octavo/config";
import type {
  AccountService,
  DownloadLinks,
  Housekeeping,
  JobService,
  WebhookDeliveries,
} from "@octavo/core";
import type { ServiceMetrics } from "@octavo/metrics";
import type { AllowList } from "@octavo/net";
import type { JobProducer } from "@octavo/queue";
import type { BlobStore } from "@octavo/storage";

/** What the workers need, built once by the process that runs them. */
export interface WorkerContext {
  config: Config;
  logger: Logger;
  store: BlobStore;
  jobs: JobService;
  deliveries: WebhookDeliveries;
  housekeeping: Housekeeping;
  accounts: AccountService;
  /** The download links of the webhook body. */
  downloadLinks: DownloadLinks;
  /** OCTAVO_URL_ALLOWLIST, parsed: private addresses webhooks may reach. */
  allowlist: AllowList;
  producer: JobProducer;
  redisUrl: string;
  /** Jobs ended, webhook attempts, engine (re)starts and the depth of this worker's queues. */
  metrics: ServiceMetrics;
}

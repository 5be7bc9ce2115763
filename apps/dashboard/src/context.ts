import type { Logger } from "@octavo/config";
import type { PlanId } from "@octavo/contracts";
import type { AccountService, CustomerAuth, DownloadLinks, WebhookDeliveries } from "@octavo/core";
import type { DatabaseHandle } from "@octavo/db";
import type { JobProducer } from "@octavo/queue";
import type { Redis } from "ioredis";

/** What the dashboard's pages use; built once by the process that serves the API. */
export interface DashboardContext {
  /** Download links and the cookies' `Secure` flag follow the public URL. */
  publicUrl: string;
  /** Keys the CSRF tokens (a key derived from it, never the secret itself). */
  secretKey: string;
  /** Namespaces the sign-in throttle's Redis keys, like the queues'. */
  keyPrefix: string;
  logger: Logger;
  database: DatabaseHandle;
  accounts: AccountService;
  auth: CustomerAuth;
  deliveries: WebhookDeliveries;
  downloadLinks: DownloadLinks;
  producer: JobProducer;
  redis: Redis;
}

/** The signed-in customer of a request, behind `requireCustomer` (see session.ts). */
export interface Customer {
  accountId: string;
  email: string;
  plan: PlanId;
}

import { readFileSync } from "node:fs";
import { type Config, ConfigError, createLogger, type Logger } from "@octavo/config";
import {
  AccountService,
  CustomerAuth,
  type DownloadLinks,
  FileLinkSigner,
  Housekeeping,
  IdempotencyService,
  JobService,
  PresignedDownloadLinks,
  WebhookDeliveries,
} from "@octavo/core";
import { createDatabase, type DatabaseHandle, migrateToLatest } from "@octavo/db";
import { ServiceMetrics } from "@octavo/metrics";
import { type AllowList, parseAllowlist } from "@octavo/net";
import {
  createRedis,
  JobProducer,
  type SupervisedRedis,
  startRedisServer,
  waitUntilReady,
} from "@octavo/queue";
import { type BlobStore, createBlobStore } from "@octavo/storage";
import type { Redis } from "ioredis";

/** The shared resources of an octavo process, opened explicitly and closed in reverse order. */
export interface Runtime {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  store: BlobStore;
  accounts: AccountService;
  /** The dashboard's customers: passwords and sessions. */
  auth: CustomerAuth;
  links: FileLinkSigner;
  downloadLinks: DownloadLinks;
  idempotency: IdempotencyService;
  /** OCTAVO_URL_ALLOWLIST, parsed once. */
  allowlist: AllowList;
  close(): Promise<void>;
}

export interface QueueRuntime extends Runtime {
  redisUrl: string;
  producerConnection: Redis;
  producer: JobProducer;
  /** Jobs: accepted into the database and the queues, run and settled. */
  jobs: JobService;
  deliveries: WebhookDeliveries;
  housekeeping: Housekeeping;
  /** This process's Prometheus metrics, served at /metrics (OCTAVO_METRICS_PORT, a worker's health port). */
  metrics: ServiceMetrics;
}

/** The version of octavo's CLI package, for octavo_info. */
const VERSION: string = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;

function readAllowlist(config: Config): AllowList {
  try {
    return parseAllowlist(config.urlAllowlist);
  } catch (error) {
    throw new ConfigError("OCTAVO_URL_ALLOWLIST", error instanceof Error ? error.message : String(error));
  }
}

function downloadLinksFor(config: Config, store: BlobStore, links: FileLinkSigner): DownloadLinks {
  if (config.downloadLinks === "api") return links;
  const presign = store.presignGet?.bind(store);
  if (!presign) throw new ConfigError("OCTAVO_DOWNLOAD_LINKS", "this storage cannot presign links");
  return new PresignedDownloadLinks(presign, config.linkTtlSeconds);
}

export async function openRuntime(config: Config, role: string): Promise<Runtime> {
  const allowlist = readAllowlist(config);
  const store = createBlobStore(config.storageUrl, config.s3);
  const links = new FileLinkSigner(config.secretKey, config.publicUrl, config.linkTtlSeconds);
  const downloadLinks = downloadLinksFor(config, store, links);
  const logger = createLogger(config.logLevel, `octavo-${role}`);
  const database = createDatabase(config.databaseUrl, {
    onIdleClientError: (error) =>
      logger.warn({ err: error }, "an idle database connection was closed by the server"),
  });
  await migrateToLatest(database);
  const accounts = new AccountService(database, config.secretKey);
  return {
    config,
    logger,
    database,
    store,
    accounts,
    auth: new CustomerAuth(database, accounts),
    links,
    downloadLinks,
    idempotency: new IdempotencyService(database),
    allowlist,
    close: () => database.close(),
  };
}

/** Adds Redis: the one given by OCTAVO_REDIS_URL, or a redis-server octavo starts in the data dir. */
export async function openQueueRuntime(config: Config, role: string): Promise<QueueRuntime> {
  const base = await openRuntime(config, role);
  let supervised: SupervisedRedis | undefined;
  try {
    if (config.redisUrl === undefined)
      supervised = await startRedisServer({ dataDir: config.dataDir, logger: base.logger });
  } catch (error) {
    await base.close();
    throw error;
  }
  const redisUrl = config.redisUrl ?? supervised?.url ?? "";
  const producerConnection = createRedis(redisUrl, "producer");
  producerConnection.on("error", (error) => base.logger.warn({ err: error }, "redis connection error"));
  await waitUntilReady(producerConnection);
  const producer = new JobProducer(producerConnection, config.queuePrefix);
  return {
    ...base,
    redisUrl,
    producerConnection,
    producer,
    jobs: new JobService(base.database, producer),
    deliveries: new WebhookDeliveries(base.database),
    housekeeping: new Housekeeping(base.database),
    metrics: new ServiceMetrics({ role, version: VERSION }),
    async close() {
      await producer.close();
      producerConnection.disconnect();
      await supervised?.close();
      await base.close();
    },
  };
}

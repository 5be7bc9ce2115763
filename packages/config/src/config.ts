import { availableParallelism } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ensureSecretKey } from "./secret-key.js";

/** Every OCTAVO_* setting, validated once at start-up and passed down; nothing else reads process.env. */
export interface Config {
  dataDir: string;
  host: string;
  port: number;
  publicUrl: string;
  /** `sqlite:<path>` or `postgres://...` */
  databaseUrl: string;
  /** Undefined: octavo starts and supervises its own redis-server in the data dir. */
  redisUrl: string | undefined;
  /** `file://<dir>`, or `s3://bucket/prefix` for a fleet. */
  storageUrl: string;
  /** How an `s3://` store is reached; the credentials come from the AWS SDK's own provider chain. */
  s3: { endpointUrl?: string; region?: string; forcePathStyle: boolean };
  /**
   * `api`: download links are the API's signed `/v1/files/` URLs. `presigned`: presigned S3 GET URLs,
   * so downloads bypass the API nodes (needs an `s3://` store).
   */
  downloadLinks: "api" | "presigned";
  secretKey: string;
  workerConcurrency: number;
  jobTimeoutSeconds: number;
  /** The JavaScript heap cap of each sandbox process that parses files (MuPDF's memory has its own). */
  sandboxMemoryMb: number;
  linkTtlSeconds: number;
  resultTtlSeconds: number;
  /**
   * On SIGTERM a worker stops taking jobs and lets the running ones finish for this long; then it
   * stops their engines and hands them back to the queue (keep it below the orchestrator's kill delay).
   */
  shutdownGraceSeconds: number;
  /** How soon a job whose worker died is handed to another worker. */
  jobLockSeconds: number;
  /** Namespaces the BullMQ keys, so several installations (or test runs) can share one Redis. */
  queuePrefix: string;
  /**
   * Back-pressure, in time: an account whose own waiting jobs of an operation would take longer than
   * `accountBacklogSeconds` to run gets 429 for its next ones; a queue whose waiting jobs would take longer
   * than `queueBacklogSeconds` refuses everyone's with 503. Both carry a Retry-After from the estimate.
   */
  accountBacklogSeconds: number;
  queueBacklogSeconds: number;
  /** Hosts, host:port pairs or CIDRs that URL inputs and webhooks may reach although private. */
  urlAllowlist: string;
  /** Per-URL download deadline for URL inputs. */
  urlTimeoutSeconds: number;
  /** A request body from which nothing arrives for this long is cut off with 400, its upload removed. */
  requestIdleSeconds: number;
  logLevel: "debug" | "info" | "warn" | "error";
  /**
   * How many proxies (load balancer, ingress) stand in front of the API: the client address is read
   * from X-Forwarded-For that many hops back (Express's "trust proxy"). 0: the socket's address.
   */
  trustProxyHops: number;
  /** Where an `octavo worker` process answers /healthz, /readyz and /metrics; undefined: no HTTP server. */
  healthPort: number | undefined;
  /**
   * Where the API (and `octavo start`) serves Prometheus metrics at /metrics, apart from the public
   * listener; the API's own port puts /metrics on it, on purpose. Undefined: no metrics listener.
   */
  metricsPort: number | undefined;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function readUrl(env: Env, name: string, schemes: readonly string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `is not a URL: "${redactUrl(raw)}"`);
  }
  if (!schemes.includes(url.protocol)) {
    throw new ConfigError(name, `must start with ${schemes.map((s) => `${s}//`).join(" or ")}`);
  }
  return raw;
}

/** Hides the password of a connection URL, so a config error never prints a secret. */
export function redactUrl(raw: string): string {
  return raw.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}

function readDatabaseUrl(env: Env, dataDir: string): string {
  const raw = env.OCTAVO_DATABASE_URL;
  if (raw === undefined || raw === "") return `sqlite:${join(dataDir, "octavo.sqlite")}`;
  if (raw.startsWith("sqlite:")) {
    const path = raw.slice("sqlite:".length).replace(/^\/\//, "");
    if (path === "")
      throw new ConfigError(
        "OCTAVO_DATABASE_URL",
        "sqlite: needs a file path, e.g. sqlite:./data/octavo.sqlite",
      );
    return `sqlite:${resolve(path)}`;
  }
  readUrl(env, "OCTAVO_DATABASE_URL", ["postgres:", "postgresql:"]);
  return raw;
}

function readStorageUrl(env: Env, dataDir: string): string {
  const raw = readUrl(env, "OCTAVO_STORAGE_URL", ["file:", "s3:"]);
  if (raw === undefined) return pathToFileURL(join(dataDir, "storage")).href;
  if (raw.startsWith("s3:") && new URL(raw).hostname === "")
    throw new ConfigError("OCTAVO_STORAGE_URL", "s3:// needs a bucket, e.g. s3://octavo-files/prod");
  return raw;
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function readChoice<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(choices as readonly string[]).includes(raw))
    throw new ConfigError(name, `must be one of ${choices.join(", ")}, got "${raw}"`);
  return raw as T;
}

function readS3(env: Env, storageUrl: string): Pick<Config, "s3" | "downloadLinks"> {
  const endpointUrl = readUrl(env, "OCTAVO_S3_ENDPOINT_URL", ["http:", "https:"]);
  const region = env.OCTAVO_S3_REGION || undefined;
  const downloadLinks = readChoice(env, "OCTAVO_DOWNLOAD_LINKS", ["api", "presigned"] as const, "api");
  if (downloadLinks === "presigned" && !storageUrl.startsWith("s3:"))
    throw new ConfigError("OCTAVO_DOWNLOAD_LINKS", "presigned links need OCTAVO_STORAGE_URL=s3://…");
  return {
    s3: {
      ...(endpointUrl ? { endpointUrl } : {}),
      ...(region ? { region } : {}),
      forcePathStyle: readBoolean(env, "OCTAVO_S3_FORCE_PATH_STYLE", false),
    },
    downloadLinks,
  };
}

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const dataDirRaw = env.OCTAVO_DATA_DIR || "./data";
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw);
  const host = env.OCTAVO_HOST || "127.0.0.1";
  const port = readInteger(env, "OCTAVO_PORT", 8000, 0, 65535);
  const publicUrl = (
    readUrl(env, "OCTAVO_PUBLIC_URL", ["http:", "https:"]) ?? `http://${host}:${port}`
  ).replace(/\/+$/, "");
  const logLevel = env.OCTAVO_LOG_LEVEL || "info";
  if (!["debug", "info", "warn", "error"].includes(logLevel)) {
    throw new ConfigError("OCTAVO_LOG_LEVEL", `must be one of debug, info, warn, error, got "${logLevel}"`);
  }
  const queuePrefix = env.OCTAVO_QUEUE_PREFIX || "octavo";
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(queuePrefix)) {
    throw new ConfigError("OCTAVO_QUEUE_PREFIX", "must be 1-40 letters, digits, _ or -");
  }
  const secretKey = env.OCTAVO_SECRET_KEY || ensureSecretKey(dataDir);
  const storageUrl = readStorageUrl(env, dataDir);
  const healthPort = env.OCTAVO_HEALTH_PORT ? readInteger(env, "OCTAVO_HEALTH_PORT", 0, 0, 65535) : undefined;
  const metricsPort = env.OCTAVO_METRICS_PORT
    ? readInteger(env, "OCTAVO_METRICS_PORT", 0, 0, 65535)
    : undefined;
  if (secretKey.length < 32) throw new ConfigError("OCTAVO_SECRET_KEY", "must be at least 32 characters");

  return {
    dataDir,
    host,
    port,
    publicUrl,
    databaseUrl: readDatabaseUrl(env, dataDir),
    redisUrl: readUrl(env, "OCTAVO_REDIS_URL", ["redis:", "rediss:", "unix:"]),
    storageUrl,
    ...readS3(env, storageUrl),
    secretKey,
    workerConcurrency: readInteger(env, "OCTAVO_WORKER_CONCURRENCY", availableParallelism(), 1, 256),
    jobTimeoutSeconds: readInteger(env, "OCTAVO_JOB_TIMEOUT_SECONDS", 300, 1, 86_400),
    sandboxMemoryMb: readInteger(env, "OCTAVO_SANDBOX_MEMORY_MB", 2048, 128, 65_536),
    linkTtlSeconds: readInteger(env, "OCTAVO_LINK_TTL_SECONDS", 900, 1, 604_800),
    resultTtlSeconds: readInteger(env, "OCTAVO_RESULT_TTL_SECONDS", 3600, 1, 2_592_000),
    jobLockSeconds: readInteger(env, "OCTAVO_JOB_LOCK_SECONDS", 30, 2, 3600),
    shutdownGraceSeconds: readInteger(env, "OCTAVO_SHUTDOWN_GRACE_SECONDS", 25, 0, 86_400),
    queuePrefix,
    accountBacklogSeconds: readInteger(env, "OCTAVO_ACCOUNT_MAX_BACKLOG_SECONDS", 300, 1, 86_400),
    queueBacklogSeconds: readInteger(env, "OCTAVO_QUEUE_MAX_BACKLOG_SECONDS", 900, 1, 86_400),
    urlAllowlist: env.OCTAVO_URL_ALLOWLIST ?? "",
    urlTimeoutSeconds: readInteger(env, "OCTAVO_URL_TIMEOUT_SECONDS", 30, 1, 600),
    requestIdleSeconds: readInteger(env, "OCTAVO_REQUEST_IDLE_SECONDS", 60, 1, 3600),
    logLevel: logLevel as Config["logLevel"],
    trustProxyHops: readInteger(env, "OCTAVO_TRUST_PROXY_HOPS", 0, 0, 10),
    healthPort,
    metricsPort,
  };
}

/** OCTAVO_* variables that are set but unknown: most likely a typo, which must not pass silently. */
export function unknownSettings(env: Env = process.env): string[] {
  const known = new Set([
    "OCTAVO_DATA_DIR",
    "OCTAVO_HOST",
    "OCTAVO_PORT",
    "OCTAVO_PUBLIC_URL",
    "OCTAVO_DATABASE_URL",
    "OCTAVO_REDIS_URL",
    "OCTAVO_STORAGE_URL",
    "OCTAVO_S3_ENDPOINT_URL",
    "OCTAVO_S3_REGION",
    "OCTAVO_S3_FORCE_PATH_STYLE",
    "OCTAVO_DOWNLOAD_LINKS",
    "OCTAVO_HEALTH_PORT",
    "OCTAVO_METRICS_PORT",
    "OCTAVO_TRUST_PROXY_HOPS",
    "OCTAVO_SECRET_KEY",
    "OCTAVO_WORKER_CONCURRENCY",
    "OCTAVO_JOB_TIMEOUT_SECONDS",
    "OCTAVO_SANDBOX_MEMORY_MB",
    "OCTAVO_LINK_TTL_SECONDS",
    "OCTAVO_RESULT_TTL_SECONDS",
    "OCTAVO_JOB_LOCK_SECONDS",
    "OCTAVO_SHUTDOWN_GRACE_SECONDS",
    "OCTAVO_QUEUE_PREFIX",
    "OCTAVO_ACCOUNT_MAX_BACKLOG_SECONDS",
    "OCTAVO_QUEUE_MAX_BACKLOG_SECONDS",
    "OCTAVO_URL_ALLOWLIST",
    "OCTAVO_URL_TIMEOUT_SECONDS",
    "OCTAVO_REQUEST_IDLE_SECONDS",
    "OCTAVO_LOG_LEVEL",
    "OCTAVO_NODE",
  ]);
  return Object.keys(env).filter((name) => name.startsWith("OCTAVO_") && !known.has(name));
}

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
  /** `file://<dir>` (S3 arrives with the scale-out work). */
  storageUrl: string;
  secretKey: string;
  workerConcurrency: number;
  jobTimeoutSeconds: number;
  linkTtlSeconds: number;
  resultTtlSeconds: number;
  /** How soon a job whose worker died is handed to another worker. */
  jobLockSeconds: number;
  /** Namespaces the BullMQ keys, so several installations (or test runs) can share one Redis. */
  queuePrefix: string;
  /** Waiting jobs per queue above which new jobs are refused with 503 (back-pressure). */
  queueMaxWaiting: number;
  /** Hosts, host:port pairs or CIDRs that URL inputs and webhooks may reach although private. */
  urlAllowlist: string;
  /** Per-URL download deadline for URL inputs. */
  urlTimeoutSeconds: number;
  logLevel: "debug" | "info" | "warn" | "error";
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
  const raw = readUrl(env, "OCTAVO_STORAGE_URL", ["file:"]);
  if (raw === undefined) return pathToFileURL(join(dataDir, "storage")).href;
  return raw;
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
  if (secretKey.length < 32) throw new ConfigError("OCTAVO_SECRET_KEY", "must be at least 32 characters");

  return {
    dataDir,
    host,
    port,
    publicUrl,
    databaseUrl: readDatabaseUrl(env, dataDir),
    redisUrl: readUrl(env, "OCTAVO_REDIS_URL", ["redis:", "rediss:", "unix:"]),
    storageUrl: readStorageUrl(env, dataDir),
    secretKey,
    workerConcurrency: readInteger(env, "OCTAVO_WORKER_CONCURRENCY", availableParallelism(), 1, 256),
    jobTimeoutSeconds: readInteger(env, "OCTAVO_JOB_TIMEOUT_SECONDS", 300, 1, 86_400),
    linkTtlSeconds: readInteger(env, "OCTAVO_LINK_TTL_SECONDS", 900, 1, 604_800),
    resultTtlSeconds: readInteger(env, "OCTAVO_RESULT_TTL_SECONDS", 3600, 1, 2_592_000),
    jobLockSeconds: readInteger(env, "OCTAVO_JOB_LOCK_SECONDS", 30, 2, 3600),
    queuePrefix,
    queueMaxWaiting: readInteger(env, "OCTAVO_QUEUE_MAX_WAITING", 10_000, 1, 10_000_000),
    urlAllowlist: env.OCTAVO_URL_ALLOWLIST ?? "",
    urlTimeoutSeconds: readInteger(env, "OCTAVO_URL_TIMEOUT_SECONDS", 30, 1, 600),
    logLevel: logLevel as Config["logLevel"],
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
    "OCTAVO_SECRET_KEY",
    "OCTAVO_WORKER_CONCURRENCY",
    "OCTAVO_JOB_TIMEOUT_SECONDS",
    "OCTAVO_LINK_TTL_SECONDS",
    "OCTAVO_RESULT_TTL_SECONDS",
    "OCTAVO_JOB_LOCK_SECONDS",
    "OCTAVO_QUEUE_PREFIX",
    "OCTAVO_QUEUE_MAX_WAITING",
    "OCTAVO_URL_ALLOWLIST",
    "OCTAVO_URL_TIMEOUT_SECONDS",
    "OCTAVO_LOG_LEVEL",
    "OCTAVO_NODE",
  ]);
  return Object.keys(env).filter((name) => name.startsWith("OCTAVO_") && !known.has(name));
}

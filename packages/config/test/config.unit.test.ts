import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, redactUrl, unknownSettings } from "../src/index.js";

const dataDir = () => mkdtempSync(join(tmpdir(), "octavo-config-"));

describe("loadConfig", () => {
  it("applies the single-machine defaults and keeps a generated secret key", () => {
    const dir = dataDir();
    const config = loadConfig({ OCTAVO_DATA_DIR: dir });
    expect(config).toMatchObject({
      dataDir: dir,
      host: "127.0.0.1",
      port: 8000,
      publicUrl: "http://127.0.0.1:8000",
      databaseUrl: `sqlite:${join(dir, "octavo.sqlite")}`,
      redisUrl: undefined,
      storageUrl: `file://${join(dir, "storage")}`,
      jobTimeoutSeconds: 300,
      sandboxMemoryMb: 2048,
      linkTtlSeconds: 900,
      resultTtlSeconds: 3600,
    });
    expect(config.secretKey.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, "secret.key")).mode & 0o777).toBe(0o600);
    // The same key on the next start: links and sealed secrets survive restarts.
    expect(loadConfig({ OCTAVO_DATA_DIR: dir }).secretKey).toBe(config.secretKey);
    expect(readFileSync(join(dir, "secret.key"), "utf8").trim()).toBe(config.secretKey);
  });

  it("names the setting that is wrong", () => {
    const dir = dataDir();
    const attempt = (env: Record<string, string>) => () => loadConfig({ OCTAVO_DATA_DIR: dir, ...env });
    expect(attempt({ OCTAVO_PORT: "eighty" })).toThrow(/OCTAVO_PORT: must be a whole number/);
    expect(attempt({ OCTAVO_PORT: "70000" })).toThrow(/OCTAVO_PORT: must be between 0 and 65535/);
    expect(attempt({ OCTAVO_DATABASE_URL: "mysql://x" })).toThrow(/OCTAVO_DATABASE_URL/);
    expect(attempt({ OCTAVO_REDIS_URL: "http://x" })).toThrow(/OCTAVO_REDIS_URL: must start with redis:/);
    expect(attempt({ OCTAVO_SECRET_KEY: "short" })).toThrow(ConfigError);
    expect(attempt({ OCTAVO_LOG_LEVEL: "loud" })).toThrow(/OCTAVO_LOG_LEVEL/);
    expect(attempt({ OCTAVO_SANDBOX_MEMORY_MB: "64" })).toThrow(
      /OCTAVO_SANDBOX_MEMORY_MB: must be between 128/,
    );
  });

  it("reads the fleet's S3 storage, download-link and health-port settings", () => {
    const dir = dataDir();
    expect(loadConfig({ OCTAVO_DATA_DIR: dir })).toMatchObject({
      s3: { forcePathStyle: false },
      downloadLinks: "api",
      healthPort: undefined,
    });
    const fleet = loadConfig({
      OCTAVO_DATA_DIR: dir,
      OCTAVO_STORAGE_URL: "s3://octavo-files/prod",
      OCTAVO_S3_ENDPOINT_URL: "http://minio:9000",
      OCTAVO_S3_REGION: "eu-west-1",
      OCTAVO_S3_FORCE_PATH_STYLE: "true",
      OCTAVO_DOWNLOAD_LINKS: "presigned",
      OCTAVO_HEALTH_PORT: "8081",
      OCTAVO_TRUST_PROXY_HOPS: "1",
    });
    expect(fleet).toMatchObject({
      storageUrl: "s3://octavo-files/prod",
      s3: { endpointUrl: "http://minio:9000", region: "eu-west-1", forcePathStyle: true },
      downloadLinks: "presigned",
      healthPort: 8081,
      trustProxyHops: 1,
    });
    const attempt = (env: Record<string, string>) => () => loadConfig({ OCTAVO_DATA_DIR: dir, ...env });
    expect(attempt({ OCTAVO_STORAGE_URL: "s3:///prefix" })).toThrow(
      /OCTAVO_STORAGE_URL: s3:\/\/ needs a bucket/,
    );
    expect(attempt({ OCTAVO_STORAGE_URL: "gs://bucket" })).toThrow(
      /OCTAVO_STORAGE_URL: must start with file:/,
    );
    expect(attempt({ OCTAVO_S3_FORCE_PATH_STYLE: "yes" })).toThrow(
      /OCTAVO_S3_FORCE_PATH_STYLE: must be true or false/,
    );
    expect(attempt({ OCTAVO_DOWNLOAD_LINKS: "presigned" })).toThrow(
      /OCTAVO_DOWNLOAD_LINKS: presigned links need/,
    );
    expect(attempt({ OCTAVO_HEALTH_PORT: "http" })).toThrow(/OCTAVO_HEALTH_PORT/);
  });

  it("never prints a password from a connection URL", () => {
    expect(redactUrl("postgres://octavo:hunter2@db:5432/octavo")).toBe(
      "postgres://octavo:***@db:5432/octavo",
    );
    try {
      loadConfig({ OCTAVO_DATA_DIR: dataDir(), OCTAVO_DATABASE_URL: "postgres://u:hunter2@[bad" });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain("hunter2");
    }
  });

  it("flags unknown OCTAVO_ variables as likely typos", () => {
    expect(unknownSettings({ OCTAVO_PORT: "1", OCTAVO_RESULTS_TTL: "5", PATH: "/bin" })).toEqual([
      "OCTAVO_RESULTS_TTL",
    ]);
  });
});

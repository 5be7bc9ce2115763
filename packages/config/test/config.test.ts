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

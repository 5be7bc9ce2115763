import { join } from "node:path";
import {
  catalogue,
  isOperationId,
  type OperationId,
  type OperationSpec,
  operations,
} from "@octavo/contracts";
import { DockerfileParser, type From } from "dockerfile-ast";
import { validate as lintDockerfile } from "dockerfile-utils";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT, read, roles, run } from "./support.js";

/**
 * `npm run test:fleet` builds and runs the whole fleet, which takes a Docker daemon and about half an
 * hour; `npm test` checks its files here in seconds, so a broken one shows before anybody runs it.
 */

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string | null>;
}
const render = (...files: string[]) => {
  const args = files.flatMap((file) => ["-f", file]);
  const rendered = run("docker-compose", [...args, "config"]);
  if (rendered.error)
    throw new Error(`docker-compose is missing (npm run setup installs it): ${rendered.error.message}`);
  expect(rendered.stderr.trim(), "docker-compose config").toBe("");
  return (parse(rendered.stdout) as { services: Record<string, Service> }).services;
};

describe("the fleet test (infra/fleet)", () => {
  it("swaps only the backing services for images built here; every octavo service runs as docker-compose.yml has it", () => {
    const users = render("docker-compose.yml");
    const fleet = render("docker-compose.yml", "infra/fleet/compose.test.yml");
    expect(Object.keys(fleet).sort()).toEqual([...Object.keys(users), "webhook-receiver"].sort());
    const standIns = { postgres: "postgres", redis: "redis", minio: "s3", "minio-init": "s3", lb: "proxy" };
    for (const [service, target] of Object.entries(standIns))
      expect(fleet[service]?.image, service).toBe(`octavo-fleet-${target}:local`);
    // What the test changes: webhooks may reach its receiver (a private address, so allowlisted), and a
    // stopped worker-pdf hands its job back at once instead of waiting out the 25 s drain.
    const changed: Record<string, Record<string, string>> = {
      api: { OCTAVO_URL_ALLOWLIST: "webhook-receiver:8099" },
      "worker-webhooks": { OCTAVO_URL_ALLOWLIST: "webhook-receiver:8099" },
      "worker-pdf": { OCTAVO_SHUTDOWN_GRACE_SECONDS: "0" },
    };
    for (const service of ["migrate", ...roles]) {
      const { environment: ours = {}, ...rest } = fleet[service] ?? {};
      const { environment: theirs = {}, ...usersRest } = users[service] ?? {};
      expect(rest, service).toEqual(usersRest);
      expect(ours, service).toEqual({ ...theirs, ...changed[service] });
    }
  });

  it("builds its stand-ins from one Dockerfile with a target each, from a base given as an argument", () => {
    const text = read("infra/fleet/services.Dockerfile");
    expect(lintDockerfile(text).map((problem) => problem.message)).toEqual([]);
    const stages = DockerfileParser.parse(text)
      .getFROMs()
      .map((from: From) => [from.getImageName(), from.getBuildStage()]);
    expect(stages).toEqual(
      ["postgres", "redis", "s3", "proxy"].map((stage) => [
        expect.stringMatching(/^\$\{?BASE_IMAGE\}?$/),
        stage,
      ]),
    );
    expect(text).toMatch(/^ARG BASE_IMAGE=debian:bookworm-slim$/m);
  });

  it("is a script npm runs, which node parses", () => {
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    expect(scripts["test:fleet"]).toBe("node infra/fleet/test-fleet.mjs");
    expect(scripts["test:chaos"]).toBe("node infra/fleet/test-chaos.mjs");
    const scriptFiles = [
      "test-fleet.mjs",
      "test-chaos.mjs",
      "fleet.mjs",
      "chaos/receiver.mjs",
      "chaos/traffic.mjs",
    ];
    for (const file of scriptFiles) {
      const checked = run(process.execPath, ["--check", `infra/fleet/${file}`]);
      expect(checked.stderr, file).toBe("");
      expect(checked.status, file).toBe(0);
    }
  });

  it("runs the chaos fleet as the fleet test's, with a receiver it can break and production's drain", () => {
    const fleet = render("docker-compose.yml", "infra/fleet/compose.test.yml");
    const chaos = render(
      "docker-compose.yml",
      "infra/fleet/compose.test.yml",
      "infra/fleet/chaos/compose.chaos.yml",
    );
    expect(Object.keys(chaos).sort()).toEqual(Object.keys(fleet).sort());
    expect(chaos["webhook-receiver"]?.command ?? []).toEqual([]);
    // The default drain (OCTAVO_SHUTDOWN_GRACE_SECONDS, 25 s), written out over compose.test.yml's 0.
    expect(chaos["worker-pdf"]?.environment).toEqual({
      ...fleet["worker-pdf"]?.environment,
      OCTAVO_SHUTDOWN_GRACE_SECONDS: "25",
    });
    for (const service of [
      "migrate",
      "api",
      "worker-office",
      "worker-heavy",
      "worker-webhooks",
      "worker-pipeline",
    ])
      expect(chaos[service], service).toEqual(fleet[service]);
  });

  it("has a job of every operation of the catalogue, without Docker to find one missing", async () => {
    const { jobOf, operationJobs } = (await import(join(ROOT, "infra/fleet/operation-jobs.mjs"))) as {
      jobOf: (spec: OperationSpec) => [string[], ...unknown[]] | undefined;
      operationJobs: Record<string, unknown>;
    };
    const without = operations.filter((spec) => jobOf(spec) === undefined).map((spec) => spec.id);
    expect(without).toEqual([]);
    expect(Object.keys(operationJobs).filter((id) => !isOperationId(id))).toEqual([]);
    // The sample PDF without options is the job of an operation that takes one and requires none.
    expect(jobOf({ ...catalogue.repair, id: "repair-like" as OperationId })).toEqual([
      [join(ROOT, "examples", "sample-a.pdf")],
    ]);
    expect(jobOf({ ...catalogue.watermark, id: "watermark-like" as OperationId })).toBeUndefined();
    expect(jobOf({ ...catalogue["word-to-pdf"], id: "word-like" as OperationId })).toBeUndefined();
  });

  it("builds the image of every role, which `up --no-build` then needs", () => {
    const script = read("infra/fleet/fleet.mjs");
    const listed = /^export const ROLES = \[([^\]]*)\];$/m.exec(script)?.[1] ?? "";
    const names = [...listed.matchAll(/"([^"]+)"/g)].map((match) => match[1]);
    expect(names.sort()).toEqual([...roles].sort());
  });
});

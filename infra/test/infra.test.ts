import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { unknownSettings } from "@octavo/config";
import { operationIds } from "@octavo/contracts";
import { DockerfileParser, type From, type Instruction } from "dockerfile-ast";
import { validate as lintDockerfile, ValidationSeverity } from "dockerfile-utils";
import { validate as validateDeploymentSchema } from "kubernetes-models/_schemas/IoK8sApiAppsV1Deployment";
import { validate as validateHpaSchema } from "kubernetes-models/_schemas/IoK8sApiAutoscalingV2HorizontalPodAutoscaler";
import { validate as validateJobSchema } from "kubernetes-models/_schemas/IoK8sApiBatchV1Job";
import { validate as validateConfigMapSchema } from "kubernetes-models/_schemas/IoK8sApiCoreV1ConfigMap";
import { validate as validateNamespaceSchema } from "kubernetes-models/_schemas/IoK8sApiCoreV1Namespace";
import { validate as validateSecretSchema } from "kubernetes-models/_schemas/IoK8sApiCoreV1Secret";
import { validate as validateServiceSchema } from "kubernetes-models/_schemas/IoK8sApiCoreV1Service";
import { validate as validatePdbSchema } from "kubernetes-models/_schemas/IoK8sApiPolicyV1PodDisruptionBudget";
import { Deployment, type IDeployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler, type IHorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { type IJob, Job } from "kubernetes-models/batch/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, type IContainer, type IPodSpec, Namespace, Secret, Service } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The queue classes as the code defines them: which queues each consumes, which Debian packages its engines run. */
const classes = {
  "worker-pdf": {
    queues: ["merge", "split", "rotate", "protect", "unlock", "repair"],
    // qpdf everywhere; Ghostscript is repair's last pass; pdfinfo (poppler) checks repaired files.
    debian: ["qpdf", "ghostscript", "poppler-utils"],
  },
  "worker-office": {
    queues: ["word-to-pdf", "powerpoint-to-pdf", "excel-to-pdf", "html-to-pdf"],
    debian: [
      "libreoffice-core",
      "libreoffice-writer",
      "libreoffice-calc",
      "libreoffice-impress",
      "python3-uno",
      "chromium",
    ],
  },
  "worker-heavy": {
    queues: ["ocr", "compress", "pdf-to-pdfa", "pdf-to-word", "pdf-to-powerpoint", "pdf-to-excel"],
    // pdftotext (poppler) is PDF/A's text check; qpdf counts OCR pages and does compress's lossless pass.
    debian: ["ocrmypdf", "tesseract-ocr", "ghostscript", "qpdf", "poppler-utils", "icc-profiles-free"],
  },
  "worker-webhooks": { queues: ["webhooks"], debian: [] },
} as const;
type WorkerClass = keyof typeof classes;
const workerClasses = Object.keys(classes) as WorkerClass[];
const roles = ["api", ...workerClasses];

/** `--queues ocr=1,compress=2` → the names and the per-queue counts. */
function queueSpec(args: readonly string[]): { names: string[]; counts: number[] } {
  const value = args[args.indexOf("--queues") + 1] ?? "";
  const entries = value.split(",").map((entry) => entry.split("="));
  return {
    names: entries.map(([name]) => name ?? ""),
    counts: entries.flatMap(([name, count]) =>
      count === undefined || name === "webhooks" ? [] : [Number(count)],
    ),
  };
}

/** Debian packages of scripts/debian-packages.mjs, the project's list of what its engines need. */
function projectDebianPackages(): Set<string> {
  return new Set(
    [...read("scripts/debian-packages.mjs").matchAll(/^\s*"([^"]+)",/gm)].map((match) => match[1] ?? ""),
  );
}

/** Runs a tool with a bare environment, so the machine's variables (SECRET_KEY, HTTP_PORT…) cannot change what compose renders. */
function run(command: string, args: string[]) {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    LANG: "C.UTF-8",
  };
  return spawnSync(command, args, { cwd: ROOT, env, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
}

describe("every queue has exactly one worker class", () => {
  it("covers the contract's operations and the webhook deliveries, each once", () => {
    const assigned = workerClasses.flatMap((name) => classes[name].queues);
    expect([...assigned].sort()).toEqual([...operationIds, "webhooks"].sort());
    expect(new Set(assigned).size).toBe(assigned.length);
  });
});

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
    expect(Object.keys(services).sort()).toEqual(
      ["api", "lb", "migrate", "minio", "minio-init", "postgres", "redis", ...workerClasses].sort(),
    );
    for (const role of roles) expect(services[role]?.build?.target, role).toBe(role);
    expect(services.migrate?.command).toEqual(["node", "apps/cli/bin/octavo.mjs", "migrate"]);
    expect(services.migrate?.restart).toBe("no");
    expect(services["minio-init"]?.restart).toBe("no");
    // BullMQ needs every key kept: append-only persistence and no eviction.
    expect(services.redis?.command?.join(" ")).toMatch(/--appendonly yes.*--maxmemory-policy noeviction/);
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

  it("gives each worker class its queues, probes on the health port and a drain period", () => {
    const { services } = config();
    for (const name of workerClasses) {
      const service = services[name];
      const spec = queueSpec(service?.command ?? []);
      expect(spec.names, name).toEqual(classes[name].queues);
      const concurrency = Number(service?.environment?.OCTAVO_WORKER_CONCURRENCY);
      for (const count of spec.counts) expect(count, name).toBeLessThanOrEqual(concurrency);
      expect(service?.environment?.OCTAVO_HEALTH_PORT, name).toBe("8081");
      expect(service?.healthcheck?.test?.join(" "), name).toContain("http://127.0.0.1:8081/healthz");
      // Above the 25 s drain (OCTAVO_SHUTDOWN_GRACE_SECONDS) plus closing connections.
      expect(seconds(service?.stop_grace_period), name).toBeGreaterThanOrEqual(45);
    }
    expect(services.api?.healthcheck?.test?.join(" ")).toContain("http://127.0.0.1:8000/healthz");
    expect(seconds(services.api?.stop_grace_period)).toBeGreaterThanOrEqual(60);
    // LibreOffice's network namespace and Chromium's sandbox need user namespaces; Chromium needs /dev/shm.
    expect(services["worker-office"]?.security_opt).toContain("seccomp=unconfined");
    expect(services["worker-office"]?.shm_size).toBeDefined();
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

// ---------------------------------------------------------------------------------------------
// (b) Kubernetes: the kustomization, rendered by kubectl, validated against the OpenAPI schemas.

type Validator = (data: unknown) => boolean;
type ModelClass = new (data: never) => { validate(): void };
const models: Record<string, { model: ModelClass; schema: Validator }> = {
  "v1/Namespace": { model: Namespace, schema: validateNamespaceSchema },
  "v1/ConfigMap": { model: ConfigMap, schema: validateConfigMapSchema },
  "v1/Secret": { model: Secret, schema: validateSecretSchema },
  "v1/Service": { model: Service, schema: validateServiceSchema },
  "apps/v1/Deployment": { model: Deployment, schema: validateDeploymentSchema },
  "batch/v1/Job": { model: Job, schema: validateJobSchema },
  "autoscaling/v2/HorizontalPodAutoscaler": { model: HorizontalPodAutoscaler, schema: validateHpaSchema },
  "policy/v1/PodDisruptionBudget": { model: PodDisruptionBudget, schema: validatePdbSchema },
};

/**
 * Fields the schema does not define, like `kubectl --validate=strict` reports them. The compiled
 * schemas accept unknown properties, so the validator runs over a proxy that records every property
 * it reads: whatever it never looked at is not in the schema (a misspelt `readinesProbe`, say).
 */
function unknownFields(value: unknown, schema: Validator): string[] {
  const read = new WeakMap<object, Set<string>>();
  const track = (target: unknown): unknown => {
    if (target === null || typeof target !== "object") return target;
    return new Proxy(target, {
      get(object, key, receiver) {
        if (typeof key === "string") {
          const keys = read.get(object) ?? new Set<string>();
          keys.add(key);
          read.set(object, keys);
        }
        return track(Reflect.get(object, key, receiver));
      },
    });
  };
  schema(track(value));
  const unknown: string[] = [];
  const walk = (node: unknown, path: string) => {
    if (node === null || typeof node !== "object") return;
    const seen = read.get(node) ?? new Set<string>();
    for (const [key, child] of Object.entries(node)) {
      if (!Array.isArray(node) && !seen.has(key)) unknown.push(`${path}/${key}`);
      else walk(child, `${path}/${key}`);
    }
  };
  walk(value, "");
  return unknown;
}

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
}

/** Validates one object against its kind's schema (types, enums, required fields) and for unknown fields. */
function validateObject(object: KubeObject): void {
  const known = models[`${object.apiVersion}/${object.kind}`];
  if (known === undefined) throw new Error(`no schema for ${object.apiVersion} ${object.kind} in this test`);
  const where = `${object.kind} ${object.metadata.name}`;
  expect(() => new known.model(object as never).validate(), where).not.toThrow();
  expect(unknownFields(object, known.schema), where).toEqual([]);
}

const kubectl = run("kubectl", ["version", "--client"]);
const kubectlMissing = kubectl.error !== undefined;

// kubectl is not a Debian package (it comes from Kubernetes' own repositories or a cloud SDK), so
// the project's set-up cannot install it; without it the kustomization cannot be rendered.
const k8sTitle = kubectlMissing
  ? "infra/k8s: skipped because kubectl, which renders the kustomization, is not installed (not a Debian package)"
  : "infra/k8s";
describe.skipIf(kubectlMissing)(k8sTitle, () => {
  let rendered: string | undefined;
  const render = (): KubeObject[] => {
    if (rendered === undefined) {
      const result = run("kubectl", ["kustomize", "infra/k8s"]);
      expect(result.stderr.trim(), "kubectl kustomize").toBe("");
      expect(result.status).toBe(0);
      rendered = result.stdout;
    }
    return parseAllDocuments(rendered).map((document) => document.toJS() as KubeObject);
  };
  const deployments = (objects: KubeObject[]) =>
    objects.filter((object): object is KubeObject & IDeployment => object.kind === "Deployment");
  const podSpec = (deployment: IDeployment | IJob): IPodSpec => {
    const spec = deployment.spec?.template.spec;
    if (spec === undefined) throw new Error(`${deployment.metadata?.name} has no pod spec`);
    return spec;
  };
  const container = (deployment: IDeployment | IJob): IContainer => {
    const [first] = podSpec(deployment).containers;
    if (first === undefined) throw new Error(`${deployment.metadata?.name} has no container`);
    return first;
  };

  it("renders objects that all pass the Kubernetes OpenAPI schemas, unknown fields included", () => {
    const objects = render();
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`).sort()).toEqual(
      [
        "ConfigMap/octavo-config",
        "Deployment/api",
        "Deployment/worker-heavy",
        "Deployment/worker-office",
        "Deployment/worker-pdf",
        "Deployment/worker-webhooks",
        "HorizontalPodAutoscaler/worker-heavy",
        "Job/migrate",
        "Namespace/octavo",
        "PodDisruptionBudget/api",
        "Service/api",
      ].map((name) =>
        name.startsWith("ConfigMap/") ? expect.stringMatching(/^ConfigMap\/octavo-config-\w+$/) : name,
      ),
    );
    for (const object of objects) validateObject(object);
    validateObject(parse(read("infra/k8s/secret.example.yaml")) as KubeObject);
  });

  it("catches a misspelt field (the check above can fail)", () => {
    const api = deployments(render()).find((deployment) => deployment.metadata.name === "api");
    const broken = structuredClone(api) as unknown as { spec: { replicass?: number } };
    broken.spec.replicass = 2;
    expect(unknownFields(broken, validateDeploymentSchema)).toEqual(["/spec/replicass"]);
  });

  it("gives every Deployment probes, resources, a non-root user and the shared settings", () => {
    const objects = render();
    const configMap = objects.find((object) => object.kind === "ConfigMap")?.metadata.name;
    const secret = (parse(read("infra/k8s/secret.example.yaml")) as KubeObject).metadata.name;
    const found = deployments(objects);
    expect(found.map((deployment) => deployment.metadata.name).sort()).toEqual([...roles].sort());
    for (const deployment of found) {
      const name = deployment.metadata.name;
      const pod = podSpec(deployment);
      const main = container(deployment);
      const port = name === "api" ? 8000 : 8081;
      const portName = main.ports?.find((entry) => entry.containerPort === port)?.name;
      expect(portName, name).toBeDefined();
      expect(main.readinessProbe?.httpGet, name).toMatchObject({ path: "/readyz", port: portName });
      expect(main.livenessProbe?.httpGet, name).toMatchObject({ path: "/healthz", port: portName });
      for (const kind of ["requests", "limits"] as const)
        for (const resource of ["cpu", "memory"])
          expect(main.resources?.[kind]?.[resource], `${name} ${kind}.${resource}`).toBeDefined();
      // `args`, not `command`: the image's ENTRYPOINT (tini) stays PID 1 and forwards SIGTERM.
      expect(main.command, name).toBeUndefined();
      expect(pod.securityContext?.runAsNonRoot, name).toBe(true);
      expect(pod.securityContext?.runAsUser, name).toBe(10001);
      expect(main.securityContext?.allowPrivilegeEscalation, name).toBe(false);
      // Service links would add OCTAVO_<SERVICE>_PORT variables, which octavo refuses at start-up.
      expect(pod.enableServiceLinks, name).toBe(false);
      expect(pod.terminationGracePeriodSeconds ?? 30, name).toBeGreaterThanOrEqual(45);
      expect(
        main.envFrom?.map((source) => source.configMapRef?.name ?? source.secretRef?.name),
        name,
      ).toEqual([configMap, secret]);
      expect(
        unknownSettings(
          Object.fromEntries((main.env ?? []).map((variable) => [variable.name, variable.value])),
        ),
      ).toEqual([]);
    }
  });

  it("runs each worker class on its queues with requests that fit it", () => {
    const found = deployments(render());
    const byName = new Map(found.map((deployment) => [deployment.metadata.name, deployment]));
    const quantity = (value: string | number | undefined) => {
      const text = String(value ?? "0");
      const units: Record<string, number> = { m: 1e-3, Mi: 2 ** 20, Gi: 2 ** 30 };
      const [, amount = "0", unit = ""] = /^([\d.]+)(\w*)$/.exec(text) ?? [];
      return Number(amount) * (units[unit] ?? 1);
    };
    for (const name of workerClasses) {
      const main = container(byName.get(name) as IDeployment);
      const spec = queueSpec(main.args ?? []);
      expect(spec.names, name).toEqual(classes[name].queues);
      const env = Object.fromEntries((main.env ?? []).map((variable) => [variable.name, variable.value]));
      expect(env.OCTAVO_HEALTH_PORT, name).toBe("8081");
      for (const count of spec.counts)
        expect(count, name).toBeLessThanOrEqual(Number(env.OCTAVO_WORKER_CONCURRENCY));
    }
    const requests = (name: string) => container(byName.get(name) as IDeployment).resources?.requests ?? {};
    // heavy is CPU-bound (an OCR job uses every core it has); office holds LibreOffice instances in memory.
    expect(quantity(requests("worker-heavy").cpu)).toBeGreaterThanOrEqual(2);
    expect(quantity(requests("worker-office").memory)).toBeGreaterThanOrEqual(2 * 2 ** 30);
    for (const small of ["worker-pdf", "worker-webhooks", "api"])
      expect(quantity(requests(small).memory), small).toBeLessThan(
        quantity(requests("worker-office").memory),
      );
  });

  it("autoscales the heavy class on CPU, and the settings are all known to octavo", () => {
    const objects = render();
    const hpa = objects.find((object) => object.kind === "HorizontalPodAutoscaler") as KubeObject &
      IHorizontalPodAutoscaler;
    expect(hpa.spec?.scaleTargetRef).toMatchObject({ kind: "Deployment", name: "worker-heavy" });
    expect(hpa.spec?.metrics?.[0]?.resource?.name).toBe("cpu");
    // The HPA owns the replica count; a fixed one would be reset on every apply.
    const heavy = deployments(objects).find((deployment) => deployment.metadata.name === "worker-heavy");
    expect(heavy?.spec?.replicas).toBeUndefined();

    const configMap = objects.find((object) => object.kind === "ConfigMap") as KubeObject & {
      data: Record<string, string>;
    };
    const secret = parse(read("infra/k8s/secret.example.yaml")) as { stringData: Record<string, string> };
    expect(unknownSettings({ ...configMap.data, ...secret.stringData })).toEqual([]);
    expect(Object.keys(secret.stringData).sort()).toEqual(
      [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "OCTAVO_DATABASE_URL",
        "OCTAVO_REDIS_URL",
        "OCTAVO_SECRET_KEY",
      ].sort(),
    );
    // Placeholders that cannot start a real deployment: the key is shorter than octavo accepts.
    expect(secret.stringData.OCTAVO_SECRET_KEY?.length).toBeLessThan(32);

    const job = objects.find((object) => object.kind === "Job") as KubeObject & IJob;
    expect(container(job).args).toEqual(["node", "apps/cli/bin/octavo.mjs", "migrate"]);
  });
});

// ---------------------------------------------------------------------------------------------
// (c) infra/docker/Dockerfile: dockerfile-utils' linter, then the project's own rules per stage.

describe("infra/docker/Dockerfile", () => {
  const text = read("infra/docker/Dockerfile");
  const stages = () => {
    const found = new Map<string, Instruction[]>();
    let current: Instruction[] = [];
    for (const instruction of DockerfileParser.parse(text).getInstructions()) {
      if (instruction.getKeyword() === "FROM") {
        current = [];
        found.set((instruction as From).getBuildStage() ?? "", current);
      }
      current.push(instruction);
    }
    return found;
  };
  const argumentsOf = (instruction: Instruction | undefined) => instruction?.getArgumentsContent() ?? "";
  const lastOf = (instructions: Instruction[] | undefined, keyword: string) =>
    instructions?.filter((instruction) => instruction.getKeyword() === keyword).at(-1);

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

  it("builds one target per role, each as a non-root user under tini, in exec form", () => {
    const found = stages();
    expect([...found.keys()]).toEqual(["build", "runtime", ...roles]);
    expect(argumentsOf(lastOf(found.get("runtime"), "ENTRYPOINT"))).toBe('["/usr/bin/tini", "--"]');
    for (const role of roles) {
      const stage = found.get(role);
      expect(argumentsOf(stage?.[0]), role).toMatch(/^runtime AS /);
      // A numeric uid other than 0: Kubernetes' runAsNonRoot can verify it without reading /etc/passwd.
      expect(argumentsOf(lastOf(stage, "USER")), role).toBe("10001:10001");
      const cmd = JSON.parse(argumentsOf(lastOf(stage, "CMD"))) as string[];
      expect(cmd.slice(0, 2), role).toEqual(["node", "apps/cli/bin/octavo.mjs"]);
      if (role === "api") expect(cmd[2]).toBe("api");
      else expect(queueSpec(cmd).names, role).toEqual(classes[role as WorkerClass].queues);
    }
  });

  it("installs each role's engines and nothing outside the project's Debian list", () => {
    const project = projectDebianPackages();
    const found = stages();
    const installed = (stage: string) =>
      (found.get(stage) ?? [])
        .filter((instruction) => instruction.getKeyword() === "RUN")
        .flatMap((instruction) => {
          const command = argumentsOf(instruction).replace(/\\\n/g, " ");
          expect(command, `${stage}: apt-get without --no-install-recommends or list cleanup`).not.toMatch(
            /apt-get install(?![^&]*--no-install-recommends)/,
          );
          if (command.includes("apt-get install")) expect(command).toContain("rm -rf /var/lib/apt/lists/*");
          const install = /apt-get install ([^&]*)/.exec(command)?.[1] ?? "";
          return install.split(/\s+/).filter((word) => word !== "" && !word.startsWith("-"));
        });
    expect(installed("runtime").sort()).toEqual(["ca-certificates", "tini"]);
    expect(installed("api")).toEqual([]);
    for (const name of workerClasses) {
      const packages = installed(name);
      for (const needed of classes[name].debian) expect(packages, name).toContain(needed);
      for (const name_ of packages)
        expect(project.has(name_), `${name}: ${name_} is not in scripts/debian-packages.mjs`).toBe(true);
    }
    // Every OCR language the project installs, in the image that runs OCR.
    const languages = [...project].filter((name) => name.startsWith("tesseract-ocr-"));
    expect(installed("worker-heavy")).toEqual(expect.arrayContaining(languages));
  });

  it("uses the project's Node major and pnpm version, and only settings octavo knows", () => {
    const nodeMajor = read(".nvmrc").trim().split(".")[0];
    expect(text).toMatch(new RegExp(`^ARG NODE_IMAGE=node:${nodeMajor}-bookworm-slim`, "m"));
    const pnpm = (JSON.parse(read("package.json")) as { packageManager: string }).packageManager.split(
      "@",
    )[1];
    expect(text).toContain(`ARG PNPM_VERSION=${pnpm}`);
    const names = [...text.matchAll(/\b(OCTAVO_[A-Z_]+)=/g)].map((match) => match[1] ?? "");
    expect(names.length).toBeGreaterThan(0);
    expect(unknownSettings(Object.fromEntries(names.map((name) => [name, "x"])))).toEqual([]);
  });
});

import { type IScaledObject, ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1";
import {
  type IPodMonitor,
  PodMonitor,
} from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { type Config, loadConfig, unknownSettings } from "@octavo/config";
import { isJobKind, jobKinds, laneOf, queueConcurrency } from "@octavo/contracts";
import { Deployment, type IDeployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler, type IHorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { type IJob, Job } from "kubernetes-models/batch/v1";
import { type INetworkPolicy, NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { type IPodDisruptionBudget, PodDisruptionBudget } from "kubernetes-models/policy/v1";
import {
  ConfigMap,
  type IContainer,
  type IPodSpec,
  type IService,
  Namespace,
  Secret,
  Service,
} from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { exportedMetrics, promqlProblems, promtoolCheckExpressions } from "./promql.js";
import { catalogueClassOf, classArgument, queuesOfRole, read, roles, run, workerClasses } from "./support.js";

// infra/k8s, rendered by `kubectl kustomize` and validated object by object against the schemas of
// Kubernetes (kubernetes-models), KEDA (@kubernetes-models/keda) and the Prometheus Operator
// (@kubernetes-models/prometheus-operator); then the rules of the fleet: probes, resources, drain,
// one autoscaler per Deployment on the right signal, disruption budgets, metrics, network policies.

describe("the worker classes of the catalogue, as the manifests name them", () => {
  it("cover the contract's job kinds (the operations and the pipeline) and the webhook deliveries, each once", () => {
    const assigned = workerClasses.flatMap((name) => queuesOfRole(name).map((queue) => queue.name));
    expect(jobKinds).toContain("pipeline");
    expect([...assigned].sort()).toEqual([...jobKinds, "webhooks"].sort());
    expect(new Set(assigned).size).toBe(assigned.length);
  });
});

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
}
type Validator = (data: unknown) => boolean;
/** A kubernetes-models class: its prototype's validate() runs the kind's compiled JSON schema on `this`. */
type ModelClass = { prototype: { validate(): void } };

const models: Record<string, ModelClass> = {
  "v1/Namespace": Namespace,
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "batch/v1/Job": Job,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "keda.sh/v1alpha1/ScaledObject": ScaledObject,
  "monitoring.coreos.com/v1/PodMonitor": PodMonitor,
};

/** Runs a kind's schema on the object itself, not on a copy, so a proxy sees every property it reads. */
const schemaOf =
  (model: ModelClass): Validator =>
  (data) => {
    try {
      model.prototype.validate.call(data);
      return true;
    } catch {
      return false;
    }
  };

/**
 * Fields the schema does not define, like `kubectl --validate=strict` reports them. The compiled
 * schemas accept unknown properties, so the validator runs over a proxy that records every property
 * it reads: whatever it never looked at is not in the schema (a misspelt `readinesProbe`, say).
 */
function unknownFields(value: unknown, schema: Validator): string[] {
  const seen = new WeakMap<object, Set<string>>();
  const track = (target: unknown): unknown => {
    if (target === null || typeof target !== "object") return target;
    return new Proxy(target, {
      get(object, key, receiver) {
        if (typeof key === "string") {
          const keys = seen.get(object) ?? new Set<string>();
          keys.add(key);
          seen.set(object, keys);
        }
        return track(Reflect.get(object, key, receiver));
      },
    });
  };
  schema(track(value));
  const unknown: string[] = [];
  const walk = (node: unknown, path: string) => {
    if (node === null || typeof node !== "object") return;
    const keys = seen.get(node) ?? new Set<string>();
    for (const [key, child] of Object.entries(node)) {
      if (!Array.isArray(node) && !keys.has(key)) unknown.push(`${path}/${key}`);
      else walk(child, `${path}/${key}`);
    }
  };
  walk(value, "");
  return unknown;
}

/** Validates one object against its kind's schema (types, enums, required fields) and for unknown fields. */
function validateObject(object: KubeObject): void {
  const model = models[`${object.apiVersion}/${object.kind}`];
  if (model === undefined) throw new Error(`no schema for ${object.apiVersion} ${object.kind} in this test`);
  const where = `${object.kind} ${object.metadata.name}`;
  expect(() => model.prototype.validate.call(object), where).not.toThrow();
  expect(unknownFields(object, schemaOf(model)), where).toEqual([]);
}

type LabelSelector = NonNullable<INetworkPolicy["spec"]>["podSelector"];
/** Whether a label selector (matchLabels and matchExpressions) selects these labels. */
function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (selector === undefined) return false;
  const plain = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const expressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    const value = labels[key];
    if (operator === "In") return value !== undefined && values.includes(value);
    if (operator === "NotIn") return value === undefined || !values.includes(value);
    if (operator === "Exists") return value !== undefined;
    if (operator === "DoesNotExist") return value === undefined;
    throw new Error(`unknown selector operator ${operator}`);
  });
  return plain && expressions;
}

/** Kubernetes quantities as numbers: 250m, 2, 512Mi, 2Gi. */
function quantity(value: string | number | undefined): number {
  const [, amount = "0", unit = ""] = /^([\d.]+)(\w*)$/.exec(String(value ?? "0")) ?? [];
  const units: Record<string, number> = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };
  return Number(amount) * (units[unit] ?? 1);
}

/** The IPv4 ranges octavo's outbound policy refuses, as packages/net/src/address-policy.ts lists them. */
function octavoRefusedIPv4(): string[] {
  const source = read("packages/net/src/address-policy.ts");
  const block = /const IPV4_BLOCKED = ranges\(\[([\s\S]*?)\]\);/.exec(source)?.[1] ?? "";
  return [...block.matchAll(/\["([\d./]+)"/g)].map((match) => match[1] ?? "");
}

const BACKEND_PORTS = new Set([5432, 6379, 443, 9000]);
/**
 * The pods whose work fetches from the public web: URL inputs, html-to-pdf's pages (also as a pipeline's
 * first step), webhook deliveries.
 */
const PUBLIC_WEB = new Set(["api", "worker-office", "worker-webhooks", "worker-pipeline"]);

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
  const ofKind = <T>(kind: string) =>
    render().filter((object) => object.kind === kind) as unknown as (KubeObject & T)[];
  const deployments = () => ofKind<IDeployment>("Deployment");
  const deployment = (name: string) => {
    const found = deployments().find((object) => object.metadata.name === name);
    if (found === undefined) throw new Error(`no Deployment ${name}`);
    return found;
  };
  const podSpec = (workload: IDeployment | IJob): IPodSpec => {
    const spec = workload.spec?.template.spec;
    if (spec === undefined) throw new Error(`${workload.metadata?.name} has no pod spec`);
    return spec;
  };
  const podLabels = (workload: IDeployment | IJob) => workload.spec?.template.metadata?.labels ?? {};
  const container = (workload: IDeployment | IJob): IContainer => {
    const [first] = podSpec(workload).containers;
    if (first === undefined) throw new Error(`${workload.metadata?.name} has no container`);
    return first;
  };
  const envOf = (workload: IDeployment | IJob) =>
    Object.fromEntries(
      (container(workload).env ?? []).map((variable) => [variable.name, variable.value ?? ""]),
    );
  const configMapData = () =>
    (ofKind<{ data: Record<string, string> }>("ConfigMap")[0]?.data ?? {}) as Record<string, string>;
  /** The settings as octavo reads them in this pod: the ConfigMap, then the container's own env. */
  const settingsOf = (workload: IDeployment): Config =>
    loadConfig({ ...configMapData(), ...envOf(workload), OCTAVO_SECRET_KEY: "k".repeat(32) });
  const policiesFor = (workload: IDeployment | IJob, type: "Ingress" | "Egress") =>
    ofKind<INetworkPolicy>("NetworkPolicy").filter(
      (policy) =>
        selects(policy.spec?.podSelector, podLabels(workload)) &&
        (policy.spec?.policyTypes ?? ["Ingress"]).includes(type),
    );

  it("renders objects that all pass their schemas (Kubernetes, KEDA, Prometheus Operator), unknown fields included", () => {
    const objects = render();
    const names = objects.map((object) => `${object.kind}/${object.metadata.name}`).sort();
    expect(names).toEqual(
      [
        "ConfigMap/octavo-config",
        "Deployment/api",
        ...workerClasses.map((name) => `Deployment/${name}`),
        "HorizontalPodAutoscaler/api",
        "Job/migrate",
        "Namespace/octavo",
        "NetworkPolicy/api-ingress",
        "NetworkPolicy/backends-egress",
        "NetworkPolicy/default-deny",
        "NetworkPolicy/metrics-scrape-ingress",
        "NetworkPolicy/public-web-egress",
        "PodDisruptionBudget/api",
        ...workerClasses.map((name) => `PodDisruptionBudget/${name}`),
        "PodMonitor/octavo-api",
        "PodMonitor/octavo-workers",
        ...workerClasses.map((name) => `ScaledObject/${name}`),
        "Service/api",
      ]
        .sort()
        .map((name) =>
          name.startsWith("ConfigMap/") ? expect.stringMatching(/^ConfigMap\/octavo-config-\w+$/) : name,
        ),
    );
    for (const object of objects) validateObject(object);
    validateObject(parse(read("infra/k8s/secret.example.yaml")) as KubeObject);
  });

  it("catches a misspelt field, in a core kind and in a CRD (the check above can fail)", () => {
    const api = structuredClone(deployment("api")) as unknown as { spec: { replicass?: number } };
    api.spec.replicass = 2;
    expect(unknownFields(api, schemaOf(Deployment))).toEqual(["/spec/replicass"]);
    const [scaled] = ofKind<IScaledObject>("ScaledObject");
    const broken = structuredClone(scaled) as unknown as { spec: { minReplicas?: number } };
    broken.spec.minReplicas = 1;
    expect(unknownFields(broken, schemaOf(ScaledObject))).toEqual(["/spec/minReplicas"]);
    // And a wrong type: KEDA's trigger metadata values are strings.
    const typed = structuredClone(scaled) as unknown as { spec: { triggers: { metadata: object }[] } };
    typed.spec.triggers[0] = { ...typed.spec.triggers[0], metadata: { threshold: 4 } };
    expect(() => ScaledObject.prototype.validate.call(typed)).toThrow();
  });

  it("gives every container requests and limits, every Deployment probes, a non-root user and the shared settings", () => {
    const configMap = ofKind<object>("ConfigMap")[0]?.metadata.name;
    const secret = (parse(read("infra/k8s/secret.example.yaml")) as KubeObject).metadata.name;
    const found = deployments();
    expect(found.map((object) => object.metadata.name).sort()).toEqual([...roles].sort());
    for (const workload of [...found, ...ofKind<IJob>("Job")]) {
      const name = workload.metadata.name;
      for (const each of [...podSpec(workload).containers, ...(podSpec(workload).initContainers ?? [])])
        for (const kind of ["requests", "limits"] as const)
          for (const resource of ["cpu", "memory"])
            expect(
              each.resources?.[kind]?.[resource],
              `${name} ${each.name} ${kind}.${resource}`,
            ).toBeDefined();
    }
    for (const workload of found) {
      const name = workload.metadata.name;
      const pod = podSpec(workload);
      expect(pod.containers, name).toHaveLength(1);
      const main = container(workload);
      const settings = settingsOf(workload);
      const port = name === "api" ? settings.port : settings.healthPort;
      const portName = main.ports?.find((entry) => entry.containerPort === port)?.name;
      expect(portName, name).toBeDefined();
      expect(main.readinessProbe?.httpGet, name).toMatchObject({ path: "/readyz", port: portName });
      expect(main.livenessProbe?.httpGet, name).toMatchObject({ path: "/healthz", port: portName });
      // `args`, not `command`: the image's ENTRYPOINT (tini) stays PID 1 and forwards SIGTERM.
      expect(main.command, name).toBeUndefined();
      expect(pod.securityContext?.runAsNonRoot, name).toBe(true);
      expect(pod.securityContext?.runAsUser, name).toBe(10001);
      expect(main.securityContext?.allowPrivilegeEscalation, name).toBe(false);
      // Service links would add OCTAVO_<SERVICE>_PORT variables, which octavo refuses at start-up.
      expect(pod.enableServiceLinks, name).toBe(false);
      expect(
        main.envFrom?.map((source) => source.configMapRef?.name ?? source.secretRef?.name),
        name,
      ).toEqual([configMap, secret]);
      expect(unknownSettings(envOf(workload)), name).toEqual([]);
    }
  });

  it("runs each worker class by its name, with requests that fit it", () => {
    for (const name of workerClasses) {
      const workload = deployment(name);
      expect(container(workload).args, name).toEqual([
        "node",
        "apps/cli/bin/octavo.mjs",
        "worker",
        "--class",
        catalogueClassOf(name),
      ]);
      const concurrency = settingsOf(workload).workerConcurrency;
      for (const { name: queue, concurrency: count } of queuesOfRole(name))
        if (count !== undefined && queue !== "webhooks") expect(count, name).toBeLessThanOrEqual(concurrency);
    }
    const requests = (name: string) => container(deployment(name)).resources?.requests ?? {};
    const limits = (name: string) => container(deployment(name)).resources?.limits ?? {};
    // heavy is CPU-bound (an OCR job uses every core it has); office holds LibreOffice instances in memory.
    expect(quantity(requests("worker-heavy").cpu)).toBeGreaterThanOrEqual(2);
    expect(quantity(requests("worker-office").memory)).toBeGreaterThanOrEqual(2 * 2 ** 30);
    // pipeline runs both kinds of step, warm LibreOffice beside OCR: at least the larger of the two.
    for (const resources of [requests, limits])
      for (const resource of ["cpu", "memory", "ephemeral-storage"])
        for (const other of ["worker-heavy", "worker-office"])
          expect(
            quantity(resources("worker-pipeline")[resource]),
            `${other} ${resource}`,
          ).toBeGreaterThanOrEqual(quantity(resources(other)[resource]));
    for (const small of ["worker-pdf", "worker-webhooks", "api"])
      expect(quantity(requests(small).memory), small).toBeLessThan(
        quantity(requests("worker-office").memory),
      );
  });

  it("gives every role a termination grace period above octavo's drain (OCTAVO_SHUTDOWN_GRACE_SECONDS)", () => {
    for (const workload of deployments()) {
      const name = workload.metadata.name;
      const drain = settingsOf(workload).shutdownGraceSeconds;
      expect(drain, name).toBe(25);
      // The drain, then closing connections (and the API's preStop sleep): at least 20 s more.
      expect(podSpec(workload).terminationGracePeriodSeconds ?? 30, name).toBeGreaterThanOrEqual(drain + 20);
    }
    // The API holds ?wait=60 long polls: its period covers one after the preStop sleep.
    expect(podSpec(deployment("api")).terminationGracePeriodSeconds).toBeGreaterThan(60 + 5);
  });

  it("serves metrics on every Deployment, scraped by a PodMonitor and never through the API's Service", () => {
    const monitors = ofKind<IPodMonitor>("PodMonitor");
    for (const workload of deployments()) {
      const name = workload.metadata.name;
      const settings = settingsOf(workload);
      // API nodes: a listener of their own (OCTAVO_METRICS_PORT); workers: their probe port.
      const port = name === "api" ? settings.metricsPort : settings.healthPort;
      expect(port, name).toBeDefined();
      const portName = container(workload).ports?.find((entry) => entry.containerPort === port)?.name;
      expect(portName, name).toBe(name === "api" ? "metrics" : "health");
      const scraping = monitors.filter((monitor) => selects(monitor.spec.selector, podLabels(workload)));
      expect(scraping, name).toHaveLength(1);
      expect(scraping[0]?.spec.podMetricsEndpoints, name).toEqual([
        expect.objectContaining({ port: portName, path: "/metrics" }),
      ]);
      // Dashboards and alerts group processes by job: the pod's component.
      expect(scraping[0]?.spec.jobLabel, name).toBe("app.kubernetes.io/component");
    }
    expect(settingsOf(deployment("api")).metricsPort).toBe(9464);
    expect(settingsOf(deployment("api")).metricsPort).not.toBe(settingsOf(deployment("api")).port);
    const [service] = ofKind<IService>("Service");
    const api = container(deployment("api"));
    const published = (service?.spec?.ports ?? []).map(
      (entry) =>
        api.ports?.find((port) => port.name === entry.targetPort || port.containerPort === entry.targetPort)
          ?.name,
    );
    expect(published).toEqual(["http"]);
  });

  it("scales each worker class with one KEDA ScaledObject on the backlog of its own queues, by its class label", () => {
    const scaled = ofKind<IScaledObject>("ScaledObject");
    const namespace = deployment("api").metadata.namespace;
    const exported = exportedMetrics();
    const queries: string[] = [];
    for (const name of workerClasses) {
      const workload = deployment(name);
      const mine = scaled.filter((object) => object.spec.scaleTargetRef.name === name);
      expect(mine, name).toHaveLength(1);
      const spec = mine[0]?.spec;
      if (spec === undefined) continue;
      expect(spec.scaleTargetRef.kind ?? "Deployment", name).toBe("Deployment");
      const min = spec.minReplicaCount ?? 0;
      const max = spec.maxReplicaCount ?? 100;
      expect(min, name).toBeGreaterThanOrEqual(0);
      expect(min, name).toBeLessThanOrEqual(max);
      expect(max, name).toBeLessThanOrEqual(20);
      // A broken Prometheus must not scale a class down: fallback keeps the current count or more.
      expect(spec.fallback?.behavior, name).toBe("currentReplicasIfHigher");
      expect(spec.fallback?.replicas ?? 0, name).toBeGreaterThanOrEqual(Math.max(min, 1));
      expect(spec.fallback?.replicas ?? 0, name).toBeLessThanOrEqual(max);
      // A removed worker hands its running jobs back: remove pods slowly, after a quiet spell.
      const scaleDown = spec.advanced?.horizontalPodAutoscalerConfig?.behavior?.scaleDown;
      expect(scaleDown?.stabilizationWindowSeconds ?? 0, name).toBeGreaterThanOrEqual(300);
      expect(scaleDown?.policies, name).toEqual([expect.objectContaining({ type: "Pods", value: 1 })]);

      expect(spec.triggers, name).toHaveLength(1);
      const trigger = spec.triggers[0];
      expect(trigger?.type, name).toBe("prometheus");
      expect(trigger?.metricType ?? "AverageValue", name).toBe("AverageValue");
      const metadata = trigger?.metadata ?? {};
      expect(metadata.serverAddress, name).toMatch(/^https?:\/\/[^/\s]+/);
      // An empty answer (the scrape lost) is an error, so the fallback applies instead of scaling to min.
      expect(metadata.ignoreNullValues, name).toBe("false");
      // Every node reports every queue: max per queue and state, then summed over the class.
      const query = metadata.query ?? "";
      queries.push(query);
      const shape = /^sum\(max by \(queue, state\) \(octavo_queue_jobs\{([^}]*)\}\)\)$/.exec(query);
      expect(shape, `${name}: ${query}`).not.toBeNull();
      const matchers = Object.fromEntries(
        [...(shape?.[1] ?? "").matchAll(/(\w+)(=~|=)"([^"]*)"/g)].map(([, label, op, value]) => [
          label,
          `${op}${value}`,
        ]),
      );
      expect(matchers.namespace, name).toBe(`=${namespace}`);
      expect(matchers.state, name).toBe("=~waiting|active");
      // The class label selects the class's queues: no query lists queues, so a new operation needs none.
      expect(matchers.class, name).toBe(`=${classArgument(container(workload).args ?? [])}`);
      expect(matchers.queue, name).toBeUndefined();
      expect(promqlProblems(query, exported), name).toEqual([]);

      // Jobs per pod = the pod's slots times whole rounds of them: the threshold is a multiple of its slots.
      const entries = queuesOfRole(name);
      const concurrency = settingsOf(workload).workerConcurrency;
      const slots =
        name === "worker-webhooks"
          ? (entries[0]?.concurrency ?? 0)
          : [
              ...new Set(
                entries
                  .map((entry) => entry.name)
                  .filter(isJobKind)
                  .map(laneOf),
              ),
            ]
              .map((lane) => (lane === "light" ? queueConcurrency("merge", concurrency) : concurrency))
              .reduce((sum, each) => sum + each, 0);
      const threshold = Number(metadata.threshold);
      expect(slots, name).toBeGreaterThan(0);
      expect(threshold % slots, `${name}: threshold ${threshold}, ${slots} slots per pod`).toBe(0);
      expect(threshold, name).toBeGreaterThanOrEqual(slots);
    }
    const checked = promtoolCheckExpressions(queries);
    expect(checked.output, "promtool check rules").toContain("SUCCESS");
    expect(checked.status).toBe(0);
  });

  it("scales the API on CPU, and gives no Deployment two autoscalers or a replica count of its own", () => {
    const hpas = ofKind<IHorizontalPodAutoscaler>("HorizontalPodAutoscaler");
    const scaled = ofKind<IScaledObject>("ScaledObject");
    for (const workload of deployments()) {
      const name = workload.metadata.name;
      const byHpa = hpas.filter((hpa) => hpa.spec?.scaleTargetRef.name === name);
      const byKeda = scaled.filter((object) => object.spec.scaleTargetRef.name === name);
      // KEDA makes an HPA of its own for each ScaledObject: two autoscalers would fight.
      expect(byHpa.length + byKeda.length, name).toBe(1);
      if (name === "api") expect(byHpa, name).toHaveLength(1);
      else expect(byKeda, name).toHaveLength(1);
      // The autoscaler owns the count; a fixed one would be reset on every apply.
      expect(workload.spec?.replicas, name).toBeUndefined();
    }
    const [api] = hpas;
    expect(api?.spec?.scaleTargetRef).toMatchObject({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "api",
    });
    expect(api?.spec?.metrics).toEqual([
      {
        type: "Resource",
        resource: { name: "cpu", target: expect.objectContaining({ type: "Utilization" }) },
      },
    ]);
    expect(api?.spec?.minReplicas ?? 1).toBeGreaterThanOrEqual(2);
    expect(api?.spec?.minReplicas ?? 1).toBeLessThanOrEqual(api?.spec?.maxReplicas ?? 0);
  });

  it("has a PodDisruptionBudget per Deployment that still lets a node drain", () => {
    const budgets = ofKind<IPodDisruptionBudget>("PodDisruptionBudget");
    const hpas = ofKind<IHorizontalPodAutoscaler>("HorizontalPodAutoscaler");
    const scaled = ofKind<IScaledObject>("ScaledObject");
    for (const workload of deployments()) {
      const name = workload.metadata.name;
      const mine = budgets.filter((budget) => selects(budget.spec?.selector, podLabels(workload)));
      expect(mine, name).toHaveLength(1);
      const spec = mine[0]?.spec;
      const fewest =
        hpas.find((hpa) => hpa.spec?.scaleTargetRef.name === name)?.spec?.minReplicas ??
        scaled.find((object) => object.spec.scaleTargetRef.name === name)?.spec.minReplicaCount ??
        1;
      // At the autoscaler's minimum, one pod may still be evicted.
      if (spec?.minAvailable !== undefined) expect(Number(spec.minAvailable), name).toBeLessThan(fewest);
      else expect(Number(spec?.maxUnavailable ?? 0), name).toBeGreaterThanOrEqual(1);
    }
  });

  it("denies all traffic by default and lets pdf and heavy workers out only to DNS, the database, Redis and the store", () => {
    const policies = ofKind<INetworkPolicy>("NetworkPolicy");
    const denyAll = policies.filter(
      (policy) =>
        Object.keys(policy.spec?.podSelector ?? { none: true }).length === 0 &&
        policy.spec?.ingress === undefined &&
        policy.spec?.egress === undefined,
    );
    expect(denyAll.map((policy) => [...(policy.spec?.policyTypes ?? [])].sort())).toEqual([
      ["Egress", "Ingress"],
    ]);
    for (const workload of [...deployments(), ...ofKind<IJob>("Job")]) {
      const name = workload.metadata.name;
      for (const rule of policiesFor(workload, "Egress").flatMap((policy) => policy.spec?.egress ?? [])) {
        // No rule open to every destination or every port.
        expect(rule.to?.length ?? 0, name).toBeGreaterThan(0);
        expect(rule.ports?.length ?? 0, name).toBeGreaterThan(0);
        const ports = (rule.ports ?? []).map((port) => port.port);
        for (const peer of rule.to ?? []) {
          if (peer.ipBlock === undefined) {
            // In-cluster peers: DNS only.
            expect(peer.podSelector?.matchLabels, name).toEqual({ "k8s-app": "kube-dns" });
            expect(ports, name).toEqual([53, 53]);
            continue;
          }
          if (peer.ipBlock.cidr === "0.0.0.0/0") {
            expect(PUBLIC_WEB.has(name), `${name} may reach the public web`).toBe(true);
            continue;
          }
          // The backing services: their ports only, and never a range as wide as the public web.
          expect(
            Number(peer.ipBlock.cidr.split("/")[1]),
            `${name} ${peer.ipBlock.cidr}`,
          ).toBeGreaterThanOrEqual(8);
          for (const port of ports)
            expect(BACKEND_PORTS.has(Number(port)), `${name} port ${port}`).toBe(true);
        }
      }
    }
  });

  it("lets only the API, worker-office, worker-webhooks and worker-pipeline reach the public web, on 80 and 443, never octavo's refused ranges", () => {
    const refused = octavoRefusedIPv4();
    expect(refused).toEqual(
      expect.arrayContaining([
        "10.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "100.64.0.0/10",
      ]),
    );
    for (const workload of deployments()) {
      const name = workload.metadata.name;
      const outside = policiesFor(workload, "Egress")
        .flatMap((policy) => policy.spec?.egress ?? [])
        .filter((rule) => rule.to?.some((peer) => peer.ipBlock?.cidr === "0.0.0.0/0"));
      if (!PUBLIC_WEB.has(name)) {
        expect(outside, name).toEqual([]);
        continue;
      }
      expect(outside, name).toHaveLength(1);
      const [rule] = outside;
      expect(rule?.ports, name).toEqual([
        { protocol: "TCP", port: 80 },
        { protocol: "TCP", port: 443 },
      ]);
      expect(rule?.to, name).toHaveLength(1);
      expect([...(rule?.to?.[0]?.ipBlock?.except ?? [])].sort(), name).toEqual([...refused].sort());
    }
  });

  it("admits traffic only to the API's port and, from the monitoring namespace, to the metrics ports", () => {
    const monitors = ofKind<IPodMonitor>("PodMonitor");
    for (const workload of deployments()) {
      const name = workload.metadata.name;
      const rules = policiesFor(workload, "Ingress").flatMap((policy) => policy.spec?.ingress ?? []);
      const scrapePorts = monitors
        .filter((monitor) => selects(monitor.spec.selector, podLabels(workload)))
        .flatMap((monitor) => monitor.spec.podMetricsEndpoints ?? [])
        .map((endpoint) => endpoint.port);
      for (const rule of rules) {
        const ports = (rule.ports ?? []).map((port) => port.port);
        if (rule.from === undefined) {
          // Open to all: the API's own port, which the Ingress controller reaches.
          expect(name, `${name} open to all on ${ports}`).toBe("api");
          expect(ports, name).toEqual(["http"]);
          continue;
        }
        for (const peer of rule.from) {
          expect(peer.ipBlock, name).toBeUndefined();
          expect(peer.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"], name).toBeDefined();
        }
        for (const port of ports) expect(["metrics", "health"], `${name} port ${port}`).toContain(port);
      }
      // Prometheus can reach what the PodMonitor scrapes.
      const allowed = rules.filter((rule) => rule.from !== undefined).flatMap((rule) => rule.ports ?? []);
      for (const port of scrapePorts)
        expect(
          allowed.map((entry) => entry.port),
          name,
        ).toContain(port);
    }
  });

  it("sets only settings octavo knows, and the Secret example holds exactly the secret ones", () => {
    const secret = parse(read("infra/k8s/secret.example.yaml")) as { stringData: Record<string, string> };
    expect(unknownSettings({ ...configMapData(), ...secret.stringData })).toEqual([]);
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
    const [job] = ofKind<IJob>("Job");
    expect(job && container(job).args).toEqual(["node", "apps/cli/bin/octavo.mjs", "migrate"]);
  });
});

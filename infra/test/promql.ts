import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServiceMetrics } from "@octavo/metrics";
import { stringify } from "yaml";
import { run } from "./support.js";

/**
 * Checks PromQL written against octavo's metrics (the dashboard, the alerts, the autoscalers' queries):
 * every metric it reads is one octavo exports, every label it matches or groups by is one that metric
 * has or the scrape adds, and Prometheus's own parser (promtool) accepts it.
 */

/** What a metric of octavo's registry is: its type and its labels. */
export interface ExportedMetric {
  type: string;
  labels: readonly string[];
}

/**
 * Every metric an octavo process exports, read from the registry it serves at /metrics
 * (@octavo/metrics: octavo's own and prom-client's process and Node.js defaults).
 */
export function exportedMetrics(): Map<string, ExportedMetric> {
  const { registry } = new ServiceMetrics({ role: "api", version: "0.0.0" });
  return new Map(
    registry.getMetricsAsArray().map((metric) => {
      const { labelNames = [] } = metric as unknown as { labelNames?: readonly string[] };
      const known: ExportedMetric = { type: String(metric.type), labels: labelNames };
      return [metric.name, known];
    }),
  );
}

/**
 * Labels a scrape adds to every series: the Prometheus Operator's PodMonitor sets namespace, pod,
 * container, endpoint and job (the pod's component, infra/k8s/podmonitors.yaml); instance always.
 */
export const TARGET_LABELS = ["namespace", "pod", "container", "endpoint", "job", "instance"];

const KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right"]);
const OPERATORS = new Set(["and", "or", "unless", "bool", "offset", "inf", "nan"]);
const HISTOGRAM_SERIES = ["_bucket", "_sum", "_count"];

/** One selector of an expression: the metric it names and the labels its matchers use. */
export interface PromqlSelector {
  metric: string;
  labels: string[];
  matchers: Record<string, string>;
}

/** The selectors and the grouping labels (by, without, on, ignoring, group_left/right) of an expression. */
export function parsePromql(expr: string): { selectors: PromqlSelector[]; grouping: string[] } {
  const grouping: string[] = [];
  const text = expr
    // Grouping clauses first: their labels are not metrics.
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g, (_, _keyword, labels) => {
      grouping.push(
        ...String(labels)
          .split(",")
          .map((label) => label.trim())
          .filter((label) => label !== ""),
      );
      return " ";
    })
    // Range and subquery durations: [5m], [15m:1m], [$__rate_interval].
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\boffset\s+\S+/g, "");
  const selectors: PromqlSelector[] = [];
  for (const match of text.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*(\{[^}]*\})?/g)) {
    const [whole, name, braces] = match;
    if (whole.trim() === "" || name === undefined) continue;
    const after = text.slice((match.index ?? 0) + whole.length);
    // A function or aggregation: sum(, rate(, histogram_quantile(, absent(.
    if (braces === undefined && /^\s*\(/.test(after)) continue;
    if (KEYWORDS.has(name) || OPERATORS.has(name.toLowerCase())) continue;
    const matchers: Record<string, string> = {};
    for (const [, label = "", value = ""] of (braces ?? "").matchAll(
      /([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g,
    ))
      matchers[label] = value;
    selectors.push({ metric: name, labels: Object.keys(matchers), matchers });
  }
  return { selectors, grouping };
}

/** The exported metric a series name belongs to: a histogram's _bucket, _sum and _count are its own. */
function exportedName(name: string, exported: Map<string, ExportedMetric>): string | undefined {
  if (exported.has(name)) return name;
  const suffix = HISTOGRAM_SERIES.find((end) => name.endsWith(end));
  const base = suffix === undefined ? undefined : name.slice(0, -suffix.length);
  return base !== undefined && exported.get(base)?.type === "histogram" ? base : undefined;
}

/** What is wrong with an expression's metrics and labels; empty when nothing is. */
export function promqlProblems(expr: string, exported: Map<string, ExportedMetric>): string[] {
  const { selectors, grouping } = parsePromql(expr);
  const problems: string[] = [];
  if (selectors.length === 0) problems.push("reads no metric");
  const usable = new Set(TARGET_LABELS);
  for (const selector of selectors) {
    const name = exportedName(selector.metric, exported);
    if (name === undefined) {
      problems.push(`${selector.metric} is not a metric octavo exports`);
      continue;
    }
    const own = new Set([...(exported.get(name)?.labels ?? []), ...TARGET_LABELS]);
    if (selector.metric.endsWith("_bucket")) own.add("le");
    for (const label of selector.labels)
      if (!own.has(label)) problems.push(`${selector.metric} has no label ${label}`);
    for (const label of own) usable.add(label);
  }
  for (const label of grouping)
    if (!usable.has(label)) problems.push(`groups by ${label}, which none of its metrics has`);
  return problems;
}

/** Grafana's variables, replaced by values Prometheus can parse. */
export function withoutGrafanaVariables(expr: string): string {
  return expr
    .replaceAll("$__rate_interval", "5m")
    .replaceAll("$__interval", "1m")
    .replaceAll("$namespace", "octavo");
}

/**
 * Prometheus's parser on each expression: they become recording rules of a temporary rules file for
 * `promtool check rules`. Returns promtool's exit status and what it said.
 */
export function promtoolCheckExpressions(exprs: readonly string[]): {
  status: number | null;
  output: string;
} {
  const dir = mkdtempSync(join(tmpdir(), "octavo-promql-"));
  try {
    const file = join(dir, "expressions.yml");
    const rules = exprs.map((expr, index) => ({ record: `octavo_check:expression_${index}`, expr }));
    writeFileSync(file, stringify({ groups: [{ name: "expressions", rules }] }));
    const result = run("promtool", ["check", "rules", file]);
    if (result.error)
      throw new Error(
        `promtool is missing (Debian package prometheus; npm run setup installs it): ${result.error.message}`,
      );
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

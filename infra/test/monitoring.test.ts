import { PrometheusRule } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { jobErrorCodes } from "@octavo/contracts";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  exportedMetrics,
  parsePromql,
  promqlProblems,
  promtoolCheckExpressions,
  withoutGrafanaVariables,
} from "./promql.js";
import { read, run } from "./support.js";

// infra/grafana/octavo.json and infra/prometheus/alerts.yml: every query reads only metrics and labels
// octavo exports (from @octavo/metrics' own registry, not a copied list), and Prometheus's parser
// accepts it (promtool, Debian's prometheus package, which npm run setup installs).

interface Target {
  expr: string;
  refId: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  gridPos: { x: number; y: number; w: number; h: number };
}
interface Dashboard {
  __inputs: { name: string; type: string; pluginId: string }[];
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; query: { query: string } | string; datasource?: { uid?: string } }[] };
}

const exported = exportedMetrics();
/** The dashboard's import input: the Prometheus data source the importer picks. */
const INPUT = "DS_PROMETHEUS";
/** How panels name that input: Grafana's `${NAME}` reference, written out from the input's name. */
const DATASOURCE = `\${${INPUT}}`;

describe("octavo's exported metrics, as the checks below know them", () => {
  it("come from @octavo/metrics: octavo's series and the process and Node.js defaults", () => {
    expect(exported.get("octavo_queue_jobs")).toEqual({ type: "gauge", labels: ["queue", "state", "class"] });
    expect(exported.get("octavo_job_run_seconds")?.type).toBe("histogram");
    expect(exported.get("octavo_http_request_duration_seconds")?.labels).toEqual([
      "route",
      "method",
      "status",
    ]);
    expect(exported.has("process_resident_memory_bytes")).toBe(true);
    expect(exported.has("nodejs_eventloop_lag_p99_seconds")).toBe(true);
  });

  it("catch an unknown metric, an unknown label, a wrong grouping and a PromQL typo", () => {
    expect(promqlProblems("sum(rate(octavo_jobs_accepted_total[5m]))", exported)).toEqual([]);
    expect(promqlProblems("sum(rate(octavo_job_accepted_total[5m]))", exported)).toEqual([
      "octavo_job_accepted_total is not a metric octavo exports",
    ]);
    expect(promqlProblems('octavo_queue_jobs{stat="waiting"}', exported)).toEqual([
      "octavo_queue_jobs has no label stat",
    ]);
    expect(promqlProblems("sum by (operaton) (rate(octavo_jobs_accepted_total[5m]))", exported)).toEqual([
      "groups by operaton, which none of its metrics has",
    ]);
    // A histogram's series are its own; a gauge has no _bucket.
    expect(promqlProblems("rate(octavo_job_run_seconds_bucket[5m])", exported)).toEqual([]);
    expect(promqlProblems("rate(octavo_queue_jobs_bucket[5m])", exported)).toHaveLength(1);
    const typo = promtoolCheckExpressions(["sum(rate(octavo_jobs_accepted_total[5m])"]);
    expect(typo.status).not.toBe(0);
  });
});

describe("infra/grafana/octavo.json", () => {
  const dashboard = JSON.parse(read("infra/grafana/octavo.json")) as Dashboard;
  const queryPanels = dashboard.panels.filter((panel) => panel.type !== "row");
  const targets = queryPanels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel, target })));

  it("imports with a Prometheus data source chosen at import (input DS_PROMETHEUS), used by every panel", () => {
    expect(dashboard.uid).toBe("octavo-overview");
    expect(dashboard.__inputs).toEqual([
      expect.objectContaining({ name: INPUT, type: "datasource", pluginId: "prometheus" }),
    ]);
    expect(queryPanels.length).toBeGreaterThan(0);
    for (const { panel, target } of targets) {
      expect(panel.datasource, panel.title).toEqual({ type: "prometheus", uid: DATASOURCE });
      expect(target.datasource?.uid ?? DATASOURCE, panel.title).toBe(DATASOURCE);
    }
    for (const panel of queryPanels) expect(panel.targets?.length ?? 0, panel.title).toBeGreaterThan(0);
    // Panels sit on the 24-column grid without overlapping.
    const cells = new Set<string>();
    for (const { title, gridPos } of dashboard.panels) {
      expect(gridPos.x + gridPos.w, title).toBeLessThanOrEqual(24);
      for (let x = gridPos.x; x < gridPos.x + gridPos.w; x++)
        for (let y = gridPos.y; y < gridPos.y + gridPos.h; y++) {
          expect(cells.has(`${x},${y}`), `${title} overlaps at ${x},${y}`).toBe(false);
          cells.add(`${x},${y}`);
        }
    }
  });

  it("queries only metrics and labels octavo exports, each in the chosen namespace", () => {
    for (const { panel, target } of targets) {
      expect(promqlProblems(target.expr, exported), `${panel.title}: ${target.expr}`).toEqual([]);
      for (const selector of parsePromql(target.expr).selectors)
        expect(selector.matchers.namespace, `${panel.title}: ${target.expr}`).toBe("$namespace");
    }
    const [variable] = dashboard.templating.list;
    expect(variable?.name).toBe("namespace");
    const query = typeof variable?.query === "string" ? variable.query : variable?.query.query;
    expect(query).toBe("label_values(octavo_info, namespace)");
    expect(variable?.datasource?.uid).toBe(DATASOURCE);
  });

  it("shows every octavo metric, the percentiles on-call needs, and the API's 5xx", () => {
    const exprs = targets.map(({ target }) => target.expr);
    const used = new Set(
      exprs.flatMap((expr) => parsePromql(expr).selectors.map((selector) => selector.metric)),
    );
    const base = (name: string) => name.replace(/_(bucket|sum|count)$/, "");
    const octavo = [...exported.keys()].filter((name) => name.startsWith("octavo_"));
    expect(octavo.filter((name) => ![...used].some((metric) => base(metric) === name))).toEqual([]);
    for (const histogram of ["octavo_job_run_seconds", "octavo_job_queue_wait_seconds"])
      for (const quantile of ["0.5", "0.95"])
        expect(exprs, `${histogram} p${quantile}`).toContainEqual(
          expect.stringContaining(
            `histogram_quantile(${quantile}, sum by (operation, le) (rate(${histogram}_bucket`,
          ),
        );
    for (const quantile of ["0.5", "0.95", "0.99"])
      expect(exprs).toContainEqual(
        expect.stringContaining(
          `histogram_quantile(${quantile}, sum by (route, le) (rate(octavo_http_request_duration_seconds_bucket`,
        ),
      );
    expect(exprs).toContainEqual(
      expect.stringMatching(/octavo_http_request_duration_seconds_count\{[^}]*status=~"5\.\."/),
    );
    // Queue depth is reported by every node: always aggregated with max.
    for (const expr of exprs.filter((each) => each.includes("octavo_queue_jobs")))
      expect(expr).toMatch(/max by \(queue/);
  });

  it("has PromQL that Prometheus's parser accepts (promtool check rules)", () => {
    const checked = promtoolCheckExpressions(
      targets.map(({ target }) => withoutGrafanaVariables(target.expr)),
    );
    expect(checked.output, "promtool check rules").toContain("SUCCESS");
    expect(checked.status).toBe(0);
  });
});

describe("infra/prometheus/alerts.yml", () => {
  const rules = (
    parse(read("infra/prometheus/alerts.yml")) as {
      groups: { name: string; rules: { alert: string; expr: string; for?: string; labels?: object }[] }[];
    }
  ).groups.flatMap((group) => group.rules);

  it("passes promtool check rules and its unit tests (promtool test rules alerts.test.yml)", () => {
    const checked = run("promtool", ["check", "rules", "infra/prometheus/alerts.yml"]);
    if (checked.error)
      throw new Error(
        `promtool is missing (Debian package prometheus; npm run setup installs it): ${checked.error.message}`,
      );
    expect(`${checked.stdout}${checked.stderr}`).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(checked.status).toBe(0);
    const tested = run("promtool", ["test", "rules", "infra/prometheus/alerts.test.yml"]);
    expect(`${tested.stdout}${tested.stderr}`).toContain("SUCCESS");
    expect(tested.status).toBe(0);
  });

  it("alerts on backlog, unconsumed queues, API 5xx, failing jobs and webhooks, on metrics octavo exports", () => {
    expect(rules.map((rule) => rule.alert)).toEqual([
      "OctavoQueueBacklogGrowing",
      "OctavoQueueNotConsumed",
      "OctavoApiErrors",
      "OctavoJobsFailing",
      "OctavoWebhooksFailing",
      "OctavoNotScraped",
    ]);
    for (const rule of rules) {
      expect(promqlProblems(rule.expr, exported), rule.alert).toEqual([]);
      expect(rule.for, rule.alert).toBeDefined();
      expect(rule.labels, rule.alert).toHaveProperty("severity");
    }
    // The failure codes the job alert counts are codes jobs can end with.
    const codes = rules
      .flatMap((rule) => parsePromql(rule.expr).selectors)
      .flatMap((selector) => (selector.matchers.code ?? "").split("|"))
      .filter((code) => code !== "");
    expect(codes.length).toBeGreaterThan(0);
    for (const code of codes) expect([...jobErrorCodes, "unknown"]).toContain(code);
  });

  it("becomes a valid PrometheusRule the way infra/README.md wraps it (indented under spec)", () => {
    const header =
      "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata: {name: octavo}\nspec:\n";
    const indented = read("infra/prometheus/alerts.yml")
      .split("\n")
      .map((line) => `  ${line}`)
      .join("\n");
    const wrapped = parse(`${header}${indented}`) as { spec: { groups: { rules: unknown[] }[] } };
    expect(() => PrometheusRule.prototype.validate.call(wrapped)).not.toThrow();
    expect(wrapped.spec.groups.flatMap((group) => group.rules)).toHaveLength(rules.length);
  });
});

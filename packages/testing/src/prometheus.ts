import { spawnSync } from "node:child_process";

/**
 * `promtool check metrics` (Debian's prometheus package) on an exposition: Prometheus's own parser
 * and its naming lint (counter suffixes, units, help text). Empty problems: accepted.
 */
export function promtoolProblems(exposition: string): string {
  const result = spawnSync("promtool", ["check", "metrics"], { input: exposition, encoding: "utf8" });
  if (result.error) throw result.error;
  return result.status === 0 ? "" : `${result.stdout}${result.stderr}`.trim() || `exit ${result.status}`;
}

/** Label values as the exposition format escapes them. */
function escapeLabel(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll('"', '\\"');
}

/**
 * The value of one sample of an exposition, e.g. `sample(text, "octavo_jobs_accepted_total",
 * { operation: "merge" })`; 0 when the series is absent (a counter nothing has incremented yet).
 * The labels given must be all of the series' labels, in any order.
 */
export function sample(exposition: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${escapeLabel(value)}"`)
    .sort();
  for (const line of exposition.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = (match[2] ?? "").match(/[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"/g) ?? [];
    if (found.length === wanted.length && [...found].sort().every((label, i) => label === wanted[i]))
      return Number(match[3]);
  }
  return 0;
}

#!/usr/bin/env node
// npm run lint:openapi: the OpenAPI document the API serves, built from @octavo/contracts, linted by
// Redocly and by Spectral (configs: redocly.yaml, .spectral.yaml, .redocly.lint-ignore.yaml). Any
// error or warning fails; hints and infos are printed only. Needs a build (`npm run setup`).
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { buildOpenApiDocument } = await import(join(root, "packages/contracts/dist/index.js"));

// Written where .redocly.lint-ignore.yaml names it (its keys are paths relative to the repository).
const scratch = join(root, ".octavo/lint-openapi");
mkdirSync(scratch, { recursive: true });
const file = join(scratch, "openapi.json");
// The served document carries the deployment's OCTAVO_PUBLIC_URL here.
writeFileSync(file, JSON.stringify(buildOpenApiDocument({ serverUrl: "https://pdf.example.com" }), null, 2));

function run(tool, args) {
  // No telemetry and no update check: a lint makes no outbound call.
  const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
  const result = spawnSync(join(root, "node_modules/.bin", tool), args, { cwd: root, encoding: "utf8", env });
  if (result.error) throw result.error;
  return result;
}

/** Redocly: exits 0 on warnings, so its JSON report is counted. */
function redocly() {
  const result = run("redocly", ["lint", file, "--config", "redocly.yaml", "--format", "json"]);
  const report = JSON.parse(result.stdout);
  const problems = report.problems.filter((problem) => ["error", "warn"].includes(problem.severity));
  for (const problem of problems) {
    const where = problem.location.map((location) => location.pointer).join(", ");
    console.error(`redocly ${problem.severity} ${problem.ruleId}: ${problem.message} (${where})`);
  }
  return problems.length;
}

/** Spectral: severity 0 is an error, 1 a warning. */
function spectral() {
  const result = run("spectral", [
    "lint",
    file,
    "--ruleset",
    ".spectral.yaml",
    "--format",
    "json",
    "--quiet",
  ]);
  const report = result.stdout.trim() === "" ? [] : JSON.parse(result.stdout);
  const problems = report.filter((problem) => problem.severity <= 1);
  for (const problem of problems) {
    const level = problem.severity === 0 ? "error" : "warning";
    console.error(`spectral ${level} ${problem.code}: ${problem.message} (#/${problem.path.join("/")})`);
  }
  if (result.status !== 0 && problems.length === 0) {
    console.error(result.stderr || result.stdout);
    return 1;
  }
  return problems.length;
}

const found = redocly() + spectral();
if (found > 0) {
  console.error(`lint:openapi: ${found} errors and warnings in the served OpenAPI document (${file})`);
  process.exit(1);
}
console.log("lint:openapi: Redocly and Spectral find no error and no warning in the served OpenAPI document");

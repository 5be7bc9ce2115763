// The fleet on one Docker host, as `npm run test:fleet`, `npm run test:chaos` and `npm run
// test:upgrade` drive it: images built from a source tree, docker-compose.yml with the test's
// overrides, the containers of a service, their JSON logs, SQL on the fleet's PostgreSQL, accounts
// made with the CLI, and a teardown that leaves nothing behind.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const ROLES = [
  "api",
  "worker-pdf",
  "worker-office",
  "worker-heavy",
  "worker-webhooks",
  "worker-pipeline",
];
export const SERVICES = ["postgres", "redis", "s3", "proxy"];
const BASE_IMAGE = process.env.FLEET_BASE_IMAGE ?? "octavo-base:bookworm";

export class FleetFailure extends Error {}

/** Log lines stamped with the seconds since `started`, under a tag: `[chaos  12.3s] …`. */
export function logger(tag, started = Date.now()) {
  return (message) => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(7);
    process.stdout.write(`[${tag} ${seconds}s] ${message}\n`);
  };
}

/** Runs a command to its end; throws with its output when it fails (unless `allowFailure`). */
export function run(
  command,
  args,
  { input, allowFailure = false, quiet = true, env = process.env, cwd = ROOT } = {},
) {
  const result = spawnSync(command, args, {
    cwd,
    env,
    input,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
    stdio: quiet ? "pipe" : ["pipe", "inherit", "inherit"],
  });
  if (result.error) throw result.error;
  if (result.status !== 0 && !allowFailure)
    throw new FleetFailure(
      `${command} ${args.join(" ")} exited ${result.status}\n${result.stdout ?? ""}${result.stderr ?? ""}`,
    );
  return result;
}

export async function waitFor(what, probe, timeoutMs, everyMs = 1000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new FleetFailure(`timed out waiting for ${what}`);
    await delay(everyMs);
  }
}

/** `docker compose` (v2) when the plugin is there, else Debian's docker-compose 1.29: same arguments. */
let composeCommand;
function composeCli() {
  composeCommand ??=
    run("docker", ["compose", "version"], { allowFailure: true }).status === 0
      ? ["docker", ["compose"]]
      : ["docker-compose", []];
  return composeCommand;
}
export const composeName = () => composeCli().flat().join(" ");

// ---------------------------------------------------------------------------------------------
// Images

/** The debootstrapped Debian 12 every image starts from, made once (root, Debian's archive). */
export function ensureBaseImage(log) {
  if (run("docker", ["image", "inspect", BASE_IMAGE], { allowFailure: true }).status === 0) {
    log(`base image ${BASE_IMAGE}: present`);
    return;
  }
  log(`base image ${BASE_IMAGE}: debootstrap --variant=minbase bookworm (Debian's archive)`);
  const dir = mkdtempSync(join(tmpdir(), "octavo-base-"));
  try {
    run("debootstrap", ["--variant=minbase", "bookworm", dir, "http://deb.debian.org/debian"]);
    run("sh", ["-c", `tar -C '${dir}' -c . | docker import - '${BASE_IMAGE}'`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The PEM text of the CA certificates the builds' downloads must trust besides Debian's. */
function buildCaCert() {
  const local = "/usr/local/share/ca-certificates";
  const files = process.env.FLEET_BUILD_CA_CERT
    ? [process.env.FLEET_BUILD_CA_CERT]
    : existsSync(local)
      ? readdirSync(local)
          .filter((name) => name.endsWith(".crt"))
          .map((name) => join(local, name))
      : [];
  return files.map((file) => readFileSync(file, "utf8").trim()).join("\n");
}

function buildImage(tag, dockerfile, target, context, cwd) {
  const t0 = Date.now();
  run(
    "docker",
    [
      "build",
      "--network",
      "host",
      "--build-arg",
      `BASE_IMAGE=${BASE_IMAGE}`,
      "--build-arg",
      `BUILD_CA_CERT=${buildCaCert()}`,
      ...(process.env.FLEET_NO_CACHE === "1" ? ["--no-cache"] : []),
      "-f",
      dockerfile,
      "--target",
      target,
      "-t",
      tag,
      context,
    ],
    { cwd },
  );
  const seconds = (Date.now() - t0) / 1000;
  const bytes = Number(run("docker", ["image", "inspect", "--format", "{{.Size}}", tag]).stdout.trim());
  return { tag, seconds, megabytes: Math.round(bytes / 1e6) };
}

/**
 * The six role images `octavo-<role>:<tag>` from the source tree at `source` (this working tree by
 * default, uncommitted changes included) and, unless `services` is false, the backing services' images.
 */
export function buildImages(log, { tag = "local", source = ROOT, services = true } = {}) {
  const built = [];
  for (const role of ROLES)
    built.push(buildImage(`octavo-${role}:${tag}`, "infra/docker/Dockerfile", role, ".", source));
  if (services)
    for (const service of SERVICES)
      built.push(
        buildImage(
          `octavo-fleet-${service}:local`,
          "infra/fleet/services.Dockerfile",
          service,
          "infra/fleet",
          ROOT,
        ),
      );
  const cache = process.env.FLEET_NO_CACHE === "1" ? "from scratch" : "with the layer cache as it was";
  log(`images (build time ${cache}; size):`);
  for (const image of built)
    log(
      `  ${image.tag.padEnd(34)} ${image.seconds.toFixed(1).padStart(7)} s ${String(image.megabytes).padStart(6)} MB`,
    );
  return built;
}

// ---------------------------------------------------------------------------------------------
// One compose project

/**
 * A compose project of docker-compose.yml and the given override files, on the proxy port `httpPort`,
 * with fresh secrets. Every helper names its containers by the project's compose labels.
 */
export function composeProject({ project, files, httpPort, imageTag = "local" }) {
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  const env = {
    ...process.env,
    HTTP_PORT: String(httpPort),
    PUBLIC_URL: baseUrl,
    IMAGE_TAG: imageTag,
    SECRET_KEY: randomBytes(32).toString("hex"),
    POSTGRES_PASSWORD: randomBytes(12).toString("hex"),
    // s3rver's fixed credentials; docker-compose.yml hands these to octavo as its AWS keys.
    MINIO_ROOT_USER: "S3RVER",
    MINIO_ROOT_PASSWORD: "S3RVER",
  };
  const fileArgs = ["-p", project, ...["docker-compose.yml", ...files].flatMap((file) => ["-f", file])];

  function compose(args, options = {}) {
    const [command, prefix] = composeCli();
    return run(command, [...prefix, ...fileArgs, ...args], { env: options.env ?? env, ...options });
  }

  /** Containers of one service of the project: name, status and id. */
  function containersOf(service, { all = false } = {}) {
    const out = run("docker", [
      "ps",
      ...(all ? ["-a"] : []),
      "--filter",
      `label=com.docker.compose.project=${project}`,
      "--filter",
      `label=com.docker.compose.service=${service}`,
      "--format",
      "{{.Names}}\t{{.Status}}\t{{.ID}}",
    ]).stdout;
    return out
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [name, status, id] = line.split("\t");
        return { name, status, id };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  function sql(query) {
    return compose([
      "exec",
      "-T",
      "postgres",
      "psql",
      "-U",
      "octavo",
      "-d",
      "octavo",
      "-tAc",
      query,
    ]).stdout.trim();
  }

  /** Rows of a query as objects (PostgreSQL's json_agg). */
  function sqlRows(query) {
    const text = sql(`select coalesce(json_agg(t), '[]') from (${query}) t`);
    return JSON.parse(text);
  }

  async function createAccount(plan = "business") {
    const email = `fleet-${randomBytes(4).toString("hex")}@example.com`;
    const { stdout } = compose([
      "run",
      "--rm",
      "--no-deps",
      "api",
      "node",
      "apps/cli/bin/octavo.mjs",
      "accounts",
      "create",
      "--email",
      email,
      "--plan",
      plan,
    ]);
    return { plan, ...JSON.parse(stdout.slice(stdout.indexOf("{"))) };
  }

  function leftovers() {
    const label = `label=com.docker.compose.project=${project}`;
    return {
      containers: run("docker", ["ps", "-aq", "--filter", label]).stdout.trim(),
      networks: run("docker", ["network", "ls", "-q", "--filter", label]).stdout.trim(),
      volumes: run("docker", ["volume", "ls", "-q", "--filter", label]).stdout.trim(),
    };
  }

  /** Down with volumes; the failure it finds (something left behind), or undefined. */
  function tearDown(log, { failed = false } = {}) {
    if (failed) compose(["logs", "--no-color", "--tail", "40"], { allowFailure: true, quiet: false });
    compose(["down", "-v", "--remove-orphans", "--timeout", "30"], { allowFailure: true });
    const left = leftovers();
    if (left.containers || left.networks || left.volumes)
      return new FleetFailure(`left behind: ${JSON.stringify(left)}`);
    log("ok: torn down, no container, network or volume of the project left");
    return undefined;
  }

  /**
   * Runs `body`, then takes the project down unless `keep`. Returns the run's failure (what the body threw,
   * or what the teardown left behind), also written to stderr with exit code 1. The containers' last log
   * lines are printed first for the failures `showLogs` picks (by default, anything but a FleetFailure).
   */
  async function runThenTearDown(
    log,
    body,
    { keep = false, showLogs = (error) => !(error instanceof FleetFailure) } = {},
  ) {
    let failure;
    try {
      await body();
    } catch (error) {
      failure = error;
    }
    if (keep) log(`the fleet stays up: docker-compose -p ${project} down -v`);
    else {
      const leftBehind = tearDown(log, { failed: failure !== undefined && showLogs(failure) });
      failure ??= leftBehind;
    }
    if (failure) {
      process.stderr.write(`${failure instanceof FleetFailure ? failure.message : failure.stack}\n`);
      process.exitCode = 1;
    }
    return failure;
  }

  return { project, baseUrl, env, compose, containersOf, sql, sqlRows, createAccount, runThenTearDown };
}

/** JSON log lines of a container with this message (every one when `msg` is undefined). */
export function logLines(container, msg) {
  const { stdout, stderr } = run("docker", ["logs", container], { allowFailure: true });
  return `${stdout}\n${stderr}`
    .split("\n")
    .filter((line) => line.startsWith("{") && (msg === undefined || line.includes(`"msg":"${msg}"`)))
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        return undefined;
      }
    })
    .filter(Boolean);
}

const MAGIC = {
  "application/pdf": "%PDF-",
  "image/png": "\x89PNG",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "PK",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "PK",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "PK",
};

/**
 * Whether the bytes are a file of the content type: its magic bytes; for JSON (pdf-info's report,
 * PDF to Markdown's json), JSON; for text (PDF to Markdown's Markdown and text), non-empty UTF-8.
 */
export function isContentType(bytes, contentType) {
  if (/^text\/(markdown|plain); charset=utf-8$/.test(contentType)) {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes).trim() !== "";
    } catch {
      return false;
    }
  }
  if (contentType === "application/json") {
    try {
      JSON.parse(bytes.toString("utf8"));
      return true;
    } catch {
      return false;
    }
  }
  const magic = MAGIC[contentType];
  return magic !== undefined && bytes.subarray(0, magic.length).toString("latin1") === magic;
}

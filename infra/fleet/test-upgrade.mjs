#!/usr/bin/env node
// `npm run test:upgrade`: a rolling upgrade under load, a deploy that must be a non-event.
//   1. the role images of an earlier commit (`--from`, by default the last commit before the chaos
//      work began) built from a git worktree and tagged `:upgrade-from`, and this tree's as
//      `npm run test:fleet` builds them (`:local`);
//   2. the chaos run's fleet on the earlier images, and its customers' mixed traffic;
//   3. after a minute, the migration of this tree (`octavo migrate`) while the earlier release serves,
//      then every container replaced one at a time, workers first, the API nodes last: `docker stop`
//      (a worker drains, an API node finishes its requests), then `up --no-recreate` starts its
//      successor on the new image and the next waits until that one is healthy;
//   4. traffic on the new release for a minute more, the drain, the chaos run's invariants (memory
//      aside: every process is new).
// Migrations must be safe while the earlier release serves: they only add (DEVELOPERS.md, "Migrations").
//
//   npm run test:upgrade -- [--from <commit or tag>] [--seed N] [--rate 30] [--keep]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { parseArgs } from "node:util";
import { seededRandom } from "./chaos/faults.mjs";
import { checkOutcome, drain, startFleet, summary } from "./chaos/run.mjs";
import { sendTraffic } from "./chaos/traffic.mjs";
import {
  buildImages,
  composeName,
  composeProject,
  ensureBaseImage,
  FleetFailure,
  logger,
  ROOT,
  run,
  waitFor,
} from "./fleet.mjs";

// e0ac46c: the last commit before issue 36 (the chaos fleet) began.
const DEFAULT_FROM = "e0ac46c";
const { values: args } = parseArgs({
  options: {
    from: { type: "string", default: DEFAULT_FROM },
    seed: { type: "string", default: String(Math.floor(Math.random() * 2 ** 31)) },
    rate: { type: "string", default: "30" },
    keep: { type: "boolean", default: false },
  },
});
const seed = Number(args.seed);
const perMinute = Number(args.rate);
const FROM_TAG = "upgrade-from";
// Workers first (a new worker takes what old API nodes queue), the API nodes last.
const ORDER = ["worker-pdf", "worker-heavy", "worker-office", "worker-pipeline", "worker-webhooks", "api"];
const log = logger("upgrade");
const fleet = composeProject({
  project: "octavo-upgrade",
  files: ["infra/fleet/compose.test.yml", "infra/fleet/chaos/compose.chaos.yml"],
  httpPort: Number(process.env.FLEET_HTTP_PORT ?? 18200),
  imageTag: FROM_TAG,
});
const newRelease = { ...fleet.env, IMAGE_TAG: "local" };

/** The earlier release's role images, built from a worktree of `ref`. */
function buildEarlierImages(ref) {
  const commit = run("git", ["rev-parse", "--short", `${ref}^{commit}`]).stdout.trim();
  const dir = mkdtempSync(join(tmpdir(), "octavo-upgrade-from-"));
  try {
    run("git", ["worktree", "add", "--detach", dir, commit]);
    log(
      `the earlier release: ${commit} (${run("git", ["log", "-1", "--format=%s", commit]).stdout.trim().slice(0, 80)})`,
    );
    buildImages(log, { tag: FROM_TAG, source: dir, services: false });
  } finally {
    run("git", ["worktree", "remove", "--force", dir], { allowFailure: true });
    rmSync(dir, { recursive: true, force: true });
  }
  return commit;
}

const healthy = (name) =>
  run("docker", ["inspect", "--format", "{{.State.Health.Status}}", name], {
    allowFailure: true,
  }).stdout.trim() === "healthy";

/** Replaces one container of `service` by one on the new image, and waits until the new one is healthy. */
async function replaceOne(service, old, count) {
  const start = Date.now();
  const before = new Set(fleet.containersOf(service, { all: true }).map(({ id }) => id));
  run("docker", ["stop", "--time", "75", old]);
  run("docker", ["rm", old]);
  fleet.compose(
    ["up", "-d", "--no-deps", "--no-build", "--no-recreate", "--scale", `${service}=${count}`, service],
    {
      env: newRelease,
    },
  );
  // The successor is the container that was not there before (compose may give it the old one's name).
  const successor = await waitFor(
    `${service}'s new container to be healthy`,
    async () => {
      const fresh = fleet.containersOf(service).find(({ id }) => !before.has(id));
      return fresh && imageOf(fresh.name) === `octavo-${service}:local` && healthy(fresh.name)
        ? fresh.name
        : undefined;
    },
    180_000,
  );
  return {
    name: `replace ${old}`,
    did: `stopped, removed; ${successor} healthy on the new image`,
    start,
    end: Date.now(),
  };
}

const imageOf = (name) => run("docker", ["inspect", "--format", "{{.Config.Image}}", name]).stdout.trim();

/** Migrations first, then every container, one at a time. */
async function rollOut() {
  const windows = [];
  const start = Date.now();
  const output = fleet.compose(["run", "--rm", "--no-deps", "migrate"], { env: newRelease }).stdout;
  const { applied } = JSON.parse(output.slice(output.indexOf("{")));
  const did = `octavo migrate on the new image while the earlier release serves: ${applied.length > 0 ? `applied ${applied.join(", ")}` : "nothing to apply"}`;
  windows.push({ name: "migrate", did, start, end: Date.now() });
  log(did);
  for (const service of ORDER) {
    const olds = fleet.containersOf(service).map(({ name }) => name);
    for (const old of olds) {
      const window = await replaceOne(service, old, olds.length);
      windows.push(window);
      log(`${window.name}: ${window.did} (${((window.end - window.start) / 1000).toFixed(1)} s)`);
    }
  }
  return windows;
}

async function upgradeRun() {
  ensureBaseImage(log);
  const from = buildEarlierImages(args.from);
  buildImages(log);
  const accounts = await startFleet(fleet, log);
  const running = fleet
    .containersOf("api")
    .concat(fleet.containersOf("worker-pdf"))
    .map(({ name }) => imageOf(name));
  log(`serving on the earlier release: ${[...new Set(running)].join(", ")}`);
  // Traffic from a minute before the roll-out to a minute after it.
  let rolledOut;
  const trafficDone = sendTraffic({
    accounts,
    baseUrl: fleet.baseUrl,
    random: seededRandom(seed),
    until: new Promise((resolve) => {
      rolledOut = resolve;
    }).then(() => delay(60_000)),
    perMinute,
    log,
  });
  await delay(60_000);
  const windows = await rollOut();
  rolledOut();
  const { submissions, answers } = await trafficDone;
  log(`traffic stopped: ${submissions.length} submissions; draining`);
  await drain(fleet, log);
  const outcome = await checkOutcome({ fleet, accounts, submissions, answers, windows });
  const title = `upgrade run: ${from} → this tree, seed ${seed}, traffic at ${perMinute}/min, ${composeName()}`;
  process.stdout.write(summary({ title, submissions, windows, ...outcome }));
  return outcome;
}

log(`compose: ${composeName()}; proxy on ${fleet.baseUrl}; from ${args.from}; seed ${seed}; in ${ROOT}`);
await fleet.runThenTearDown(
  log,
  async () => {
    const { checks } = await upgradeRun();
    if (checks.some((check) => !check.pass)) throw new FleetFailure("an invariant failed");
  },
  { keep: args.keep },
);

#!/usr/bin/env node
// `npm run test:chaos`: the fleet under a steady mixed load while every part of it fails in turn, then
// the invariants a payments company holds its job system to, checked from the database, S3, the
// webhook receiver's log and the API (infra/README.md, "The chaos run").
//   1. the images, as `npm run test:fleet` builds them (infra/fleet/fleet.mjs), and the fleet of
//      docker-compose.yml + infra/fleet/compose.test.yml + infra/fleet/chaos/compose.chaos.yml: two
//      API nodes behind the proxy, two worker-pdf, one worker of each other class, a webhook receiver;
//   2. three accounts (starter, pro, business) send the mix of infra/fleet/chaos/traffic.mjs for the
//      run's length with the SDK, every job with a webhook_url;
//   3. after a fault-free warm-up minute (the memory baseline), the faults of
//      infra/fleet/chaos/faults.mjs, each once, in an order and at times drawn from the seed;
//   4. the traffic stops, the fleet drains, the invariants are checked and printed; exit 1 if any fails.
// Like test:fleet it needs Docker; it is not part of `npm test`.
//
//   npm run test:chaos -- [--minutes 10] [--seed N] [--rate 30] [--keep]
// --rate: submissions a minute over the three accounts. --keep leaves the fleet up afterwards
// (`docker-compose -p octavo-chaos down -v`). FLEET_HTTP_PORT (18100) and RECEIVER_CONTROL_PORT
// (18098) are the loopback ports of the proxy and of the receiver's control.
import { setTimeout as delay } from "node:timers/promises";
import { parseArgs } from "node:util";
import { runFaults, schedule, seededRandom } from "./chaos/faults.mjs";
import { memoryByService } from "./chaos/invariants.mjs";
import { checkOutcome, drain, seconds, startFleet, summary } from "./chaos/run.mjs";
import { sendTraffic } from "./chaos/traffic.mjs";
import {
  buildImages,
  composeName,
  composeProject,
  ensureBaseImage,
  FleetFailure,
  logger,
  ROLES,
} from "./fleet.mjs";

const { values: args } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    seed: { type: "string", default: String(Math.floor(Math.random() * 2 ** 31)) },
    rate: { type: "string", default: "30" },
    keep: { type: "boolean", default: false },
  },
});
const minutes = Number(args.minutes);
const seed = Number(args.seed);
const perMinute = Number(args.rate);
if (!(minutes >= 3) || !Number.isInteger(seed) || !(perMinute > 0))
  throw new Error("--minutes must be 3 or more, --seed an integer, --rate a positive number");

const WARM_UP_MS = 60_000;
const log = logger("chaos");
const fleet = composeProject({
  project: "octavo-chaos",
  files: ["infra/fleet/compose.test.yml", "infra/fleet/chaos/compose.chaos.yml"],
  httpPort: Number(process.env.FLEET_HTTP_PORT ?? 18100),
});
const controlUrl = `http://127.0.0.1:${process.env.RECEIVER_CONTROL_PORT ?? 18098}`;
const OBSERVED = [...ROLES, "postgres", "redis", "minio", "lb", "webhook-receiver"];

/** Worker classes with jobs running now (from the database and the catalogue). */
async function activeClasses() {
  const { operations } = await import("../../packages/contracts/dist/index.js");
  const classOf = new Map(operations.map((spec) => [spec.id, spec.workerClass]));
  const running = fleet
    .sql("select distinct operation from jobs where status = 'active'")
    .split("\n")
    .filter(Boolean);
  return [
    ...new Set(running.map((operation) => (operation === "pipeline" ? "pipeline" : classOf.get(operation)))),
  ];
}

async function chaosRun() {
  ensureBaseImage(log);
  buildImages(log);
  const accounts = await startFleet(fleet, log);
  const faultRandom = seededRandom(seed ^ 0x5bd1e995);
  const startedAt = Date.now();
  const lengthMs = minutes * 60_000;
  const tracks = schedule(faultRandom, WARM_UP_MS + 15_000, lengthMs - 75_000);
  for (const track of tracks)
    for (const fault of track) log(`  planned at ${seconds(fault.atMs)} s: ${fault.name}`);
  const trafficDone = sendTraffic({
    accounts,
    baseUrl: fleet.baseUrl,
    random: seededRandom(seed),
    durationMs: lengthMs,
    perMinute,
    log,
  });
  await delay(WARM_UP_MS);
  const warm = memoryByService(fleet, OBSERVED);
  const windows = await runFaults(
    tracks,
    { fleet, random: faultRandom, log, activeClasses, controlUrl },
    startedAt,
  );
  const { submissions, answers } = await trafficDone;
  log(`traffic stopped: ${submissions.length} submissions; draining`);
  await drain(fleet, log);
  const memory = { warm, end: memoryByService(fleet, OBSERVED) };
  const outcome = await checkOutcome({ fleet, accounts, submissions, answers, windows, memory });
  const title = `chaos run: seed ${seed}, ${minutes} min of traffic at ${perMinute}/min, ${composeName()}`;
  process.stdout.write(summary({ title, submissions, windows, ...outcome }));
  return outcome;
}

log(`compose: ${composeName()}; proxy on ${fleet.baseUrl}; seed ${seed}; ${minutes} min`);
await fleet.runThenTearDown(
  log,
  async () => {
    const { checks } = await chaosRun();
    if (checks.some((check) => !check.pass)) throw new FleetFailure("an invariant failed");
  },
  { keep: args.keep },
);

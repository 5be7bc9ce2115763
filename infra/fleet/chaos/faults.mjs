// The chaos run's faults. Each one breaks a part of the fleet the way production does, waits, and
// mends it, and returns the window it lasted. The schedule is shuffled by the run's seed, so a failing
// run is replayed with `--seed`.
import { setTimeout as delay } from "node:timers/promises";
import { run } from "../fleet.mjs";

/** A small seeded generator (mulberry32): the same seed, the same schedule and the same traffic. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORKER_CLASSES = ["pdf", "office", "heavy", "webhooks", "pipeline"];
const docker = (...args) => run("docker", args);
const pickOne = (random, items) => items[Math.floor(random() * items.length)];

/** Sets how the webhook receiver answers (infra/fleet/chaos/receiver.mjs). */
async function receiverMode(controlUrl, mode) {
  const response = await fetch(`${controlUrl}/mode`, { method: "POST", body: JSON.stringify({ mode }) });
  if (response.status !== 204) throw new Error(`receiver mode ${mode}: ${response.status}`);
}

/** The receiver answering as `mode` says for `ms`, then normally again. */
function receiverFault(name, mode, ms, did) {
  return {
    name,
    track: "receiver",
    async run({ controlUrl }) {
      await receiverMode(controlUrl, mode);
      await delay(ms);
      await receiverMode(controlUrl, "ok");
      return `${did} for ${ms / 1000} s`;
    },
  };
}

/**
 * The fleet's faults, each at least once. `ctx`: { fleet, random, log, activeClasses(), controlUrl }. Each `run` resolves when the fault is mended, with what it did.
 */
export function faultCatalogue() {
  const killWorker = (workerClass) => ({
    name: `kill worker-${workerClass}`,
    track: "fleet",
    async run({ fleet, random }) {
      const { name } = pickOne(random, fleet.containersOf(`worker-${workerClass}`));
      docker("kill", "--signal", "KILL", name);
      await delay(5_000);
      docker("start", name);
      return `docker kill ${name}; 5 s; docker start`;
    },
  });
  return [
    ...WORKER_CLASSES.map(killWorker),
    {
      name: "stop a worker mid-job",
      track: "fleet",
      async run({ fleet, random, activeClasses }) {
        // A class that runs in one container, so the container stopped is the one running the job.
        const single = WORKER_CLASSES.filter(
          (workerClass) => fleet.containersOf(`worker-${workerClass}`).length === 1,
        );
        const deadline = Date.now() + 60_000;
        let busy = [];
        while (busy.length === 0 && Date.now() < deadline) {
          busy = (await activeClasses()).filter((workerClass) => single.includes(workerClass));
          if (busy.length === 0) await delay(250);
        }
        const workerClass = busy.length > 0 ? pickOne(random, busy) : pickOne(random, single);
        const [{ name }] = fleet.containersOf(`worker-${workerClass}`);
        docker("stop", "--time", "60", name);
        docker("start", name);
        const running = busy.length > 0 ? "a job of its class running" : "no job running within a minute";
        return `docker stop ${name} (SIGTERM, ${running}); docker start`;
      },
    },
    {
      name: "kill an API node",
      track: "fleet",
      async run({ fleet, random }) {
        const { name } = pickOne(random, fleet.containersOf("api"));
        docker("kill", "--signal", "KILL", name);
        await delay(5_000);
        docker("start", name);
        return `docker kill ${name}; 5 s; docker start`;
      },
    },
    {
      name: "restart Redis",
      track: "fleet",
      async run({ fleet }) {
        const [{ name }] = fleet.containersOf("redis");
        docker("restart", "--time", "10", name);
        return `docker restart ${name} (SIGTERM: an AOF-persisted shutdown)`;
      },
    },
    {
      name: "kill Redis",
      track: "fleet",
      async run({ fleet }) {
        const [{ name }] = fleet.containersOf("redis");
        docker("kill", "--signal", "KILL", name);
        await delay(3_000);
        docker("start", name);
        return `docker kill ${name} (SIGKILL: the AOF's last second may be lost); 3 s; docker start`;
      },
    },
    {
      name: "restart PostgreSQL",
      track: "fleet",
      async run({ fleet }) {
        const [{ name }] = fleet.containersOf("postgres");
        docker("restart", "--time", "10", name);
        return `docker restart ${name}`;
      },
    },
    {
      name: "stop S3 for 30 s",
      track: "fleet",
      async run({ fleet }) {
        const [{ name }] = fleet.containersOf("minio");
        docker("stop", name);
        await delay(30_000);
        docker("start", name);
        return `docker stop ${name}; 30 s; docker start`;
      },
    },
    {
      name: "cut a worker from Redis for 30 s",
      track: "fleet",
      async run({ fleet, random }) {
        const workerClass = pickOne(random, ["pdf", "heavy", "office"]);
        const { name } = pickOne(random, fleet.containersOf(`worker-${workerClass}`));
        // The compose network, the container's only one: Redis, PostgreSQL and S3 are all behind it.
        const network = run("docker", [
          "inspect",
          "--format",
          "{{range $name, $_ := .NetworkSettings.Networks}}{{$name}}{{end}}",
          name,
        ]).stdout.trim();
        docker("network", "disconnect", network, name);
        await delay(30_000);
        docker("network", "connect", network, name);
        return `docker network disconnect ${network} ${name}; 30 s; connect`;
      },
    },
    receiverFault("webhook receiver answers 500 for a minute", "error", 60_000, "500 to every delivery"),
    receiverFault("webhook receiver down for 20 s", "down", 20_000, "not listening (connections refused)"),
    receiverFault("webhook receiver slow (10 s answers) for 30 s", "slow", 30_000, "each answer after 10 s"),
  ];
}

/** The seeded order of each track's faults, spread evenly over [startMs, endMs) of the run. */
export function schedule(random, startMs, endMs) {
  const shuffled = (items) => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  };
  const catalogue = faultCatalogue();
  return ["fleet", "receiver"].map((track) => {
    const faults = shuffled(catalogue.filter((fault) => fault.track === track));
    const slot = (endMs - startMs) / faults.length;
    return faults.map((fault, index) => ({
      ...fault,
      atMs: Math.round(startMs + index * slot + random() * slot * 0.2),
    }));
  });
}

/**
 * Runs each track's faults in order at their times, one at a time per track, each followed by a pause
 * for the fleet to recover. Returns the windows: name, what was done, start and end (ms since epoch).
 */
export async function runFaults(tracks, ctx, runStartedAt) {
  const windows = [];
  await Promise.all(
    tracks.map(async (faults) => {
      for (const fault of faults) {
        const wait = runStartedAt + fault.atMs - Date.now();
        if (wait > 0) await delay(wait);
        const start = Date.now();
        ctx.log(`fault: ${fault.name}`);
        const did = await fault.run(ctx);
        const end = Date.now();
        windows.push({ name: fault.name, did, start, end });
        ctx.log(`fault mended: ${fault.name} (${did}; ${((end - start) / 1000).toFixed(1)} s)`);
      }
    }),
  );
  return windows.sort((a, b) => a.start - b.start);
}

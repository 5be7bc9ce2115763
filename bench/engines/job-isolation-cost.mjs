#!/usr/bin/env node
// What each way of keeping one job's document away from the next costs, in one run on one machine:
//
//   fresh process   a new Node process that loads the engines and runs one rotate (the old model)
//   warm, shared    the rotate in a warm process, MuPDF shared across jobs (no isolation: the floor)
//   warm, renewed   the rotate in a warm process, then a fresh MuPDF instance (the model chosen)
//   warm, renewed + full GC   the same, plus a full garbage collection after every job
//
// Median wall milliseconds per job, and mean CPU milliseconds per job (user + system, this process and
// the children it waited for: qpdf, and the fresh Node process).
// Run after `npm test` or `npm run setup`:
//
//   node --expose-gc bench/engines/job-isolation-cost.mjs [--jobs 60]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { median } from "../support.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const { values } = parseArgs({ options: { jobs: { type: "string", default: "60" } } });
const jobs = Number(values.jobs);
if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");

const work = mkdtempSync(join(tmpdir(), "octavo-bench-isolation-"));
const input = join(work, "one.pdf");
execFileSync("qpdf", ["--empty", "--pages", join(root, "examples", "sample-a.pdf"), "1", "--", input]);
const enginesUrl = pathToFileURL(join(root, "packages", "engines", "dist", "index.js")).href;
const { rotate } = await import(enginesUrl);
const { renewMupdf } = await import(pathToFileURL(join(root, "packages", "mupdf", "dist", "index.js")).href);

/** CPU milliseconds used so far by this process and by the children it has waited for (qpdf, Node). */
function cpuMs() {
  const self = process.resourceUsage();
  // /proc/<pid>/stat fields 16 and 17: the reaped children's CPU, in ticks of 10 ms.
  const fields = readFileSync(`/proc/${process.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (self.userCPUTime + self.systemCPUTime) / 1000 + (Number(fields[13]) + Number(fields[14])) * 10;
}

async function measure(name, job) {
  const wall = [];
  let cpu = 0;
  for (let index = 0; index <= jobs; index += 1) {
    const dir = mkdtempSync(join(work, "job-"));
    const [wallBefore, cpuBefore] = [performance.now(), cpuMs()];
    await job(dir);
    // Job 0 warms up module loads and is not counted.
    if (index > 0) {
      wall.push(performance.now() - wallBefore);
      cpu += cpuMs() - cpuBefore;
    }
    rmSync(dir, { recursive: true, force: true });
  }
  const result = {
    model: name,
    wallMsMedian: Number(median(wall).toFixed(1)),
    cpuMsPerJob: Number((cpu / jobs).toFixed(1)),
  };
  console.error(JSON.stringify(result));
  return result;
}

const rotateIn = (dir) => rotate({ path: input, name: "one.pdf" }, { angle: 90 }, { workDir: dir });
const freshScript = `const { rotate } = await import(${JSON.stringify(enginesUrl)});
await rotate({ path: process.argv[1], name: "one.pdf" }, { angle: 90 }, { workDir: process.argv[2] });`;
const results = [
  await measure("fresh process", async (dir) => {
    execFileSync(process.execPath, ["--input-type=module", "-e", freshScript, input, dir]);
  }),
  await measure("warm, shared MuPDF", rotateIn),
  await measure("warm, fresh MuPDF per job", async (dir) => {
    await rotateIn(dir);
    await renewMupdf();
  }),
  await measure("warm, fresh MuPDF and a full GC per job", async (dir) => {
    await rotateIn(dir);
    await renewMupdf();
    globalThis.gc();
  }),
];
console.log(JSON.stringify({ jobs, input: "page 1 of examples/sample-a.pdf, rotate 90", results }, null, 2));
rmSync(work, { recursive: true, force: true });

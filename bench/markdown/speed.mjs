#!/usr/bin/env node
// PDF to Markdown's speed and memory on born-digital PDFs: every PDF of corpus/general and corpus/tables but
// the scans and the files without a text layer (bench/pdf-office/corpus.mjs's selection, which compare.mjs
// and bench/layout/speed.mjs use too). Options throughout: format markdown, images placeholder,
// headersFooters drop, ocr never.
//   1. In-process: the engine (packages/pdf-office/dist/markdown/pdf-to-markdown.js) is loaded once, the first
//      file is converted once untimed (warm-up), then each file is converted `--rounds` times (default 1)
//      and its median wall time kept. Beside it, the floor: `pdftotext -layout file -` as a child process,
//      timed the same way. Printed per file in seconds per page; then the median over files of s/page and
//      the pooled s/page (total seconds / total pages) of both, and their ratios. Goal ≤ 0.1 s/page.
//      pdftotext's time includes starting its process (~5–15 ms), so on one-page files the ratio is low.
//   2. Memory: a `--memory-pages` (default 500) page PDF made with qpdf from the selected files in turn, and
//      its first 50 pages, each converted by speed-child.mjs in a process of its own: that process's peak RSS
//      (its maxRSS) and the peak of the RSS summed over it and its descendants (sampled every 50 ms), with
//      s/page. Memory should stay flat: the 500-page peak well under 10× the 50-page one. The PDFs live in
//      a temporary directory. `--skip-memory` leaves this part out.
//   3. `--api`: a service (`octavo start`, as bench/tables/api.mjs starts it), each file posted to
//      /v1/convert/pdf-to-markdown and timed from POST (upload included) to the job's done, first file
//      once untimed; the median s/page and the median seconds per job.
// Run nothing else meanwhile (2 shared cores): the load average before and after is printed.
//
//   pnpm exec turbo run build
//   node bench/markdown/speed.mjs [--files a.pdf,tables/b.pdf] [--limit N] [--rounds 3] [--api]
//        [--skip-memory] [--memory-pages 500] [--timeout-seconds 1800] [--json FILE] > /tmp/markdown-speed.md
// (--timeout-seconds bounds each memory child; --engine FILE swaps in a stand-in module, to test the bench.)
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { selectCorpus } from "../pdf-office/corpus.mjs";
import { pageCount } from "../pdf-office/metrics.mjs";
import { finishedJob, median, postJob, serviceWithAccount, stopService, untilReady } from "../support.mjs";
import { loadMarkdownEngine, bornDigitalOptions as options, runEngine } from "./engine.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    files: { type: "string" },
    limit: { type: "string" },
    rounds: { type: "string", default: "1" },
    api: { type: "boolean", default: false },
    "skip-memory": { type: "boolean", default: false },
    "memory-pages": { type: "string", default: "500" },
    "timeout-seconds": { type: "string", default: "1800" },
    engine: { type: "string" },
    json: { type: "string" },
  },
});
// --engine: another module exporting pdfToMarkdown with the same signature (a stand-in, for testing this bench).
const pdfToMarkdown = await loadMarkdownEngine(values.engine);
const rounds = Math.max(1, Number(values.rounds));
const { files, skipped } = selectCorpus({
  files: values.files?.split(","),
  limit: values.limit ? Number(values.limit) : undefined,
});
const work = mkdtempSync(join(tmpdir(), "octavo-bench-markdown-speed-"));
// The scratch directory goes however the run ends (an engine or qpdf failure included).
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const loadBefore = loadavg()[0];
const seconds = (start) => Number(process.hrtime.bigint() - start) / 1e9;
const report = { files: files.length, skipped, rounds, options };

// ---------- 1. in-process ----------

function pdftotextOnce(file) {
  const start = process.hrtime.bigint();
  execFileSync("pdftotext", ["-layout", "-enc", "UTF-8", file.path, "-"], {
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "ignore"],
  });
  return seconds(start);
}

const rows = [];
if (files.length) await runEngine(pdfToMarkdown, files[0].path, options); // warm-up, untimed
for (const file of files) {
  const ours = [];
  const floor = [];
  let chars = 0;
  let failed;
  for (let round = 0; round < rounds && !failed; round++) {
    floor.push(pdftotextOnce(file));
    const run = await runEngine(pdfToMarkdown, file.path, options);
    if (run.error) failed = run.error.split("\n")[0];
    else {
      ours.push(run.seconds);
      chars = run.text.length;
    }
  }
  rows.push({
    name: file.name,
    path: file.path,
    pages: file.pages,
    seconds: median(ours),
    pdftotext: median(floor),
    chars,
    failed,
  });
  process.stderr.write(
    `${file.name}: ${file.pages} pages, ${failed ? `failed: ${failed}` : `${median(ours).toFixed(3)} s`}\n`,
  );
}
const inProcessMaxRssKiB = process.resourceUsage().maxRSS;

const fmt = (v, digits = 4) =>
  v === null || v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(digits);
const ok = rows.filter((r) => !r.failed);
const perPage = (r, key) => r[key] / Math.max(1, r.pages);
const medianPerPage = (key) => median(ok.map((r) => perPage(r, key)));
const pooled = (key) =>
  ok.reduce((s, r) => s + r[key], 0) /
  Math.max(
    1,
    ok.reduce((s, r) => s + r.pages, 0),
  );
report.inProcess = {
  rows,
  medianSecondsPerPage: medianPerPage("seconds"),
  pooledSecondsPerPage: pooled("seconds"),
  pdftotext: { medianSecondsPerPage: medianPerPage("pdftotext"), pooledSecondsPerPage: pooled("pdftotext") },
  maxRssKiB: inProcessMaxRssKiB,
};

console.log(
  `PDF to Markdown speed, in one warm process (${ok.length} of ${rows.length} files converted, ${ok.reduce((s, r) => s + r.pages, 0)} pages, ${rounds} round${rounds > 1 ? "s" : ""}, median per file); floor: \`pdftotext -layout\`.\n`,
);
console.log("| file | pages | s | s/page | pdftotext s/page | ratio | Markdown chars |");
console.log("|---|---|---|---|---|---|---|");
for (const r of rows) {
  if (r.failed) {
    console.log(`| ${r.name} | ${r.pages} | failed: ${r.failed.slice(0, 100)} | | | | |`);
    continue;
  }
  console.log(
    `| ${r.name} | ${r.pages} | ${fmt(r.seconds, 3)} | ${fmt(perPage(r, "seconds"))} | ${fmt(perPage(r, "pdftotext"))} | ${fmt(r.seconds / r.pdftotext, 1)} | ${r.chars} |`,
  );
}
const ip = report.inProcess;
console.log(
  `\n- median s/page: PDF to Markdown ${fmt(ip.medianSecondsPerPage)}, pdftotext ${fmt(ip.pdftotext.medianSecondsPerPage)}, ratio ${fmt(ip.medianSecondsPerPage / ip.pdftotext.medianSecondsPerPage, 1)} (goal ≤ 0.1 s/page)\n` +
    `- pooled s/page (total s / total pages): PDF to Markdown ${fmt(ip.pooledSecondsPerPage)}, pdftotext ${fmt(ip.pdftotext.pooledSecondsPerPage)}, ratio ${fmt(ip.pooledSecondsPerPage / ip.pdftotext.pooledSecondsPerPage, 1)}\n` +
    `- slowest per page: ${[...ok]
      .sort((a, b) => perPage(b, "seconds") - perPage(a, "seconds"))
      .slice(0, 5)
      .map((r) => `${r.name} ${fmt(perPage(r, "seconds"), 3)}`)
      .join(", ")}\n` +
    `- this process's peak RSS over the whole run: ${(inProcessMaxRssKiB / 1024).toFixed(0)} MiB` +
    `${skipped.length ? `\n- ${skipped.length} corpus files left out (scans, no text layer, encrypted)` : ""}`,
);

// ---------- 2. memory on a long document ----------

/** Resident KiB of a process and its descendants (VmRSS from /proc; 0 once it has ended). */
function treeRssKiB(pid) {
  let total = 0;
  const visit = (id) => {
    try {
      total += Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${id}/status`, "utf8"))?.[1] ?? 0);
      for (const task of readdirSync(`/proc/${id}/task`)) {
        const children = readFileSync(`/proc/${id}/task/${task}/children`, "utf8").trim();
        for (const child of children.split(/\s+/).filter(Boolean)) visit(Number(child));
      }
    } catch {
      // ended meanwhile
    }
  };
  visit(pid);
  return total;
}

let childRuns = 0;
/** speed-child.mjs on `pdf`; its JSON report plus the sampled peak tree RSS and the wall seconds. */
function runChild(pdf, timeoutMs) {
  return new Promise((resolve) => {
    const args = [join(here, "speed-child.mjs"), pdf, join(work, `child-${childRuns++}`)];
    if (values.engine) args.push(values.engine);
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let peakTreeKiB = 0;
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const sampler = setInterval(() => {
      peakTreeKiB = Math.max(peakTreeKiB, treeRssKiB(child.pid));
    }, 50);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearInterval(sampler);
      clearTimeout(timer);
      const last = stdout.trim().split("\n").at(-1);
      let result;
      try {
        result = JSON.parse(last);
      } catch {
        result = {
          ok: false,
          error: `exit ${code ?? signal}: ${stderr.trim().split("\n").slice(-3).join(" ")}`,
        };
      }
      resolve({ ...result, peakTreeKiB, wallSeconds: seconds(start) });
    });
  });
}

if (!values["skip-memory"] && ok.length) {
  const target = Number(values["memory-pages"]);
  const prefixPages = Math.min(50, target);
  const sources = [];
  let total = 0;
  for (let i = 0; total < target; i++) {
    const file = ok[i % ok.length];
    sources.push(file.path);
    total += file.pages;
  }
  const joined = join(work, "joined.pdf");
  const long = join(work, `long-${target}.pdf`);
  const prefix = join(work, `long-${prefixPages}.pdf`);
  const qpdf = (args) =>
    execFileSync("qpdf", ["--warning-exit-0", ...args], { stdio: ["ignore", "ignore", "pipe"] });
  qpdf(["--empty", "--pages", ...sources, "--", joined]);
  qpdf(["--empty", "--pages", joined, `1-${target}`, "--", long]);
  qpdf(["--empty", "--pages", long, `1-${prefixPages}`, "--", prefix]);
  const timeoutMs = Number(values["timeout-seconds"]) * 1000;
  const memory = [];
  for (const pdf of [prefix, long]) {
    const pages = pageCount(pdf);
    const result = await runChild(pdf, timeoutMs);
    memory.push({ pages, ...result });
    process.stderr.write(
      `memory: ${pages} pages, ${result.ok ? `${result.seconds.toFixed(1)} s` : result.error}\n`,
    );
  }
  report.memory = { sources: sources.map((p) => basename(p)), runs: memory };
  const mib = (kib) => (kib ? (kib / 1024).toFixed(0) : "–");
  console.log(
    `\nMemory: one PDF of ${target} pages from ${sources.length} corpus files in turn (${ok.length} distinct), and its first ${prefixPages} pages; each converted in a process of its own (speed-child.mjs).\n`,
  );
  console.log(
    "| pages | s | s/page | RSS after import MiB | peak RSS MiB (process) | peak RSS MiB (process tree, sampled) |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const m of memory) {
    if (!m.ok) {
      console.log(
        `| ${m.pages} | failed: ${String(m.error).slice(0, 120)} | | | ${mib(m.maxRssKiB)} | ${mib(m.peakTreeKiB)} |`,
      );
      continue;
    }
    console.log(
      `| ${m.pages} | ${fmt(m.seconds, 1)} | ${fmt(m.seconds / m.pages)} | ${mib(m.rssAfterImportKiB)} | ${mib(m.maxRssKiB)} | ${mib(m.peakTreeKiB)} |`,
    );
  }
  const [small, large] = memory;
  if (small.ok && large.ok)
    console.log(
      `\n- peak RSS ${large.pages} / ${small.pages} pages: ${fmt(large.maxRssKiB / small.maxRssKiB, 2)}× (process), ${fmt(large.peakTreeKiB / small.peakTreeKiB, 2)}× (tree); ` +
        `above the RSS after import: ${fmt((large.maxRssKiB - large.rssAfterImportKiB) / Math.max(1, small.maxRssKiB - small.rssAfterImportKiB), 2)}× for ${fmt(large.pages / small.pages, 0)}× the pages`,
    );
}

// ---------- 3. through the API ----------

if (values.api && ok.length) {
  const { base, apiKey, server } = await serviceWithAccount(join(work, "data"), "markdown-bench@example.com");
  /** POST to done, in seconds; or the failure. */
  const job = async (file) => {
    const start = process.hrtime.bigint();
    const id = await postJob(
      base,
      apiKey,
      "/v1/convert/pdf-to-markdown",
      [{ path: file.path, name: basename(file.path) }],
      options,
    );
    const state = await finishedJob(base, apiKey, id);
    return state.status === "done"
      ? { time: seconds(start) }
      : { failed: `${state.error?.code}: ${state.error?.message}` };
  };
  const apiRows = [];
  try {
    await untilReady(base);
    await job(ok[0]).catch(() => undefined); // warm-up, untimed
    for (const file of ok) {
      let result;
      try {
        result = await job(file);
      } catch (error) {
        result = { failed: error.message };
      }
      apiRows.push({ name: file.name, pages: file.pages, seconds: result.time, failed: result.failed });
      process.stderr.write(`api ${file.name}: ${result.failed ?? `${result.time.toFixed(2)} s`}\n`);
    }
  } finally {
    await stopService(server);
  }
  const done = apiRows.filter((r) => !r.failed);
  report.api = {
    rows: apiRows,
    medianSecondsPerPage: median(done.map((r) => r.seconds / r.pages)),
    medianSecondsPerJob: median(done.map((r) => r.seconds)),
    pooledSecondsPerPage:
      done.reduce((s, r) => s + r.seconds, 0) /
      Math.max(
        1,
        done.reduce((s, r) => s + r.pages, 0),
      ),
  };
  console.log(
    `\nThrough the API (POST to done, upload included; ${done.length} of ${apiRows.length} jobs done): median ${fmt(report.api.medianSecondsPerPage)} s/page, ` +
      `median ${fmt(report.api.medianSecondsPerJob, 2)} s per job, pooled ${fmt(report.api.pooledSecondsPerPage)} s/page; ` +
      `in-process median for the same files ${fmt(ip.medianSecondsPerPage)} s/page.`,
  );
  for (const r of apiRows.filter((row) => row.failed)) console.log(`- ${r.name}: ${r.failed}`);
}

report.load = { before: loadBefore, after: loadavg()[0] };
console.log(
  `\nLoad average (1 min): ${loadBefore.toFixed(2)} before, ${report.load.after.toFixed(2)} after; Node ${process.version}.`,
);
if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);

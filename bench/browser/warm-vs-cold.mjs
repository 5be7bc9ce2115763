#!/usr/bin/env node
// Warm HtmlRenderer (one browser, a fresh context per job) against a cold `chromium --headless
// --print-to-pdf` process per file, on the same files, in one run.
//
//   pnpm --filter @octavo/browser build
//   node bench/browser/warm-vs-cold.mjs [--runs 7] [--cold-runs 5]
//
// Both sides print Letter with ~10 mm margins and print media (the CLI's only settings), and both
// refuse every remote resource: the renderer through its policy (a resolver that answers nothing), the
// CLI through a refuse-everything proxy, so no packet leaves the machine and neither waits on DNS.
// "Warm, between jobs" leaves 0.5 s idle before each job (as a worker has between queue jobs; the
// renderer makes the next context then); "back-to-back" leaves none. Prints a Markdown table of
// medians and ratios; the figures in docs/engines.md come from it.
import { execFile, execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const htmlDir = join(repoRoot, "..", "shared", "corpus", "html");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]) || fallback;
};
const runs = option("--runs", 7);
const coldRuns = option("--cold-runs", 5);
const chromium = "/usr/bin/chromium";
const execFileAsync = promisify(execFile);

const { HtmlRenderer } = await import(
  pathToFileURL(join(repoRoot, "packages", "browser", "dist", "index.js")).href
);
const { parseAllowlist } = await import(
  pathToFileURL(join(repoRoot, "packages", "net", "dist", "index.js")).href
);

const files = [
  { label: "1 page", name: "gotenberg_wide-table.html", goalMs: 300 },
  { label: "12 pages", name: "gotenberg_pages-12.html", goalMs: 1000 },
  { label: "~15 pages", name: "docling_wiki_duck.html", goalMs: 1000 },
];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const pdfPages = (path) => Number(/^Pages:\s+(\d+)/m.exec(execFileSync("pdfinfo", [path]).toString())?.[1]);

const work = await mkdtemp(join(tmpdir(), "octavo-bench-browser-"));
const refuseAll = createServer((_req, res) => res.writeHead(403, { "content-length": "0" }).end());
refuseAll.on("connect", (_req, socket) => socket.end("HTTP/1.1 403 Forbidden\r\n\r\n"));
// Chromium resets connections it gives up on; that is no error of the bench.
refuseAll.on("connection", (socket) => socket.on("error", () => socket.destroy()));
refuseAll.listen(0, "127.0.0.1");
await once(refuseAll, "listening");

const noDns = async (host) => {
  throw Object.assign(new Error(`bench: no DNS for ${host}`), { code: "ENOTFOUND" });
};
let launchMs;
let phases = [];
const renderer = new HtmlRenderer({
  allowlist: parseAllowlist(""),
  resolve: noDns,
  maxJobsPerBrowser: 1000,
  renderTimeoutMs: 60_000,
  maxPages: 200,
  maxBytes: 50_000_000,
  workDir: join(work, "renderer"),
  logger: {
    info: (obj, msg) => {
      if (msg === "chromium started") launchMs = obj.ms;
      if (msg === "html rendered") phases.push(obj.ms);
    },
    warn: (obj, msg) => console.error("warn:", msg, JSON.stringify(obj)),
  },
});
const options = { format: "Letter", landscape: false, margin: "small", background: true, media: "print" };

/**
 * Median of `runs` jobs on the warm browser. `gapMs` is idle time before each job (not timed), as a
 * worker has between queue jobs; the renderer uses it to make the next job's context ahead.
 */
async function warm(file, gapMs) {
  const input = join(htmlDir, file.name);
  const out = join(work, `warm-${file.name}.pdf`);
  await renderer.renderHtml(input, options, out); // warm-up (and browser launch on the first file)
  phases = [];
  const times = [];
  let pages = 0;
  for (let i = 0; i < runs; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, gapMs));
    const started = performance.now();
    ({ pages } = await renderer.renderHtml(input, options, out));
    times.push(performance.now() - started);
  }
  const phase = (name) => Math.round(median(phases.map((entry) => entry[name])));
  return { ms: median(times), pages, phases: `${phase("load")} / ${phase("settle")} / ${phase("pdf")}` };
}

async function cold(file) {
  const out = join(work, `cold-${file.name}.pdf`);
  const times = [];
  for (let i = 0; i < coldRuns; i += 1) {
    const profile = await mkdtemp(join(work, "cold-profile-"));
    const flags = [
      "--headless",
      "--disable-gpu",
      "--no-first-run",
      "--no-pdf-header-footer",
      `--proxy-server=http://127.0.0.1:${refuseAll.address().port}`,
      "--proxy-bypass-list=<-loopback>",
      `--user-data-dir=${profile}`,
      `--print-to-pdf=${out}`,
      ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
      pathToFileURL(join(htmlDir, file.name)).href,
    ];
    const started = performance.now();
    await execFileAsync(chromium, flags, { timeout: 120_000 });
    times.push(performance.now() - started);
    await rm(profile, { recursive: true, force: true });
  }
  return { ms: median(times), pages: pdfPages(out) };
}

const rows = [];
try {
  for (const file of files) {
    const w = await warm(file, 500);
    const b = await warm(file, 0);
    const c = await cold(file);
    rows.push({ file, w, b, c });
  }
} finally {
  await renderer.close();
  refuseAll.close();
  await rm(work, { recursive: true, force: true });
}

const ms = (value) => `${Math.round(value)} ms`;
console.log(
  `\nchromium: ${execFileSync(chromium, ["--version"], { stdio: ["ignore", "pipe", "ignore"] })
    .toString()
    .trim()}`,
);
console.log(
  `node ${process.version}; warm runs ${runs} (after one warm-up), cold runs ${coldRuns}; browser launch ${ms(launchMs)}\n`,
);
console.log(
  "| File | Pages (warm / cold) | Warm, between jobs | load / settle / pdf | Warm, back-to-back | Cold `--print-to-pdf` | Cold ÷ warm | Goal (warm) |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const { file, w, b, c } of rows) {
  const verdict = w.ms <= file.goalMs ? "met" : "missed";
  console.log(
    `| ${file.label}: \`${file.name}\` | ${w.pages} / ${c.pages} | ${ms(w.ms)} | ${w.phases} ms | ${ms(b.ms)} | ${ms(c.ms)} | ×${(c.ms / w.ms).toFixed(1)} | ≤ ${file.goalMs} ms: ${verdict} |`,
  );
}

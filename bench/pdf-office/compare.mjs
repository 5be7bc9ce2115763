#!/usr/bin/env node
// Our PDF → Word / PowerPoint / Excel converter (@octavo/pdf-office) against LibreOffice's PDF import, in one
// run on the same files: the born-digital PDFs of corpus/general and corpus/tables (corpus.mjs). Per file:
//   ours  docx (pdfToWord), pptx (pdfToPowerPoint), xlsx pages and xlsx tables (pdfToExcel; "no tables" in
//         tables mode is recorded as such, not as a failure) — each in its own child process
//         (convert-child.mjs), as the worker's sandbox runs it, with the timeout;
//   LO    docx (writer_pdf_import) and pptx (impress_pdf_import), one cold soffice per file (libreoffice.mjs;
//         LibreOffice has no PDF import into Calc).
// Each conversion is judged by report.mjs's measureOutput: seconds, seconds per page, word recall against
// `pdftotext -layout`, and the structure figures (docx: flowing share, tables, images; pptx: slides = pages,
// text in boxes, pictures per slide; xlsx: sheets, cells). Prints per-kind markdown tables, a summary per
// engine × kind, the files below 98 % recall and the skipped files; progress goes to stderr.
//
//   pnpm exec turbo run build            # compare.mjs runs packages/pdf-office/dist and packages/testing/dist
//   node bench/pdf-office/compare.mjs [--files a.pdf,tables/b.pdf] [--limit N] [--kinds docx,pptx,xlsx]
//        [--engines ours,lo] [--timeout 120] [--json out.json] [--keep out-dir] > /tmp/compare.md
//   node bench/pdf-office/compare.mjs --files x.pdf --merge out.json --json out.json > /tmp/compare.md
//
// --merge re-runs only the given files and replaces their results in an earlier --json run (for a
// conversion that failed for reasons outside the converter, e.g. dist being rebuilt mid-run); the printed
// output says which files were merged.
//
// Timing: "ours" seconds are the conversion alone, measured inside the child, as a job pays it in a sandbox
// the worker started ahead of need; the whole child process (node start, loading the engines) is recorded
// as wallSeconds. LibreOffice seconds include starting soffice (about a second), as a command-line user pays
// it; one untimed conversion first sets up its profile. Run nothing else meanwhile (2 shared cores).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { corpusDir, selectCorpus } from "./corpus.mjs";
import { libreOfficeVersion, runLibreOffice, warmUpLibreOffice } from "./libreoffice.mjs";
import { wordSet } from "./metrics.mjs";
import { runInGroup } from "./process.mjs";
import {
  markdownSummary,
  markdownSummaryTable,
  markdownTable,
  measureOutput,
  printSkipped,
  RECALL_GOAL,
  summarise,
  writeResults,
} from "./report.mjs";

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "convert-child.mjs");

const { values } = parseArgs({
  options: {
    files: { type: "string" },
    limit: { type: "string" },
    kinds: { type: "string", default: "docx,pptx,xlsx" },
    engines: { type: "string", default: "ours,lo" },
    timeout: { type: "string", default: "120" },
    json: { type: "string" },
    keep: { type: "string" },
    merge: { type: "string" },
  },
});

/** Every engine × conversion of the run: { label, kind, engine, conversion }, in the order they run. */
function plannedEngines(kinds, engineNames) {
  const planned = [];
  for (const kind of kinds) {
    if (!["docx", "pptx", "xlsx"].includes(kind)) throw new Error(`unknown kind ${kind}`);
    if (engineNames.includes("ours")) {
      if (kind === "xlsx") {
        planned.push({ label: "ours xlsx pages", kind, engine: "ours", conversion: "xlsx-pages" });
        planned.push({ label: "ours xlsx tables", kind, engine: "ours", conversion: "xlsx-tables" });
      } else planned.push({ label: `ours ${kind}`, kind, engine: "ours", conversion: kind });
    }
    if (engineNames.includes("lo") && kind !== "xlsx") {
      planned.push({ label: `LO ${kind}`, kind, engine: "lo", conversion: kind });
    }
  }
  return planned;
}

/**
 * Runs convert-child.mjs for one conversion, killing its process group after `timeoutMs`. Resolves to
 * { ok, output, seconds, wallSeconds, error, code, timedOut, noTables, importError }.
 */
async function runOurs(conversion, pdf, workDir, timeoutMs) {
  const started = performance.now();
  const {
    code: exitCode,
    signal,
    stdout,
    stderr,
    timedOut,
  } = await runInGroup(process.execPath, [CHILD, conversion, pdf, workDir], timeoutMs);
  const wallSeconds = (performance.now() - started) / 1000;
  const last = stdout.trim().split("\n").at(-1) ?? "";
  let reported = null;
  let unreadable = "";
  try {
    reported = JSON.parse(last);
  } catch (error) {
    // The child died before printing its result line (a crash, a kill); say so with what it printed.
    if (!(error instanceof SyntaxError)) throw error;
    unreadable = last ? `; its last line was not JSON: ${last.slice(0, 120)}` : "";
  }
  if (timedOut) {
    return {
      ok: false,
      timedOut,
      seconds: wallSeconds,
      wallSeconds,
      error: `timeout after ${timeoutMs / 1000} s`,
    };
  }
  if (!reported) {
    const tail = stderr.trim().split("\n").slice(-3).join(" ").slice(0, 300);
    return {
      ok: false,
      timedOut,
      seconds: wallSeconds,
      wallSeconds,
      error: `child ended (${signal ?? `exit ${exitCode}`}) without a result${unreadable}${tail ? `: ${tail}` : ""}`,
    };
  }
  return {
    ok: reported.ok,
    output: reported.output ?? null,
    seconds: reported.seconds ?? wallSeconds,
    wallSeconds,
    engine: reported.engine,
    warnings: reported.warnings,
    error: reported.ok ? null : reported.error,
    code: reported.code ?? null,
    timedOut,
    noTables: reported.code === "no_tables",
    importError: reported.phase === "import",
  };
}

/** File-system-safe name of a corpus entry ("tables/x.pdf" → "tables__x"). */
const slug = (name) => name.replace(/\.pdf$/i, "").replace(/[^\w.-]+/g, "__");

async function convertFiles(files, planned, outRoot, timeoutMs) {
  const rows = [];
  for (const file of files) {
    const row = { file, results: {} };
    for (const { label, kind, engine, conversion } of planned) {
      const run =
        engine === "ours"
          ? await runOurs(
              conversion,
              file.path,
              join(outRoot, "ours", conversion, slug(file.name)),
              timeoutMs,
            )
          : await runLibreOffice(file.path, kind, join(outRoot, "lo", kind, dirname(file.name)), {
              timeoutMs,
            });
      const measured = run.ok ? measureOutput(kind, run.output, file) : {};
      const result = { ...run, ...measured };
      row.results[label] = result;
      console.error(
        `${file.name} (${file.pages} p) ${label}: ${result.seconds?.toFixed(1)} s, ` +
          (result.noTables
            ? "no tables"
            : result.error
              ? result.error.slice(0, 200)
              : `recall ${(result.recall * 100).toFixed(1)} %`),
      );
    }
    row.load = loadavg()[0];
    rows.push(row);
  }
  return rows;
}

const timeoutMs = Number(values.timeout) * 1000;
// Timings mean little if other work shared the cores: the 1-minute load average is recorded per file.
const loadAtStart = loadavg()[0];
const previous = values.merge ? JSON.parse(readFileSync(values.merge, "utf8")) : null;
const planned = previous
  ? previous.engines
  : plannedEngines(values.kinds.split(","), values.engines.split(","));
const { files, skipped: newlySkipped } = selectCorpus({
  files: values.files?.split(","),
  limit: values.limit ? Number(values.limit) : undefined,
});
for (const file of files) file.words = wordSet(file.sourceText).size;

const outRoot = values.keep ?? mkdtempSync(join(tmpdir(), "octavo-pdf-office-compare-"));
const version = planned.some((e) => e.engine === "lo") ? await libreOfficeVersion() : null;
console.error(
  `${version ?? "ours only"}; ${files.length} files, ${newlySkipped.length} skipped; outputs in ${outRoot}`,
);
if (version) {
  await warmUpLibreOffice(join(corpusDir, "general", "samplefiles_crazyones-pdfa.pdf"), { timeoutMs });
}
let newRows;
try {
  newRows = await convertFiles(files, planned, outRoot, timeoutMs);
} finally {
  if (!values.keep) rmSync(outRoot, { recursive: true, force: true });
}

let rows = newRows;
let skipped = newlySkipped;
let merged = [];
if (previous) {
  const fresh = new Map(newRows.map((row) => [row.file.name, row]));
  rows = previous.rows.map((row) => fresh.get(row.file.name) ?? row);
  for (const row of newRows)
    if (!previous.rows.some((old) => old.file.name === row.file.name)) rows.push(row);
  skipped = previous.skipped;
  merged = [...(previous.merged ?? []), ...newRows.map((row) => row.file.name)];
}

const summaries = Object.fromEntries(
  planned.map(({ label, kind }) => [
    label,
    summarise(
      kind,
      rows.map((row) => ({ file: row.file, result: row.results[label] })),
    ),
  ]),
);

const importErrors = rows.flatMap((row) =>
  planned
    .filter(({ label }) => row.results[label]?.importError)
    .map(({ label }) => `${row.file.name} (${label})`),
);

console.log("# PDF → Office: octavo vs LibreOffice\n");
console.log(
  `${new Date().toISOString()}; ${rows.length} born-digital files of corpus/general and corpus/tables; ` +
    `timeout ${timeoutMs / 1000} s per conversion. Ours: packages/pdf-office/dist, one child process per ` +
    `conversion, seconds = the conversion inside the child (process start excluded; see wallSeconds in the ` +
    `JSON). LO: ${previous?.version ?? version ?? "not run"}, one cold soffice per conversion, seconds include ` +
    `its start. Recall: word sets against \`pdftotext -layout\` of the source (@octavo/testing wordRecall). ` +
    `For xlsx it only shows that text is there: cells are read as stored, so numbers written as numbers ` +
    `("1,505" → 1505) and dates count as missing, and tables mode is held against the whole page's text. ` +
    `Load average (1 min) at the start ${loadAtStart.toFixed(1)}, at the end ${loadavg()[0].toFixed(1)}, ` +
    `per file in the JSON (\`load\`).\n`,
);
if (merged.length) {
  console.log(`Re-run on their own and merged into the earlier run: ${[...new Set(merged)].join(", ")}.\n`);
}
if (importErrors.length) {
  console.log(`**Not a conversion result — the child could not import dist:** ${importErrors.join(", ")}.\n`);
}

console.log("## Summary\n");
console.log(markdownSummaryTable(planned.map(({ label, kind }) => [label, kind, summaries[label]])));
console.log("");
for (const { label, kind } of planned) console.log(`${markdownSummary(label, kind, summaries[label])}\n`);

const kinds = [...new Set(planned.map(({ kind }) => kind))];
for (const kind of kinds) {
  const engines = planned.filter((e) => e.kind === kind).map(({ label }) => [label, kind]);
  console.log(`## ${kind}\n`);
  console.log(markdownTable(engines, rows));
  console.log("");
}

console.log(`## Files below ${RECALL_GOAL * 100} % recall (any engine; xlsx tables mode left out)\n`);
for (const kind of kinds) {
  const labels = planned.filter((e) => e.kind === kind && e.conversion !== "xlsx-tables").map((e) => e.label);
  const below = rows.filter((row) =>
    labels.some((label) => {
      const r = row.results[label];
      return r && !r.noTables && (!r.ok || r.error || (r.recall ?? 0) < RECALL_GOAL);
    }),
  );
  if (!below.length) continue;
  console.log(`| ${kind} file | pages | ${labels.join(" | ")} | missing (first 8, ${labels[0]}) |`);
  console.log(`| --- | --- | ${labels.map(() => "---").join(" | ")} | --- |`);
  for (const row of below) {
    const cells = labels.map((label) => {
      const r = row.results[label];
      if (!r) return "";
      if (!r.ok || r.error) return r.timedOut ? "TIMEOUT" : "FAIL";
      return `${(r.recall * 100).toFixed(1)} %`;
    });
    const missing = (row.results[labels[0]]?.missing ?? []).slice(0, 8).join(" ");
    console.log(`| ${row.file.name} | ${row.file.pages} | ${cells.join(" | ")} | ${missing} |`);
  }
  console.log("");
}

printSkipped(skipped);

if (values.json)
  writeResults(
    values.json,
    { version: previous?.version ?? version, timeoutMs, engines: planned, skipped, merged, summaries },
    rows,
  );

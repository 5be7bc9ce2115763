#!/usr/bin/env node
// Fill form through the whole service, beside the raw libraries in a warm process, in one run on one
// machine. `octavo start` (single machine: SQLite, the supervised redis-server, local disk) on a fresh
// data dir:
//
//   1. fill: 30 text fields of IRS Form 1040 (corpus general/pdfjs_prefilled_f1040.pdf), POST
//      /v1/forms/fill to done (`?wait=`), one job at a time; beside MuPDF.js and pdf-lib filling the same
//      fields of the same file in this process, warm (the library loaded, the file read once);
//   2. the job overhead, as bench/light-jobs.mjs measures it: a rotate of a 1-page PDF, POST to done,
//      less the qpdf CLI's rotation of the same file;
//   3. where the fill job's time goes: the run (startedAt to finishedAt) of Fill form, Read form and Flatten
//      (the same edit frame in a reused sandbox) on the same file.
//
// The bound: the fill job's median at most 1.5 × the faster library's median + the overhead.
//
// Run after `npm test` or `npm run setup`:
//
//   node bench/forms-generate.mjs [--runs 20]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { PDFDocument } from "pdf-lib";
import { loadMupdf } from "../packages/mupdf/dist/index.js";
import {
  finishedJob,
  median,
  onePagePdf,
  postJob,
  serviceWithAccount,
  stopService,
  untilReady,
} from "./support.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const form1040 = join(root, "..", "shared", "corpus", "general", "pdfjs_prefilled_f1040.pdf");
const { values: args } = parseArgs({ options: { runs: { type: "string", default: "20" } } });
const runs = Number(args.runs);
const work = mkdtempSync(join(tmpdir(), "octavo-bench-forms-"));
const round = (value) => Math.round(value * 10) / 10;

/** `task` run `runs` times after one warm-up; each run's milliseconds. */
async function timed(task) {
  await task(-1);
  const times = [];
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    await task(index);
    times.push(performance.now() - started);
  }
  return times;
}

// --- The service ---------------------------------------------------------------------------------
const service = await serviceWithAccount(join(work, "data"), "bench-forms@example.com");
try {
  await untilReady(service.base);
  const post = async (path, file, options) => {
    const id = await postJob(service.base, service.apiKey, path, [{ path: file, name: "in.pdf" }], options);
    const job = await finishedJob(service.base, service.apiKey, id);
    if (job.status !== "done") throw new Error(`${path} ended ${job.status}: ${job.message}`);
    return job;
  };

  // The 30 fields: the first text fields the form's own report lists, each given a value that fits.
  const report = (await post("/v1/forms/read", form1040)).form;
  const fields = report.fields.filter((field) => field.type === "text" && !field.flags.readOnly).slice(0, 30);
  const values = Object.fromEntries(
    fields.map((field, index) => [field.name, `V${index}-bench`.slice(0, field.flags.maxLength ?? 20)]),
  );

  // --- The raw libraries, warm ----------------------------------------------------------------------
  const bytes = readFileSync(form1040);
  const mupdf = await loadMupdf();
  const mupdfTimes = await timed(async (index) => {
    const doc = new mupdf.PDFDocument(bytes);
    for (let page = 0; page < doc.countPages(); page += 1) {
      for (const widget of doc.loadPage(page).getWidgets()) {
        const value = values[widget.getName()];
        if (value === undefined) continue;
        widget.setTextValue(value);
        widget.update();
      }
    }
    writeFileSync(
      join(work, `mupdf-${index}.pdf`),
      doc.saveToBuffer("garbage=compact,compress").asUint8Array(),
    );
    doc.destroy();
  });
  const pdfLibTimes = await timed(async (index) => {
    const doc = await PDFDocument.load(bytes);
    const form = doc.getForm();
    for (const [name, value] of Object.entries(values)) form.getTextField(name).setText(value);
    writeFileSync(join(work, `pdf-lib-${index}.pdf`), await doc.save());
  });

  // --- The job overhead: a 1-page rotate through the service, less qpdf's ------------------------------
  const onePage = join(work, "one.pdf");
  onePagePdf(onePage);
  const qpdfTimes = await timed(async (index) => {
    execFileSync("qpdf", [onePage, join(work, `rotated-${index}.pdf`), "--rotate=+90:1-z"]);
  });
  const rotateTimes = await timed(() => post("/v1/rotate", onePage, { angle: 90 }));
  const overhead = median(rotateTimes) - median(qpdfTimes);

  // --- Fill form through the service ---------------------------------------------------------------
  // Each job's own run (startedAt to finishedAt): Flatten is the same edit frame in a reused sandbox.
  const runMs = (job) => Date.parse(job.finishedAt) - Date.parse(job.startedAt);
  const runTimes = { fill: [], read: [], flatten: [] };
  const fillTimes = await timed(async () =>
    runTimes.fill.push(runMs(await post("/v1/forms/fill", form1040, { values }))),
  );
  await timed(async () => runTimes.read.push(runMs(await post("/v1/forms/read", form1040))));
  await timed(async () => runTimes.flatten.push(runMs(await post("/v1/flatten", form1040))));

  const fastest = Math.min(median(mupdfTimes), median(pdfLibTimes));
  const bound = 1.5 * fastest + overhead;
  console.log(
    JSON.stringify(
      {
        runs,
        fields: fields.length,
        fillJobMs: round(median(fillTimes)),
        mupdfWarmMs: round(median(mupdfTimes)),
        pdfLibWarmMs: round(median(pdfLibTimes)),
        rotateJobMs: round(median(rotateTimes)),
        qpdfRotateMs: round(median(qpdfTimes)),
        jobOverheadMs: round(overhead),
        boundMs: round(bound),
        withinBound: median(fillTimes) <= bound,
        ratioToFastestLibrary: round(median(fillTimes) / fastest),
        jobRunMs: Object.fromEntries(
          Object.entries(runTimes).map(([name, times]) => [name, round(median(times))]),
        ),
      },
      null,
      2,
    ),
  );
} finally {
  await stopService(service.server);
  rmSync(work, { recursive: true, force: true });
}

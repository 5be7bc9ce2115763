#!/usr/bin/env node
// Fill form and Generate document through the whole service, beside the raw tools, in one run on one
// machine. `octavo start` (single machine: SQLite, the supervised redis-server, local disk) on a fresh
// data dir:
//
//   1. fill: 30 text fields of IRS Form 1040 (corpus general/pdfjs_prefilled_f1040.pdf), POST
//      /v1/forms/fill to done (`?wait=`), one job at a time; beside MuPDF.js and pdf-lib filling the same
//      fields of the same file in this process, warm (the library loaded, the file read once);
//   2. the job overhead, as bench/light-jobs.mjs measures it: a rotate of a 1-page PDF, POST to done,
//      less the qpdf CLI's rotation of the same file;
//   3. where the fill job's time goes: the run (startedAt to finishedAt) of Fill form, Read form and Flatten
//      (the same edit frame in a reused sandbox) on the same file;
//   4. generate: a 2-page invoice (a 60-row table loop, made here with the docx library) from a .docx
//      template, POST /v1/generate to done; beside `soffice --convert-to pdf` of the same filled .docx (a
//      Generate job with format docx made it), the floor the issue names, and Word to PDF of that .docx
//      through the service (the warm LibreOffice alone, with the job around it); and once, 200 of those
//      invoices in one job, merged into one PDF.
//
// The bounds: the fill job's median at most 1.5 × the faster library's median + the overhead;
// the generate job's median at most 1 s.
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
import { Document, Packer, Paragraph, Table, TableCell, TableRow } from "docx";
import { PDFDocument } from "pdf-lib";
import { loadMupdf } from "../packages/mupdf/dist/index.js";
import {
  finishedJob,
  median,
  onePagePdf,
  postJob,
  serviceWithAccount,
  stopService,
  timedRuns,
  untilReady,
} from "./support.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const form1040 = join(root, "..", "shared", "corpus", "general", "pdfjs_prefilled_f1040.pdf");
const { values: args } = parseArgs({ options: { runs: { type: "string", default: "20" } } });
const runs = Number(args.runs);
const work = mkdtempSync(join(tmpdir(), "octavo-bench-forms-"));
const round = (value) => Math.round(value * 10) / 10;

const timed = (task) => timedRuns(runs, task);

// --- The service ---------------------------------------------------------------------------------
const service = await serviceWithAccount(join(work, "data"), "bench-forms@example.com");
try {
  await untilReady(service.base);
  const post = async (path, file, options) => {
    const name = `in${file.slice(file.lastIndexOf("."))}`;
    const id = await postJob(service.base, service.apiKey, path, [{ path: file, name }], options);
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

  // --- Generate document: a 2-page invoice ------------------------------------------------------------
  const cell = (text) => new TableCell({ children: [new Paragraph(text)] });
  const template = join(work, "invoice.docx");
  const invoice = new Document({
    sections: [
      {
        children: [
          new Paragraph("Invoice {number}"),
          new Paragraph("Bill to: {customer.name}, {customer.city}"),
          new Paragraph('Date: {date | date:"long"}'),
          new Table({
            rows: [
              new TableRow({ children: ["Item", "Qty", "Price"].map(cell) }),
              new TableRow({
                children: ["{#items}{name}", "{qty}", '{price | currency:"EUR"}{/items}'].map(cell),
              }),
            ],
          }),
          new Paragraph('Total: {total | currency:"EUR"}'),
        ],
      },
    ],
  });
  writeFileSync(template, await Packer.toBuffer(invoice));
  const items = Array.from({ length: 60 }, (_, index) => ({
    name: `Item ${index + 1}`,
    qty: index + 1,
    price: 9.5,
  }));
  const data = {
    number: "B-1",
    customer: { name: "Ada Lovelace", city: "London" },
    date: "2026-11-30",
    items,
    total: items.reduce((sum, item) => sum + item.qty * item.price, 0),
  };
  const generate = (format) => post("/v1/generate", template, { data, format });
  const generated = await generate("pdf");
  const pdfPages = await (await fetch(generated.outputs[0].url, { headers: service.headers })).arrayBuffer();
  writeFileSync(join(work, "generated.pdf"), Buffer.from(pdfPages));
  const pages = Number(
    /Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [join(work, "generated.pdf")], { encoding: "utf8" }))?.[1],
  );
  const filledDocx = join(work, "filled.docx");
  const docxJob = await generate("docx");
  writeFileSync(
    filledDocx,
    Buffer.from(await (await fetch(docxJob.outputs[0].url, { headers: service.headers })).arrayBuffer()),
  );
  const generateRunTimes = [];
  const generateTimes = await timed(async () => generateRunTimes.push(runMs(await generate("pdf"))));
  const wordToPdfTimes = await timed(() => post("/v1/convert/word-to-pdf", filledDocx));
  const sofficeTimes = await timed(async (index) => {
    const outDir = join(work, `soffice-${index}`);
    execFileSync(
      "soffice",
      [
        "--headless",
        `-env:UserInstallation=file://${join(work, "soffice-profile")}`,
        "--convert-to",
        "pdf",
        "--outdir",
        outDir,
        filledDocx,
      ],
      { stdio: "ignore" },
    );
  });

  // One batch of 200 such invoices merged into one PDF, once: its time against the heavy lane's job timeout.
  const batch = await post("/v1/generate", template, {
    data: Array.from({ length: 200 }, (_, index) => ({ ...data, number: `B-${index + 1}` })),
    merge: true,
  });
  const batchPdf = join(work, "batch.pdf");
  writeFileSync(
    batchPdf,
    Buffer.from(await (await fetch(batch.outputs[0].url, { headers: service.headers })).arrayBuffer()),
  );
  const batchPages = Number(
    /Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [batchPdf], { encoding: "utf8" }))?.[1],
  );

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
        generate: {
          invoicePages: pages,
          generateJobMs: round(median(generateTimes)),
          generateJobRunMs: round(median(generateRunTimes)),
          withinOneSecond: median(generateTimes) <= 1000,
          sofficeConvertMs: round(median(sofficeTimes)),
          wordToPdfJobMs: round(median(wordToPdfTimes)),
          ratioToSoffice: round(median(generateTimes) / median(sofficeTimes)),
          batch200MergedRunMs: runMs(batch),
          batch200MergedPages: batchPages,
        },
      },
      null,
      2,
    ),
  );
} finally {
  await stopService(service.server);
  rmSync(work, { recursive: true, force: true });
}

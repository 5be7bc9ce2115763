#!/usr/bin/env node
// One conversion with our converter (packages/pdf-office/dist), in its own process as the worker's sandbox
// runs it: compare.mjs starts one per file and conversion, with a timeout, so a crash or a runaway page
// costs only that conversion. Prints one JSON line on stdout, last:
//
//   node bench/pdf-office/convert-child.mjs docx|pptx|xlsx-pages|xlsx-tables in.pdf work-dir
//   → {"ok":true,"seconds":1.23,"output":"work-dir/pdf-to-word-…/converted.docx","engine":"…","warnings":[]}
//   → {"ok":false,"phase":"convert","code":"no_tables","error":"No table was found …","seconds":0.8}
//   → {"ok":false,"phase":"import","error":"SyntaxError: …"} (dist missing or being rebuilt)
//
// `seconds` is the conversion alone, as a job pays it in a sandbox that the worker started ahead of need
// (node start and loading the engines are not on the job's path); the caller times the whole process too.
import { mkdirSync } from "node:fs";
import { basename } from "node:path";
import { errorText, timedConversion } from "../support.mjs";

const [kind, path, workDir] = process.argv.slice(2);
const CONVERSIONS = {
  docx: (office, input, ctx) => office.pdfToWord(input, {}, ctx),
  pptx: (office, input, ctx) => office.pdfToPowerPoint(input, {}, ctx),
  "xlsx-pages": (office, input, ctx) => office.pdfToExcel(input, { mode: "pages" }, ctx),
  "xlsx-tables": (office, input, ctx) => office.pdfToExcel(input, { mode: "tables" }, ctx),
};

function report(result) {
  process.stdout.write(`\n${JSON.stringify(result)}\n`);
}

const convert = CONVERSIONS[kind];
if (!convert || !path || !workDir) {
  console.error(`usage: convert-child.mjs ${Object.keys(CONVERSIONS).join("|")} in.pdf work-dir`);
  process.exit(2);
}

let office;
try {
  office = await import(new URL("../../packages/pdf-office/dist/index.js", import.meta.url).href);
} catch (error) {
  report({ ok: false, phase: "import", error: errorText(error) });
  process.exit(1);
}

mkdirSync(workDir, { recursive: true });
const { result, ...outcome } = await timedConversion(() =>
  convert(office, { path, name: basename(path) }, { workDir }),
);
report(
  result
    ? {
        ...outcome,
        output: result.outputs[0]?.path ?? null,
        engine: result.engine,
        warnings: result.warnings,
      }
    : outcome,
);
// Engines may leave handles open (worker threads, timers); the sandbox kills its child after one job too.
process.exit(0);

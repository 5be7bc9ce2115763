#!/usr/bin/env node
// One PDF to Markdown conversion in a process of its own, for speed.mjs's memory measurement: the process's
// peak resident set (process.resourceUsage().maxRSS, the kernel's high-water mark for this process, threads
// and WebAssembly memory included) is the conversion's plus Node's and the loaded modules'. Options as
// speed.mjs times them: format markdown, images placeholder, headersFooters drop, ocr never. Prints one JSON
// line on stdout, last:
//
//   node bench/markdown/speed-child.mjs in.pdf work-dir [engine.js]
//   → {"ok":true,"seconds":12.3,"rssAfterImportKiB":81234,"maxRssKiB":412345,"outputBytes":123456,"warnings":[]}
//   → {"ok":false,"phase":"import"|"convert","error":"…","maxRssKiB":…}
import { mkdirSync, statSync } from "node:fs";
import { basename } from "node:path";
import { errorText, timedConversion } from "../support.mjs";
import { bornDigitalOptions, loadMarkdownEngine } from "./engine.mjs";

const [path, workDir, engine] = process.argv.slice(2);
const report = (result) =>
  process.stdout.write(`\n${JSON.stringify({ ...result, maxRssKiB: process.resourceUsage().maxRSS })}\n`);
if (!path || !workDir) {
  console.error("usage: speed-child.mjs in.pdf work-dir [engine.js]");
  process.exit(2);
}

let pdfToMarkdown;
try {
  pdfToMarkdown = await loadMarkdownEngine(engine);
} catch (error) {
  report({ ok: false, phase: "import", error: errorText(error) });
  process.exit(1);
}
const rssAfterImportKiB = Math.round(process.memoryUsage().rss / 1024);

mkdirSync(workDir, { recursive: true });
const { result, ...outcome } = await timedConversion(() =>
  pdfToMarkdown({ path, name: basename(path) }, bornDigitalOptions, { workDir }),
);
report(
  result
    ? {
        ...outcome,
        rssAfterImportKiB,
        outputBytes: statSync(result.outputs[0].path).size,
        warnings: result.warnings ?? [],
      }
    : { ...outcome, rssAfterImportKiB },
);
process.exit(result ? 0 : 1);

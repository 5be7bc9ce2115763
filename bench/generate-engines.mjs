#!/usr/bin/env node
// The templating engines Generate could be built on, on the same Word template in one process, one run:
// docxtemplater (the engine chosen, with octavo's parser: @octavo/generate's fillTemplate, the function the
// sandbox runs) and docx-templates (MIT), each filling a 100-row invoice, each in its own idiom for a
// table-row loop: docxtemplater's {#items} in the row's first cell and {/items} in its last; docx-templates'
// FOR and END-FOR each in a row of their own around the row to repeat (with both in the one row, as
// docxtemplater takes them, it repeats the cells inside one row instead).
// Reported for each: the median time of a fill, warm; the table rows the output has (100 item rows and
// the header: 101 is right); and whether a hostile template runs code (each engine's own syntax for an
// expression that reaches Node's `process` through a constructor).
//
// Carbone (Carbone Community License: no hosted document generation service; its builder compiles
// templates with `new Function`) and LibreOffice's mail merge (one record a document, no loop in a table)
// are weighed in docs/engines.md without a run.
//
//   node bench/generate-engines.mjs [--runs 20]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Document, Packer, Paragraph, Table, TableCell, TableRow } from "docx";
import { createReport } from "docx-templates";
import { fillTemplate } from "../packages/generate/dist/index.js";
import { median, timedRuns } from "./support.mjs";

const { values: args } = parseArgs({ options: { runs: { type: "string", default: "20" } } });
const runs = Number(args.runs);
const work = mkdtempSync(join(tmpdir(), "octavo-bench-generate-"));
const round = (value) => Math.round(value * 10) / 10;

const cell = (text) => new TableCell({ children: [new Paragraph(text)] });
/** A header row, then `rows` (each a list of cell texts), after `paragraphs`. */
async function invoiceTemplate(path, rows, paragraphs) {
  const table = new Table({
    rows: [["Item", "Qty", "Price"], ...rows].map((row) => new TableRow({ children: row.map(cell) })),
  });
  const document = new Document({
    sections: [{ children: [...paragraphs.map((text) => new Paragraph(text)), table] }],
  });
  writeFileSync(path, await Packer.toBuffer(document));
  return path;
}

const items = Array.from({ length: 100 }, (_, index) => ({
  name: `Item ${index + 1}`,
  qty: index + 1,
  price: 9.5,
}));
const data = { number: "C-1", items };
/** word/document.xml of a package's bytes, by unzip. */
function documentXml(bytes) {
  const path = join(work, "read.docx");
  writeFileSync(path, bytes);
  return execFileSync("unzip", ["-p", path, "word/document.xml"], { encoding: "utf8" });
}
const rowsOf = (bytes) => (documentXml(bytes).match(/<w:tr[ >]/g) ?? []).length;
const textOf = (bytes) =>
  [...documentXml(bytes).matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((match) => match[1]).join("");

const timed = (task) => timedRuns(runs, task);

try {
  // docxtemplater through octavo's engine: {#items} in the row's first cell, {/items} in its last.
  const ours = await invoiceTemplate(
    join(work, "ours.docx"),
    [["{#items}{name}", "{qty}", "{price}{/items}"]],
    ["Invoice {number}"],
  );
  const options = { format: "docx", merge: false, missing: "error", locale: "en-US", timeZone: "UTC" };
  let oursOut;
  const oursTimes = await timed(async (index) => {
    const result = await fillTemplate(
      [{ path: ours, name: "ours.docx" }],
      { ...options, data },
      { workDir: join(work, `ours-${index}`) },
    );
    oursOut = readFileSync(result.outputs[0].path);
  });
  const oursHostile = await invoiceTemplate(
    join(work, "ours-hostile.docx"),
    [],
    ['{constructor.constructor("return process")().version}'],
  );
  const oursRuns = await fillTemplate(
    [{ path: oursHostile, name: "h.docx" }],
    { ...options, data: {} },
    { workDir: join(work, "ours-hostile") },
  ).then(
    (result) => textOf(readFileSync(result.outputs[0].path)),
    (error) => `refused: ${error.message}`,
  );

  // docx-templates: +++FOR item IN items+++ and +++END-FOR item+++ in rows of their own.
  const theirs = await invoiceTemplate(
    join(work, "theirs.docx"),
    [
      ["+++FOR item IN items+++", "", ""],
      ["+++= $item.name+++", "+++= $item.qty+++", "+++= $item.price+++"],
      ["+++END-FOR item+++", "", ""],
    ],
    ["Invoice +++= number+++"],
  );
  const theirsTemplate = readFileSync(theirs);
  let theirsOut;
  const theirsTimes = await timed(async () => {
    theirsOut = Buffer.from(await createReport({ template: theirsTemplate, data, cmdDelimiter: "+++" }));
  });
  const theirsHostile = await invoiceTemplate(
    join(work, "theirs-hostile.docx"),
    [],
    ['+++= this.constructor.constructor("return process")().version+++'],
  );
  const theirsRuns = await createReport({
    template: readFileSync(theirsHostile),
    data: {},
    cmdDelimiter: "+++",
  }).then(
    (bytes) => textOf(Buffer.from(bytes)),
    (error) => `refused: ${error.message}`,
  );

  console.log(
    JSON.stringify(
      {
        runs,
        items: items.length,
        docxtemplater: {
          fillMs: round(median(oursTimes)),
          tableRows: rowsOf(oursOut),
          hostileTemplate: oursRuns.slice(0, 160),
        },
        docxTemplates: {
          fillMs: round(median(theirsTimes)),
          tableRows: rowsOf(theirsOut),
          hostileTemplate: theirsRuns.slice(0, 160),
        },
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

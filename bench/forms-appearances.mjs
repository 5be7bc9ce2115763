#!/usr/bin/env node
// Why Fill form draws appearances itself: the IRS W-9 (packages/edit/test/fixtures/forms) filled with the
// same values by MuPDF.js's own widget appearances (setTextValue + update) and by @octavo/edit's fillForm,
// then each widget's appearance read back: the fonts and sizes it draws with, and, once flattened, whether
// the fonts that draw a Chinese, Greek and Cyrillic name are embedded (pdffonts).
//
//   node bench/forms-appearances.mjs
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fillForm } from "../packages/edit/dist/forms/fill-form.js";
import { loadMupdf } from "../packages/mupdf/dist/index.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const w9 = join(root, "packages", "edit", "test", "fixtures", "forms", "irs-fw9-2018.pdf");
const page1 = "topmostSubform[0].Page1[0]";
const values = {
  [`${page1}.f1_1[0]`]: "山田太郎 Ελένη Ивановна",
  [`${page1}.f1_2[0]`]: "Public Widgets LLC",
  [`${page1}.Address[0].f1_7[0]`]: "1600 Pennsylvania Avenue NW",
};
const work = mkdtempSync(join(tmpdir(), "octavo-bench-appearances-"));
const mupdf = await loadMupdf();

/** Each filled widget's /DA size and the font operators its appearance stream uses. */
function appearances(path) {
  const doc = new mupdf.PDFDocument(readFileSync(path));
  const found = {};
  for (const widget of doc.loadPage(0).getWidgets()) {
    if (values[widget.getName()] === undefined) continue;
    const stream = widget.getObject().get("AP").get("N");
    const content = stream.readStream().asString();
    found[widget.getName().split(".").pop()] = {
      da: widget.getObject().getInheritable("DA").asString(),
      drawsWith: [
        ...new Set([...content.matchAll(/\/(\S+) ([\d.]+) Tf/g)].map((match) => `${match[1]} ${match[2]}`)),
      ],
    };
  }
  doc.destroy();
  return found;
}

/** pdffonts' rows for the fonts of a flattened copy that are not the form's own (embedded: yes/no). */
function addedFonts(path) {
  const flat = join(work, "flat.pdf");
  const doc = new mupdf.PDFDocument(readFileSync(path));
  doc.bake(false, true);
  writeFileSync(flat, doc.saveToBuffer("garbage=compact").asUint8Array());
  doc.destroy();
  const original = execFileSync("pdffonts", [w9], { encoding: "utf8" });
  return execFileSync("pdffonts", [flat], { encoding: "utf8" })
    .split("\n")
    .slice(2)
    .filter((line) => line.trim() !== "" && !original.includes(line.split(/\s+/)[0]))
    .map((line) => {
      const columns = line.trim().split(/\s+/);
      return { font: columns[0], embedded: columns.at(-5) };
    });
}

try {
  const byMupdf = join(work, "mupdf.pdf");
  const doc = new mupdf.PDFDocument(readFileSync(w9));
  for (const widget of doc.loadPage(0).getWidgets()) {
    const value = values[widget.getName()];
    if (value === undefined) continue;
    widget.setTextValue(value);
    widget.update();
  }
  writeFileSync(byMupdf, doc.saveToBuffer("garbage=compact").asUint8Array());
  doc.destroy();

  const result = await fillForm(
    { path: w9, name: "fw9.pdf" },
    { values, flatten: false, force: false },
    { workDir: work },
  );
  const byOctavo = result.outputs[0].path;
  console.log(
    JSON.stringify(
      {
        mupdfUpdate: { appearances: appearances(byMupdf), addedFontsFlattened: addedFonts(byMupdf) },
        octavoFillForm: { appearances: appearances(byOctavo), addedFontsFlattened: addedFonts(byOctavo) },
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

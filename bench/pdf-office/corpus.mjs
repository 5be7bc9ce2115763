// The PDF → Office benchmark set: the born-digital PDFs of corpus/general and corpus/tables, chosen with
// MANIFEST.tsv and poppler, shared by libreoffice-baseline.mjs and compare.mjs so both measure the same files.
//
//   import { selectCorpus } from "./corpus.mjs";
//   const { files, skipped } = selectCorpus({ files: ["tabula_schools.pdf"], limit: 5 });
//   // files: [{ name: "tables/tabula_schools.pdf", path, pages, sourceText }]; skipped: [{ name, reason }]
//
// A file is skipped, in this order, when
//   1. its MANIFEST category is encrypted, broken or scanned (none of these live in general/ or tables/, but
//      a --files entry may point elsewhere);
//   2. pdfinfo reports it encrypted;
//   3. its MANIFEST notes say it is a scan: "image-only", "needs OCR", or an OCRed "sandwich" (image plus
//      invisible OCR text — its text layer is OCR output, not born-digital text);
//   4. pdftotext finds no words in it (nothing to recall: an image-only page or an empty XFA shell).
import { readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { isEncrypted, pageCount, pdftotextOf, wordSet } from "./metrics.mjs";

export const corpusDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "shared", "corpus");
export const CORPUS_DIRS = ["general", "tables"];
const SCAN_NOTES = /image-only|needs OCR|sandwich|\bOCRed\b/i;

/** MANIFEST.tsv rows as { name, category, notes }. */
export function readManifest() {
  const [header, ...lines] = readFileSync(join(corpusDir, "MANIFEST.tsv"), "utf8").split("\n");
  const columns = header.split("\t");
  return lines.filter(Boolean).map((line) => {
    const cells = line.split("\t");
    const row = Object.fromEntries(columns.map((column, i) => [column, cells[i] ?? ""]));
    return { name: row.path, category: row.category, notes: row.notes };
  });
}

/**
 * The benchmark files. `files`: names relative to the corpus ("tables/x.pdf"), bare file names looked up
 * in general/ and tables/, or absolute paths; default all PDFs of general/ and tables/ in MANIFEST order.
 * `limit`: keep the first N usable files. Returns { files, skipped }, each file with its page count and
 * pdftotext text.
 */
export function selectCorpus({ files: requested, limit = Number.POSITIVE_INFINITY } = {}) {
  const manifest = readManifest();
  const byName = new Map(manifest.map((row) => [row.name, row]));
  let names;
  if (requested?.length) {
    names = requested.map((entry) => {
      if (isAbsolute(entry)) {
        const rel = relative(corpusDir, entry);
        return rel.startsWith("..") ? entry : rel;
      }
      if (byName.has(entry)) return entry;
      const match = manifest.find(
        (row) => CORPUS_DIRS.includes(dirname(row.name)) && basename(row.name) === entry,
      );
      if (!match) throw new Error(`${entry}: not in ${CORPUS_DIRS.join("/ or ")}/ of the corpus`);
      return match.name;
    });
  } else {
    names = manifest
      .filter((row) => CORPUS_DIRS.includes(dirname(row.name)) && row.name.endsWith(".pdf"))
      .map((row) => row.name);
  }
  const files = [];
  const skipped = [];
  for (const name of names) {
    if (files.length >= limit) break;
    const row = byName.get(name);
    const path = isAbsolute(name) ? name : join(corpusDir, name);
    const skip = (reason) => skipped.push({ name, reason });
    if (row && ["encrypted", "broken", "scanned"].includes(row.category)) {
      skip(`manifest category ${row.category}`);
      continue;
    }
    let encrypted;
    try {
      encrypted = isEncrypted(path);
    } catch (error) {
      skip(`pdfinfo failed: ${error.message.split("\n")[0]}`);
      continue;
    }
    if (encrypted) {
      skip("encrypted (pdfinfo)");
      continue;
    }
    if (row && SCAN_NOTES.test(row.notes)) {
      skip(`scanned: ${row.notes.split(";")[0]}`);
      continue;
    }
    const sourceText = pdftotextOf(path);
    if (wordSet(sourceText).size === 0) {
      skip(`no text layer (pdftotext finds no words)${row?.notes ? `: ${row.notes.split(";")[0]}` : ""}`);
      continue;
    }
    files.push({ name, path, pages: pageCount(path), sourceText });
  }
  return { files, skipped };
}

// Per-output measurements and the markdown table/summary for the PDF → Office benchmarks, shared by
// libreoffice-baseline.mjs and compare.mjs so every engine is judged and printed the same way.
//
//   import { measureOutput, summarise, markdownTable, markdownSummary } from "./report.mjs";
//   const m = measureOutput("docx", "/tmp/out/x.docx", { sourceText, pages }); // { recall, flowingShare, … }
import { writeFileSync } from "node:fs";
import { median } from "../support.mjs";
import {
  docxStructure,
  docxText,
  wordRecall as fullWordRecall,
  pptxStructure,
  pptxText,
  xlsxSheets,
  xlsxText,
} from "./metrics.mjs";

export const RECALL_GOAL = 0.98;
const MISSING_SAMPLE = 20;

/** Word recall with only a sample of the missing words, so result JSON stays small for poor outputs. */
function wordRecall(sourceText, outputText) {
  const { missing, ...rest } = fullWordRecall(sourceText, outputText);
  return { ...rest, missing: missing.slice(0, MISSING_SAMPLE), missingCount: missing.length };
}

/**
 * Measures one output file against its source PDF. Returns the fields for `kind`:
 *   all:  recall, sourceWords, missing (the first 20 source words not found), missingCount
 *   docx: flowingShare, flowingCharShare, paragraphs, inTextBoxes, inFrames, tables, images
 *   pptx: slides, slidesMatch (slides === pages), textInBoxesShare, textShapes, picturesPerSlide,
 *         fullSlidePictures, slideSize
 *   xlsx: sheets, cells (non-empty), merges
 * or { error } when the output cannot be read.
 */
export function measureOutput(kind, output, { sourceText, pages }) {
  try {
    if (kind === "docx") {
      const s = docxStructure(output);
      return {
        ...wordRecall(sourceText, docxText(output)),
        flowingShare: s.flowingShare,
        flowingCharShare: s.flowingCharShare,
        paragraphs: s.paragraphs,
        inTextBoxes: s.inTextBoxes,
        inFrames: s.inFrames,
        tables: s.tables,
        images: s.images,
      };
    }
    if (kind === "pptx") {
      const s = pptxStructure(output);
      return {
        ...wordRecall(sourceText, pptxText(output)),
        slides: s.slides,
        slidesMatch: s.slides === pages,
        textInBoxesShare: s.textInBoxesShare,
        textShapes: s.textShapes,
        picturesPerSlide: s.slides ? s.pictures / s.slides : null,
        fullSlidePictures: s.fullSlidePictures,
        slideSize: s.slideSize,
      };
    }
    if (kind === "xlsx") {
      const sheets = xlsxSheets(output);
      return {
        ...wordRecall(sourceText, xlsxText(output)),
        sheets: sheets.length,
        cells: sheets.reduce((n, sheet) => n + sheet.rows.flat().filter((v) => v !== null).length, 0),
        merges: sheets.reduce((n, sheet) => n + sheet.merges.length, 0),
      };
    }
    throw new Error(`unknown kind ${kind}`);
  } catch (error) {
    return { error: `cannot measure output: ${error.message.split("\n")[0]}` };
  }
}

const pct = (value) => (value === null || value === undefined ? "–" : `${(value * 100).toFixed(1)} %`);
const num = (value, digits = 2) =>
  value === null || value === undefined || !Number.isFinite(value) ? "–" : value.toFixed(digits);

/**
 * Summary of one engine × kind over the results [{ file: { name, pages }, result }] where result is
 * { ok, seconds, error, timedOut, noTables, wallSeconds?, ...measureOutput }. Recall of a failed conversion
 * counts as 0 in the median and as a miss in the ≥ 98 % share; structure and speed figures are over the
 * converted files. A result with `noTables` (Excel tables mode on a PDF without tables: the right answer,
 * not a failure) is listed apart and left out of every figure.
 */
export function summarise(kind, allRows) {
  const rows = allRows.filter((row) => !row.result.noTables);
  const converted = rows.filter((row) => row.result.ok && !row.result.error);
  const recalls = rows.map((row) => (row.result.ok && !row.result.error ? (row.result.recall ?? 0) : 0));
  const seconds = converted.reduce((total, row) => total + row.result.seconds, 0);
  const pages = converted.reduce((total, row) => total + row.file.pages, 0);
  const summary = {
    files: rows.length,
    converted: converted.length,
    noTables: allRows.filter((row) => row.result.noTables).map((row) => row.file.name),
    failed: rows.filter((row) => !(row.result.ok && !row.result.error)).map((row) => row.file.name),
    timeouts: rows.filter((row) => row.result.timedOut).map((row) => row.file.name),
    medianRecall: median(recalls),
    meanRecall: recalls.length ? recalls.reduce((a, b) => a + b, 0) / recalls.length : null,
    shareAtGoal: rows.length ? recalls.filter((r) => r >= RECALL_GOAL).length / rows.length : null,
    medianSecondsPerPage: median(converted.map((row) => row.result.seconds / row.file.pages)),
    pooledSecondsPerPage: pages ? seconds / pages : null,
    totalSeconds: seconds,
    totalPages: pages,
  };
  if (converted.some((row) => typeof row.result.wallSeconds === "number")) {
    summary.totalWallSeconds = converted.reduce((total, row) => total + (row.result.wallSeconds ?? 0), 0);
  }
  if (kind === "docx") {
    summary.medianFlowingShare = median(converted.map((row) => row.result.flowingShare));
    const paragraphs = converted.reduce((n, row) => n + row.result.paragraphs, 0);
    const boxed = converted.reduce((n, row) => n + row.result.inTextBoxes + row.result.inFrames, 0);
    summary.pooledFlowingShare = paragraphs ? 1 - boxed / paragraphs : null;
  }
  if (kind === "pptx") {
    summary.slidesMatchShare = converted.length
      ? converted.filter((row) => row.result.slidesMatch).length / converted.length
      : null;
    summary.medianTextInBoxesShare = median(converted.map((row) => row.result.textInBoxesShare));
    summary.medianPicturesPerSlide = median(converted.map((row) => row.result.picturesPerSlide));
  }
  if (kind === "xlsx") {
    summary.totalSheets = converted.reduce((n, row) => n + row.result.sheets, 0);
    summary.medianCells = median(converted.map((row) => row.result.cells));
  }
  return summary;
}

function cells(kind, result, pages) {
  if (!result) return [];
  if (!result.supported && result.supported !== undefined) return ["n/a"];
  if (result.noTables) return [num(result.seconds, 1), "no tables"];
  if (!result.ok || result.error) {
    const reason = result.timedOut ? "TIMEOUT" : `FAIL: ${(result.error ?? "").slice(0, 60)}`;
    return [num(result.seconds, 1), reason];
  }
  const common = [num(result.seconds, 1), num(result.seconds / pages, 2), pct(result.recall)];
  if (kind === "docx") {
    return [...common, pct(result.flowingShare), String(result.tables), String(result.images)];
  }
  if (kind === "pptx") {
    return [
      ...common,
      `${result.slides}${result.slidesMatch ? "" : " ✗"}`,
      pct(result.textInBoxesShare),
      num(result.picturesPerSlide, 1),
    ];
  }
  return [...common, String(result.sheets), String(result.cells)];
}

export const COLUMNS = {
  docx: ["s", "s/page", "recall", "flowing", "tables", "images"],
  pptx: ["s", "s/page", "recall", "slides", "text in boxes", "pics/slide"],
  xlsx: ["s", "s/page", "recall", "sheets", "cells"],
};

/**
 * Markdown table: one row per file, for each [label, kind] of `engines` the columns of COLUMNS[kind].
 * `rows`: [{ file: { name, pages, words }, results: { [label]: result } }].
 */
export function markdownTable(engines, rows) {
  const header = ["File", "Pages", "Src words"];
  for (const [label, kind] of engines) {
    header.push(...COLUMNS[kind].map((column, i) => (i === 0 ? `${label} ${column}` : column)));
  }
  const lines = [`| ${header.join(" | ")} |`, `| ${header.map(() => "---").join(" | ")} |`];
  for (const row of rows) {
    const line = [row.file.name, String(row.file.pages), String(row.file.words ?? "")];
    for (const [label, kind] of engines) {
      const c = cells(kind, row.results[label], row.file.pages);
      while (c.length < COLUMNS[kind].length) c.push("");
      line.push(...c);
    }
    lines.push(`| ${line.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** Markdown bullet list for summarise() output. */
export function markdownSummary(label, kind, s) {
  const lines = [
    `**${label}** — ${s.converted}/${s.files} files converted` +
      (s.failed.length ? `; failed: ${s.failed.join(", ")}` : "") +
      (s.timeouts.length ? `; timeouts: ${s.timeouts.join(", ")}` : "") +
      (s.noTables?.length ? `; no tables found (not counted) in ${s.noTables.length} files` : ""),
    `- word recall: median ${pct(s.medianRecall)}, mean ${pct(s.meanRecall)}, ` +
      `files ≥ ${RECALL_GOAL * 100} %: ${pct(s.shareAtGoal)} (failures count as 0)`,
  ];
  if (kind === "docx") {
    lines.push(
      `- flowing paragraphs: median per file ${pct(s.medianFlowingShare)}, pooled ${pct(s.pooledFlowingShare)}`,
    );
  }
  if (kind === "pptx") {
    lines.push(
      `- slides = pages: ${pct(s.slidesMatchShare)} of files; text in text boxes: median ${pct(s.medianTextInBoxesShare)}; ` +
        `pictures per slide: median ${num(s.medianPicturesPerSlide, 1)}`,
    );
  }
  if (kind === "xlsx") {
    lines.push(
      `- sheets: ${s.totalSheets} in all; non-empty cells: median ${num(s.medianCells, 0)} per file`,
    );
  }
  lines.push(
    `- speed: median ${num(s.medianSecondsPerPage)} s/page, pooled ${num(s.pooledSecondsPerPage)} s/page ` +
      `(${num(s.totalSeconds, 0)} s for ${s.totalPages} pages` +
      (s.totalWallSeconds === undefined ? ")" : `; ${num(s.totalWallSeconds, 0)} s with process starts)`),
  );
  return lines.join("\n");
}

/**
 * One markdown table comparing summarise() outputs: `entries` is [[label, kind, summary]]. Cells that do
 * not apply to a kind are "".
 */
export function markdownSummaryTable(entries) {
  const header = [
    "Engine × kind",
    "converted",
    "recall median",
    "recall mean",
    `files ≥ ${RECALL_GOAL * 100} %`,
    "flowing (docx)",
    "slides = pages",
    "text in boxes",
    "pics/slide",
    "s/page median",
    "total s / pages",
  ];
  const lines = [`| ${header.join(" | ")} |`, `| ${header.map(() => "---").join(" | ")} |`];
  for (const [label, kind, s] of entries) {
    const noTables = s.noTables?.length ? ` (+${s.noTables.length} no tables)` : "";
    lines.push(
      `| ${[
        label,
        `${s.converted}/${s.files}${noTables}`,
        pct(s.medianRecall),
        pct(s.meanRecall),
        pct(s.shareAtGoal),
        kind === "docx" ? `${pct(s.medianFlowingShare)} (pooled ${pct(s.pooledFlowingShare)})` : "",
        kind === "pptx" ? pct(s.slidesMatchShare) : "",
        kind === "pptx" ? pct(s.medianTextInBoxesShare) : "",
        kind === "pptx" ? num(s.medianPicturesPerSlide, 1) : "",
        num(s.medianSecondsPerPage),
        `${num(s.totalSeconds, 0)} / ${s.totalPages} = ${num(s.pooledSecondsPerPage)}`,
      ].join(" | ")} |`,
    );
  }
  return lines.join("\n");
}

export function printSkipped(skipped) {
  console.log(`Skipped (${skipped.length}):`);
  for (const { name, reason } of skipped) console.log(`- ${name}: ${reason}`);
}

/** The run as JSON: `fields` (version, settings, summaries…) and the rows, without each file's source text. */
export function writeResults(path, fields, rows) {
  const strip = ({ sourceText, ...file }) => file;
  const json = { ...fields, rows: rows.map((row) => ({ ...row, file: strip(row.file) })) };
  writeFileSync(path, JSON.stringify(json, null, 2));
}

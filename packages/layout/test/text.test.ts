import { readFileSync } from "node:fs";
import { loadMupdf } from "@octavo/mupdf";
import { corpusPath, readManifest } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { analyzeDocument, type DocumentLayout, type Paragraph } from "../src/index.js";
import { layoutText, pdftotext, recall, wordsOf } from "./words.js";

const mupdf = await loadMupdf();

/** Born-digital files of varied kinds, with the (zero-based) pages read. */
const samples: { file: string; pages: number[] }[] = [
  { file: "general/pdfjs_tracemonkey_with_annotations.pdf", pages: [0, 1, 2] },
  { file: "general/pdfplumber_federal-register-2020-17221.pdf", pages: [0, 3] },
  // Page 3 (index 2) is left out: pdftotext reads its font as shifted letters ("qkdqfh" for "enhance").
  { file: "general/docling_redp5110_sampled.pdf", pages: [0, 3, 5, 7] },
  { file: "general/ocrmypdf_tagged.pdf", pages: [0, 1] },
  { file: "general/samplefiles_pdflatex-outline.pdf", pages: [0, 1, 2, 3] },
  { file: "general/cabinet_text_only_pdfa1b.pdf", pages: [0] },
  { file: "general/samplefiles_crazyones-pdfa.pdf", pages: [0] },
];

function analyze(file: string, pages: number[]): DocumentLayout {
  const doc = mupdf.Document.openDocument(readFileSync(corpusPath(file)), "application/pdf");
  try {
    return analyzeDocument(doc, { pages, images: false });
  } finally {
    doc.destroy();
  }
}

const layouts = new Map(samples.map((s) => [s.file, analyze(s.file, s.pages)]));

describe("text layout on born-digital PDFs", () => {
  it("keeps at least 98 % of the words pdftotext finds, in paragraphs and tables", () => {
    const rows: string[] = [];
    const recalls: [string, number][] = [];
    for (const { file, pages } of samples) {
      const layout = layouts.get(file);
      if (!layout) throw new Error(file);
      const ours = wordsOf(layout.pages.map(layoutText).join("\n"));
      const reference = new Set<string>();
      for (const p of pages)
        for (const w of wordsOf(pdftotext(corpusPath(file), p + 1, p + 1))) reference.add(w);
      const r = recall(ours, reference);
      rows.push(
        `${file.padEnd(55)} pages ${pages.join(",").padEnd(8)} words ${String(reference.size).padStart(5)}  recall ${(r * 100).toFixed(2)} %`,
      );
      recalls.push([file, r]);
    }
    console.log(rows.join("\n"));
    for (const [file, r] of recalls) expect(r, file).toBeGreaterThanOrEqual(0.98);
  });

  it("reads a two-column paper column by column", () => {
    const page = layouts.get("general/pdfjs_tracemonkey_with_annotations.pdf")?.pages[0];
    if (!page) throw new Error("no page");
    expect(page.columns.length).toBe(2);
    const text = layoutText(page).replace(/\s+/g, " ");
    // The abstract closes the left column; the introduction's first words open the right one.
    const leftEnd = text.indexOf("Categories and Subject Descriptors");
    const rightStart = text.indexOf("1. Introduction");
    expect(leftEnd).toBeGreaterThan(0);
    expect(rightStart).toBeGreaterThan(leftEnd);
    // The title, above both columns, comes first.
    expect(text.indexOf("Trace-based Just-in-Time")).toBeLessThan(leftEnd);
  });

  it("flows lines into paragraphs on prose pages", () => {
    for (const file of [
      "general/pdfjs_tracemonkey_with_annotations.pdf",
      "general/pdfplumber_federal-register-2020-17221.pdf",
    ]) {
      const page = layouts.get(file)?.pages.find((p) => p.index === (file.includes("tracemonkey") ? 0 : 3));
      if (!page) throw new Error(file);
      const paragraphs = page.blocks.filter((b): b is Paragraph => b.kind === "paragraph");
      const lines = paragraphs.reduce((n, p) => n + p.lines.length, 0);
      console.log(`${file}: ${lines} lines in ${paragraphs.length} paragraphs`);
      expect(lines).toBeGreaterThan(20);
      expect(paragraphs.length).toBeLessThan(lines / 3);
      expect(paragraphs.filter((p) => p.lines.length >= 5).length).toBeGreaterThanOrEqual(5);
    }
    const paper = layouts.get("general/pdfjs_tracemonkey_with_annotations.pdf")?.pages[0];
    const justified = paper?.blocks.filter((b) => b.kind === "paragraph" && b.align === "justify") ?? [];
    expect(justified.length).toBeGreaterThanOrEqual(5);
  });

  it("finds no text on a scanned page", () => {
    const scanned = readManifest().find((e) => e.path === "scanned/ocrmypdf_c02-22.pdf");
    expect(scanned).toBeDefined();
    const layout = analyze("scanned/ocrmypdf_c02-22.pdf", [0]);
    expect(layout.pages[0]?.hasText).toBe(false);
    expect(layout.pages[0]?.blocks.some((b) => b.kind === "paragraph")).toBe(false);
  });
});

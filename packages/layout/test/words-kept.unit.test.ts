// Words the layout used to break, each on the page of a real file where it happened: an index joined to
// its letter, an Arabic lam-alef ligature in reading order, cells' words kept apart and kept whole.
import { readFileSync } from "node:fs";
import { loadMupdf } from "@octavo/mupdf";
import { corpusPath } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { analyzeDocument, type PageLayout, type Paragraph } from "../src/index.js";

const mupdf = await loadMupdf();

function page(file: string, index: number): PageLayout {
  const doc = mupdf.Document.openDocument(readFileSync(corpusPath(file)), "application/pdf");
  try {
    const layout = analyzeDocument(doc, { pages: [index], images: false }).pages[0];
    if (!layout) throw new Error(`no page ${index} in ${file}`);
    return layout;
  } finally {
    doc.destroy();
  }
}

function lineTexts(paragraphs: Paragraph[]): string[] {
  return paragraphs.flatMap((p) => p.lines.map((l) => l.spans.map((s) => s.text).join("")));
}

/** Every line of the page, in paragraphs and in table cells. */
function pageLines(layout: PageLayout): string[] {
  return layout.blocks.flatMap((block) =>
    block.kind === "paragraph"
      ? lineTexts([block])
      : block.kind === "table"
        ? block.cells.flatMap((cell) => lineTexts(cell.paragraphs))
        : [],
  );
}

describe("words kept whole", () => {
  it("sets a subscript right after its letter, taking the space MuPDF left in its place", () => {
    const lines = pageLines(page("general/samplefiles_GeoTopo-komprimiert.pdf", 9));
    const line = lines.find((text) => text.startsWith("Seien (X, d"));
    // The index joins its letter ("dX", as pdftotext reads it); the bracket may keep its small gap.
    expect(line).toMatch(/^Seien \(X, dX ?\) und \(Y, dY ?\) metrische Räume/);
  });

  it("keeps Arabic lam-alef ligatures in reading order", () => {
    const text = pageLines(page("tables/camelot_arabic.pdf", 0)).join(" ");
    expect(text).toContain("ولاية");
    expect(text).toContain("الانجليزية");
    expect(text).not.toContain("والية");
  });

  it("keeps the space between words a borderless table's cell split cut out", () => {
    const table = page("tables/camelot_budget.pdf", 0).blocks.find((block) => block.kind === "table");
    const texts = table?.kind === "table" ? table.cells.map((cell) => cell.text) : [];
    expect(texts).toContain("5. Nuclear Power Schemes");
  });

  it("puts a word that overhangs a ruled grid into one cell, whole", () => {
    const lines = pageLines(page("general/pypdf_GeoBase_NHNC1_Data_Model_UML_EN.pdf", 6));
    expect(lines).toContain("Hydrography");
    expect(lines.join(" ")).not.toMatch(/Hydrogr\b/);
  });
});

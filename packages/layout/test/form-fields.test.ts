// Filled-in form fields: their values live in widget appearances, not in the page contents, and must
// reach the layout once, where a viewer shows them, checked against pdftotext on real forms.
import { readFileSync } from "node:fs";
import type { Mupdf } from "@octavo/mupdf";
import { loadMupdf } from "@octavo/mupdf";
import { corpusPath } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { analyzeDocument } from "../src/index.js";
import { layoutText, pdftotext, recall, wordsOf } from "./words.js";

const mupdf = await loadMupdf();

interface Read {
  /** The layout's text of the page. */
  ours: string;
  /** pdftotext -layout of the same page. */
  reference: string;
  /** Non-empty values of the page's text and choice fields. */
  values: string[];
}

function read(file: string, index: number): Read {
  const path = corpusPath(file);
  const doc = mupdf.Document.openDocument(readFileSync(path), "application/pdf");
  try {
    const page = doc.loadPage(index) as Mupdf.PDFPage;
    const values = page
      .getWidgets()
      .filter((w) => w.isText() || w.isChoice())
      .map((w) => w.getValue())
      .filter((v) => v.trim() !== "");
    page.destroy();
    const layout = analyzeDocument(doc, { pages: [index], images: false }).pages[0];
    if (!layout) throw new Error(`no page ${index} in ${file}`);
    return { ours: layoutText(layout), reference: pdftotext(path, index + 1, index + 1), values };
  } finally {
    doc.destroy();
  }
}

/** How often `needle` occurs in `text`, whitespace runs counting as one space. */
function occurrences(text: string, needle: string): number {
  const squeeze = (s: string) => s.replace(/\s+/g, " ");
  return squeeze(text).split(squeeze(needle)).length - 1;
}

describe("form field values", () => {
  it("keeps the values of fields whose appearance MuPDF has to synthesise (/NeedAppearances)", () => {
    const { ours, reference } = read("general/samplefiles_libreoffice-form.pdf", 0);
    expect(ours).toContain("Alice");
    expect(ours).toContain("Bob");
    expect(recall(wordsOf(ours), wordsOf(reference))).toBe(1);
    // Unticked checkboxes and radio buttons show nothing, not their "Off" state.
    expect(ours).not.toMatch(/\bOff\b/);
  });

  it("keeps the values an XFA form's AcroForm fields draw, a combo box's choice included", () => {
    const { ours, reference, values } = read("general/tika_testPDF_XFA_govdocs1_258578.pdf", 0);
    expect(values).toContain("my_school");
    for (const value of values) expect(ours).toContain(value.replace(/\s+/g, " "));
    expect(ours).toContain("Young Abraham Lincoln (Ranger Ed)");
    // The one word missed is pdftotext's: it runs "3rd choice" into the field after it ("choicemy_date3").
    expect(recall(wordsOf(ours), wordsOf(reference))).toBeGreaterThan(0.99);
  });

  it.each([
    ["general/tika_testPDF_XFA_govdocs1_258578.pdf", 0],
    ["general/samplefiles_libreoffice-form.pdf", 0],
    ["general/pdfjs_prefilled_f1040.pdf", 1],
  ])("writes each value of %s as often as pdftotext does, not twice", (file, index) => {
    const { ours, reference, values } = read(file, index);
    expect(values.length).toBeGreaterThan(0);
    for (const value of values)
      expect([value, occurrences(ours, value)]).toEqual([value, occurrences(reference, value)]);
  });

  it("writes no checkbox export value, no unreadable mark and no placeholder for a blank signature", () => {
    const f1040 = read("general/pdfjs_prefilled_f1040.pdf", 1);
    expect(occurrences(f1040.ours, "Yes")).toBe(occurrences(f1040.reference, "Yes"));
    // The mark's symbol font has no Unicode for it: MuPDF reads U+0014, which a Word document cannot hold.
    const controls = [...f1040.ours].filter((c) => (c.codePointAt(0) ?? 32) < 32 && !"\t\n\r".includes(c));
    expect(controls).toEqual([]);
    // MuPDF would draw "SIGN" in an unsigned signature field that has no appearance; viewers draw nothing.
    const signed = read("general/pikepdf_form_210966.pdf", 1);
    expect(wordsOf(signed.reference).has("sign")).toBe(false);
    expect(wordsOf(signed.ours).has("sign")).toBe(false);
  });
});

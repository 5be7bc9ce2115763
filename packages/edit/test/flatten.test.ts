import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { flatten } from "../src/flatten.js";
import {
  annotationBoxes,
  type Box,
  centredIn,
  drawWithMupdf,
  drawWithPoppler,
  inkMatch,
  leftovers,
  wordBoxes,
} from "./flatten-helpers.js";
import {
  context,
  corpus,
  failureOf,
  pageTexts,
  pdftotext,
  qpdfCheck,
  qpdfPages,
  type Rendering,
} from "./helpers.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
const fixture = (name: string) => ({ path: join(fixtures, name), name });
const everything = { forms: true, annotations: true };

/** Each box's ink, drawn before and after, is the same marks (within a pixel), and there is ink. */
function expectSameMarks(before: Rendering, after: Rendering, boxes: Map<string, Box[]>): void {
  for (const [key, list] of boxes) {
    for (const box of list) {
      const found = inkMatch(before, after, box);
      expect({ key, box, ...found, match: found.match >= 0.9 }).toEqual({
        key,
        box,
        before: found.before,
        after: found.after,
        match: true,
      });
      expect(found.after).toBeGreaterThan(0);
    }
  }
}

describe("flatten", () => {
  // form-filled.pdf (fixtures/README.md): text, radio, check box and choice values, one value without
  // an appearance and one with a stale one (NeedAppearances is true), a FreeText note and a link.
  it("draws every field value and the note where a viewer showed them, leaving no form or annotation", async () => {
    const ctx = await context();
    const input = fixture("form-filled.pdf");
    const result = await flatten(input, everything, ctx);
    const output = result.outputs[0]?.path ?? "";
    expect(result.outputs[0]?.name).toBe("form-filled.pdf");
    expect((await qpdfCheck(output)).code).toBe(0);
    expect(await leftovers(output)).toEqual({ subtypes: [[]], acroForm: false });
    expect(result.warnings).toEqual([expect.stringMatching(/^1 link of form-filled\.pdf was removed/)]);

    // MuPDF draws the input as a viewer does (it redraws fields when NeedAppearances asks it to);
    // poppler draws the output, whose marks are page content now.
    const boxes = await annotationBoxes(input.path, 1);
    boxes.delete("Last Name"); // empty, drawn as a hairline box 4 pt high
    expectSameMarks(await drawWithMupdf(input.path, 1), await drawWithPoppler(output, 1), boxes);

    const words = await wordBoxes(output, 1);
    const placed = (word: string, field: string) =>
      (words.get(word) ?? []).some((box) => (boxes.get(field) ?? []).some((rect) => centredIn(box, rect)));
    expect(placed("Ada", "First Name")).toBe(true);
    expect(placed("1815-12-10", "Birthday")).toBe(true); // had no appearance
    expect(placed("Charles", "First Name_2")).toBe(true); // its stored appearance still said "Bob"
    expect(placed("French", "Nationality")).toBe(true);
    expect(placed("Approved", "FreeText")).toBe(true);
    expect(words.has("Bob")).toBe(false);
  });

  it("keeps the form with forms: false, and the note and link with annotations: false", async () => {
    const input = fixture("form-filled.pdf");
    const formKept = await flatten(input, { forms: false, annotations: true }, await context());
    const kept = await leftovers(formKept.outputs[0]?.path ?? "");
    expect(kept.acroForm).toBe(true);
    expect(kept.subtypes[0]?.filter((subtype) => subtype !== "Widget")).toEqual([]);
    expect(kept.subtypes[0]?.length).toBe(9);

    const annotationsKept = await flatten(input, { forms: true, annotations: false }, await context());
    const output = annotationsKept.outputs[0]?.path ?? "";
    expect(await leftovers(output)).toEqual({ subtypes: [["FreeText", "Link"]], acroForm: false });
    expect(annotationsKept.warnings).toEqual([]);
    expect(await pdftotext(output)).toContain("Charles");
    expect((await qpdfCheck(output)).code).toBe(0);
  });

  // markup.pdf: highlight, free text and ink made with MuPDF on a pdflatex page that has 9 links.
  it("draws markup into the page and removes the links, with a warning", async () => {
    const ctx = await context();
    const input = fixture("markup.pdf");
    const result = await flatten(input, everything, ctx);
    const output = result.outputs[0]?.path ?? "";
    expect((await qpdfCheck(output)).code).toBe(0);
    expect(await leftovers(output)).toEqual({ subtypes: [[], [], [], []], acroForm: false });
    expect(result.warnings).toEqual([expect.stringMatching(/^9 links of markup\.pdf were removed/)]);
    expectSameMarks(
      await drawWithPoppler(input.path, 1),
      await drawWithPoppler(output, 1),
      await annotationBoxes(input.path, 1),
    );
    expect(await pdftotext(output)).toContain("Checked by the editor");
    expect((await pageTexts(output)).slice(1)).toEqual((await pageTexts(input.path)).slice(1));
  });

  it("leaves links and markup alone with annotations: false, saying there was nothing to flatten", async () => {
    const result = await flatten(fixture("markup.pdf"), { forms: true, annotations: false }, await context());
    const output = result.outputs[0]?.path ?? "";
    expect(result.warnings).toEqual([
      "markup.pdf has no form fields, so there was nothing to flatten; it was rewritten unchanged.",
    ]);
    const left = await leftovers(output);
    expect([...(left.subtypes[0] ?? [])].sort()).toEqual([
      "FreeText",
      "Highlight",
      "Ink",
      ...Array<string>(9).fill("Link"),
    ]);
  });

  // FPDF2 wrote these inline in /Annots and without appearances: MuPDF draws them, the note as an icon
  // of its own size (as viewers do), not stretched over the annotation's 3 pt rectangle.
  it("flattens a third-party file's note, highlight and ink where MuPDF showed them", async () => {
    const ctx = await context();
    const input = corpus("general/samplefiles_annotated_pdf.pdf");
    const result = await flatten(input, everything, ctx);
    const output = result.outputs[0]?.path ?? "";
    expect(result.warnings).toEqual([]);
    expect(await leftovers(output)).toEqual({ subtypes: [[]], acroForm: false });
    const boxes = await annotationBoxes(input.path, 1);
    const before = await drawWithMupdf(input.path, 1);
    const after = await drawWithPoppler(output, 1);
    expectSameMarks(before, after, boxes);
    expect((await qpdfCheck(output)).code).toBe(0);
  });

  // pdf.js's test file: FreeText, Line, Circle, Polygon, Square, Underline, StrikeOut, Caret, a note and
  // four Ink annotations whose appearance box is empty (bake() would scale those by 1/0).
  it("flattens every kind of markup of a pdf.js test file where MuPDF showed it", async () => {
    const input = corpus("general/pdfjs_issue14438_chi_sim.pdf");
    const result = await flatten(input, everything, await context());
    const output = result.outputs[0]?.path ?? "";
    expect((await qpdfCheck(output)).code).toBe(0);
    expect(await leftovers(output)).toEqual({ subtypes: [[]], acroForm: false });
    const boxes = await annotationBoxes(input.path, 1);
    expect([...boxes.values()].flat().length).toBe(14);
    expectSameMarks(await drawWithMupdf(input.path, 1), await drawWithMupdf(output, 1), boxes);
    expect(await pdftotext(output)).toBe(await pdftotext(input.path));
  });

  it("flattens the AcroForm fields of an XFA form, dropping the XFA with a warning", async () => {
    const input = corpus("general/tika_testPDF_XFA_govdocs1_258578.pdf", "school.pdf");
    const before = await pdftotext(input.path);
    const result = await flatten(input, everything, await context());
    const output = result.outputs[0]?.path ?? "";
    expect(result.warnings).toEqual([expect.stringMatching(/^school\.pdf also held an XFA form/)]);
    expect(await leftovers(output)).toEqual({ subtypes: [[]], acroForm: false });
    const after = await pdftotext(output);
    for (const value of ["my_school", "my_grade_level", "my_teacher_name1", "my_room3"]) {
      expect(after).toContain(value);
    }
    // The page's own text is all still there.
    for (const line of before.split("\n").filter((text) => text.trim().length > 3)) {
      expect(after).toContain(line.trim());
    }
  });

  it("rewrites a file with nothing to flatten unchanged, and says so", async () => {
    const ctx = await context();
    const input = corpus("general/samplefiles_habibi.pdf", "poem.pdf");
    const result = await flatten(input, everything, ctx);
    const output = result.outputs[0]?.path ?? "";
    expect(result.warnings).toEqual([
      "poem.pdf has no form fields or annotations, so there was nothing to flatten; it was rewritten unchanged.",
    ]);
    expect(await pdftotext(output)).toBe(await pdftotext(input.path));
    const before = await drawWithPoppler(input.path, 1);
    const after = await drawWithPoppler(output, 1);
    expect(after.pixels).toEqual(before.pixels);
    expect((await qpdfCheck(output)).code).toBe(0);
  });

  it("passes a damaged file's repair on, and refuses encrypted files and files that are not PDFs", async () => {
    const damaged = await flatten(
      corpus("broken/cabinet_corruptionOneByteMissing.pdf", "scan.pdf"),
      everything,
      await context(),
    );
    expect(damaged.warnings[0]).toMatch(/^scan\.pdf is damaged; \w+ reconstructed it/);
    expect(await qpdfPages(damaged.outputs[0]?.path ?? "")).toBe(1);
    expect((await qpdfCheck(damaged.outputs[0]?.path ?? "")).code).toBe(0);

    const looping = await failureOf(
      flatten(corpus("broken/qpdf_pages-loop.pdf"), everything, await context()),
    );
    expect(looping.code).toBe("invalid_input");
    expect(looping.message).toMatch(/Run the repair operation on it first/);

    const locked = await failureOf(
      flatten(corpus("encrypted/pypdf_r4-aes-user-password.pdf"), everything, await context()),
    );
    expect(locked.code).toBe("password_required");
    // Every mislabeled file that is not a PDF at all.
    for (const file of [
      "mislabeled/ocrmypdf_typewriter_png_renamed.pdf",
      "mislabeled/pdfplumber_empty.pdf",
      "mislabeled/pydocx_test_docx_renamed.pdf",
      "mislabeled/docling_table_06_html_renamed.pdf",
    ]) {
      const refused = await failureOf(flatten(corpus(file), everything, await context()));
      expect(refused.code).toBe("invalid_input");
    }
  });
});

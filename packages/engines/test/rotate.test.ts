import { describe, expect, it } from "vitest";
import { rotate } from "../src/index.js";
import { context, corpus, failureOf, openWithMupdf, textChars } from "./helpers.js";

async function rotations(path: string): Promise<number[]> {
  const doc = await openWithMupdf(path);
  try {
    return Array.from({ length: doc.countPages() }, (_, index) => {
      const value = doc.findPage(index).getInheritable("Rotate");
      return value.isNumber() ? value.asNumber() : 0;
    });
  } finally {
    doc.destroy();
  }
}

describe("rotate", () => {
  it("adds the angle to every page of a file without rotation, keeping its text", async () => {
    const input = corpus("general/samplefiles_pdflatex-outline.pdf", "notes.pdf");
    const result = await rotate(input, { angle: 90 }, await context());
    expect(result.outputs[0]?.name).toBe("notes.pdf");
    expect(await rotations(result.outputs[0]?.path ?? "")).toEqual([90, 90, 90, 90]);
    expect(await textChars(result.outputs[0]?.path ?? "")).toBe(await textChars(input.path));
  });

  it("adds to an existing rotation (270 + 180 = 90) on the listed pages only", async () => {
    const input = corpus("office/docling_odf_presentation_01.odp.reference.pdf");
    expect(await rotations(input.path)).toEqual([270, 270, 270]);
    const result = await rotate(input, { angle: 180, pages: "1,3" }, await context());
    expect(await rotations(result.outputs[0]?.path ?? "")).toEqual([90, 270, 90]);
  });

  it("turns pages with /Rotate 90 upright with 270", async () => {
    const result = await rotate(
      corpus("tables/tabula_schools.pdf"),
      { angle: 270, pages: "2-5" },
      await context(),
    );
    expect(await rotations(result.outputs[0]?.path ?? "")).toEqual([90, 0, 0, 0, 0]);
  });

  it("refuses pages outside the document", async () => {
    const failure = await failureOf(
      rotate(corpus("tables/tabula_schools.pdf"), { angle: 90, pages: "4-6" }, await context()),
    );
    expect(failure.code).toBe("invalid_input");
    expect(failure.message).toContain("4-6");
    expect(failure.message).toContain("5 pages");
  });

  // A clean file takes MuPDF's probe and qpdf's own rotation as the agreement of both parsers; a file
  // qpdf has to reconstruct (its rotation ends with warnings) goes through the whole preflight, which
  // names the damage, exactly as when every file went through it.
  it("reports no damage on a clean file, and names it on one qpdf reconstructs", async () => {
    const clean = await rotate(corpus("tables/tabula_schools.pdf"), { angle: 90 }, await context());
    expect(clean.warnings).toEqual([]);
    const damaged = await rotate(
      corpus("broken/cabinet_corruptionOneByteMissing.pdf", "report.pdf"),
      { angle: 90 },
      await context(),
    );
    expect(damaged.warnings).toEqual([
      expect.stringMatching(/^report\.pdf is damaged; qpdf reconstructed it/),
    ]);
    expect(await rotations(damaged.outputs[0]?.path ?? "")).toEqual([90]);
  });
});

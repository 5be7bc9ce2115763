import { describe, expect, it } from "vitest";
import { merge } from "../src/index.js";
import { context, corpus, failureOf, flatOutline, openWithMupdf, qpdfPages, tool } from "./helpers.js";

const outlined = "general/samplefiles_pdflatex-outline.pdf"; // 4 pages, 9 bookmarks (named destinations)
const govdocs = "general/govdocs_error_set_1_316267.pdf"; // 104 pages, 152 nested bookmarks

async function bookmarksOf(relative: string) {
  const doc = await openWithMupdf(corpus(relative).path);
  try {
    return { pages: doc.countPages(), outline: flatOutline(doc) };
  } finally {
    doc.destroy();
  }
}

describe("merge", () => {
  it("joins three large files in order; the page count is the sum", async () => {
    const files = [
      govdocs,
      "general/govdocs_error_set_2_064034.pdf",
      "general/samplefiles_GeoTopo-komprimiert.pdf",
    ];
    const progress: number[] = [];
    const result = await merge(
      files.map((file) => corpus(file)),
      {},
      await context({ onProgress: (f) => progress.push(f) }),
    );
    expect(result.engine).toBe("mupdf");
    expect(result.outputs).toHaveLength(1);
    expect(result.outputs[0]?.name).toBe("merged.pdf");
    expect(result.outputs[0]?.contentType).toBe("application/pdf");
    const path = result.outputs[0]?.path ?? "";
    expect(await qpdfPages(path)).toBe(104 + 113 + 117);
    expect((await tool("qpdf", ["--check", path])).code).not.toBe(2);
    expect(progress.at(-1)).toBe(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it("keeps every input's bookmarks, each pointing at its page in the merged file", async () => {
    const a = await bookmarksOf(outlined);
    const b = await bookmarksOf(govdocs);
    expect(a.outline.length).toBe(9);
    expect(b.outline.length).toBe(152);
    const result = await merge(
      [corpus(outlined), corpus(govdocs), corpus(outlined, "again.pdf")],
      {},
      await context(),
    );
    const merged = await openWithMupdf(result.outputs[0]?.path ?? "");
    try {
      const shift = (items: typeof a.outline, offset: number) =>
        items.map((item) => ({ ...item, page: item.page < 0 ? -1 : item.page + offset }));
      const expected = [
        ...shift(a.outline, 0),
        ...shift(b.outline, a.pages),
        ...shift(a.outline, a.pages + b.pages),
      ];
      expect(merged.countPages()).toBe(a.pages * 2 + b.pages);
      expect(flatOutline(merged)).toEqual(expected);
      // The XYZ position of a named destination survives, re-aimed at the shifted page.
      const source = await openWithMupdf(corpus(outlined).path);
      const original = source.resolveLinkDestination(source.loadOutline()?.at(-1)?.uri ?? "");
      source.destroy();
      const copied = merged.resolveLinkDestination(merged.loadOutline()?.at(-1)?.uri ?? "");
      expect(original.type).toBe("XYZ");
      expect(copied).toMatchObject({
        type: "XYZ",
        page: original.page + a.pages + b.pages,
        x: original.x,
        y: original.y,
      });
    } finally {
      merged.destroy();
    }
  });

  it("merges a file whose bookmarks loop, skipping only those bookmarks, without hanging", async () => {
    const started = Date.now();
    const result = await merge(
      [corpus("broken/qpdf_outlines-with-loop.pdf"), corpus(outlined)],
      {},
      await context(),
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.warnings.join(" ")).toMatch(/bookmarks of qpdf_outlines-with-loop\.pdf were left out/);
    const merged = await openWithMupdf(result.outputs[0]?.path ?? "");
    try {
      expect(merged.countPages()).toBe(34);
      const outline = flatOutline(merged);
      expect(outline).toHaveLength(9);
      expect(outline.every((item) => item.page >= 30)).toBe(true);
    } finally {
      merged.destroy();
    }
  });

  it("merges damaged inputs after rebuilding them, including a page-count bomb", async () => {
    const started = Date.now();
    const result = await merge(
      [
        corpus("broken/pdfjs_poppler-67295-0.pdf"),
        corpus("broken/qpdf_append-xref-loop.pdf"),
        corpus(outlined),
      ],
      {},
      await context(),
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    // The bomb's tree claims 9999999999 pages and holds 1; MuPDF alone reads 0 of the xref-loop file's 30.
    expect(await qpdfPages(result.outputs[0]?.path ?? "")).toBe(1 + 30 + 4);
    expect(result.warnings.join(" ")).toMatch(/claims 9999999999 pages/);
  });

  it("names the encrypted input when refusing it", async () => {
    const failure = await failureOf(
      merge([corpus(outlined), corpus("encrypted/qpdf_c-r6-in.pdf")], {}, await context()),
    );
    expect(failure.code).toBe("password_required");
    expect(failure.message).toContain("qpdf_c-r6-in.pdf");
    expect(failure.message).toMatch(/unlock/);
  });
});

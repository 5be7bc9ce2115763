import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { readManifest } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { repair } from "../src/index.js";
import {
  context,
  corpus,
  corpusDir,
  failureOf,
  openWithMupdf,
  qpdfPages,
  textChars,
  tool,
} from "./helpers.js";

type Expected =
  | { pages: number; engine: string; why: string; textLost?: string }
  | { refused: "invalid_input"; why: string };

/**
 * What repair gives for each PDF of broken/, as measured with qpdf 11.3, MuPDF.js 1.28.1 and
 * Ghostscript 10.0 (see docs/engines.md). `pages` is exactly what the output has.
 */
const expected: Record<string, Expected> = {
  "cabinet_corruptionOneByteMissing.pdf": {
    pages: 1,
    engine: "qpdf",
    why: "offsets shifted by one byte; qpdf rebuilds the xref",
  },
  "cabinet_veraPDFHiResWrongObjectID.pdf": {
    pages: 1,
    engine: "qpdf",
    why: "dangling image reference; structure intact",
  },
  "govdocs_error_set_2_020747.pdf": {
    pages: 12,
    engine: "qpdf+MuPDF",
    why: "damaged xref and a broken content stream; MuPDF rewrites the contents so qpdf --check passes",
  },
  "govdocs_error_set_2_027613.pdf": {
    pages: 429,
    engine: "qpdf+MuPDF",
    why: "damaged xref; a content stream holds a number beyond 64 bits, which qpdf --check rejects until MuPDF rewrites the stream",
  },
  "govdocs_error_set_2_050734.pdf": { pages: 22, engine: "qpdf+MuPDF", why: "damaged xref and streams" },
  "govdocs_error_set_2_189478.pdf": { pages: 18, engine: "qpdf+MuPDF", why: "damaged xref and streams" },
  "govdocs_error_set_2_427669.pdf": { pages: 24, engine: "qpdf+MuPDF", why: "damaged xref and streams" },
  "govdocs_error_set_2_498264.pdf": {
    pages: 3,
    engine: "qpdf+MuPDF",
    why: "damaged xref; three content streams cannot be inflated",
    textLost:
      "poppler salvages 93 characters from the broken Flate data; MuPDF, whose rewrite qpdf --check needs, salvages none",
  },
  "ocrmypdf_invalid.pdf": {
    refused: "invalid_input",
    why: "a %PDF header, a line of text and %%EOF: no object to recover (Ghostscript would draw a blank page)",
  },
  "ocrmypdf_overlay.pdf": {
    pages: 1,
    engine: "qpdf",
    why: "content-stream syntax errors only; qpdf --check passes",
  },
  "paperless_invalid_pdf.pdf": { pages: 2, engine: "qpdf", why: "garbage bytes before the header" },
  "pdfjs_PDFBOX-3148-2-fuzzed.pdf": {
    pages: 1,
    engine: "MuPDF",
    why: "corrupt ASCII85 xref stream: qpdf fails, MuPDF rebuilds",
  },
  "pdfjs_Pages-tree-refs.pdf": {
    pages: 1,
    engine: "Ghostscript",
    why: "/Count says 2, but the tree holds one page and a loop of /Pages nodes; only Ghostscript breaks the loop",
  },
  "pdfjs_bug1795263.pdf": { pages: 1, engine: "qpdf", why: "damaged xref" },
  "pdfjs_filled-background.pdf": { pages: 3, engine: "qpdf", why: "invalid xref entries" },
  "pdfjs_issue11651.pdf": {
    pages: 1,
    engine: "qpdf",
    why: "corrupt Flate stream; qpdf --check warns (exit 3)",
  },
  "pdfjs_issue9418.pdf": {
    pages: 1,
    engine: "Ghostscript",
    why: "no reachable page tree (qpdf and MuPDF: 0 pages); Ghostscript finds the page and its text",
  },
  "pdfjs_poppler-67295-0.pdf": {
    pages: 1,
    engine: "qpdf (page tree rebuilt)",
    why: "/Count 9999999999 over one real page; qpdf rebuilds the tree",
  },
  "pdfjs_poppler-90-0-fuzzed.pdf": {
    pages: 16,
    engine: "qpdf+MuPDF",
    why: "fuzzed streams; MuPDF rewrites the undecodable ones",
  },
  "pdfjs_scan-bad.pdf": { pages: 1, engine: "qpdf", why: "no startxref" },
  "pdfjs_xref_command_missing.pdf": { pages: 1, engine: "qpdf", why: "'xref' keyword missing" },
  "pikepdf_content-stream-errors.pdf": {
    pages: 4,
    engine: "qpdf",
    why: "content-stream syntax errors; qpdf --check warns (exit 3)",
  },
  "pikepdf_cyclic-toc.pdf": {
    pages: 1,
    engine: "qpdf (page tree rebuilt)",
    why: "the manifest counts 0 (no /Count), but the tree's one kid is a page",
  },
  "qpdf_append-xref-loop.pdf": {
    pages: 30,
    engine: "qpdf",
    why: "/Prev chain loops; MuPDF alone reads 0 pages",
  },
  "qpdf_broken-lzw.pdf": {
    pages: 1,
    engine: "qpdf+MuPDF",
    why: "corrupt LZW content stream rewritten by MuPDF",
  },
  "qpdf_damaged-stream.pdf": {
    pages: 1,
    engine: "qpdf",
    why: "damaged stream data; qpdf --check warns (exit 3)",
  },
  "qpdf_issue-202.pdf": {
    pages: 10,
    engine: "MuPDF",
    why: "excessively nested trailer: qpdf fails, MuPDF rebuilds",
  },
  "qpdf_outlines-with-loop.pdf": {
    pages: 30,
    engine: "qpdf+MuPDF",
    why: "the bookmark loop is cut by MuPDF",
  },
  "qpdf_pages-loop.pdf": { pages: 1, engine: "Ghostscript", why: "loop in /Pages: qpdf and MuPDF keep it" },
  "qpdf_xref-compressed-in-compressed.pdf": {
    pages: 30,
    engine: "qpdf",
    why: "xref stream inside an object stream (qpdf --check segfaults on the input, not on this run)",
  },
};

const brokenPdfs = (await readdir(join(corpusDir, "broken"))).filter((file) => file.endsWith(".pdf")).sort();

describe("repair", () => {
  it("has an expectation for every PDF of broken/, each no lower than the manifest's page count unless explained", async () => {
    expect(Object.keys(expected).sort()).toEqual(brokenPdfs);
    const pages = new Map(readManifest().map((entry) => [entry.path, entry.pages]));
    const lower = Object.entries(expected).filter(
      ([file, want]) => "pages" in want && want.pages < (pages.get(`broken/${file}`) ?? 0),
    );
    // /Count 9999999999 and the looping /Pages node are not pages.
    expect(lower.map(([file]) => file)).toEqual(["pdfjs_Pages-tree-refs.pdf", "pdfjs_poppler-67295-0.pdf"]);
  });

  it.each(brokenPdfs)("%s", async (file) => {
    const want = expected[file];
    if (want === undefined) throw new Error(`no expectation for ${file}`);
    const input = corpus(`broken/${file}`);
    if ("refused" in want) {
      const failure = await failureOf(repair(input, {}, await context()));
      expect(failure.code).toBe(want.refused);
      return;
    }
    const result = await repair(input, {}, await context());
    const output = result.outputs[0]?.path ?? "";
    expect(result.outputs[0]?.name).toBe(file);
    expect(result.engine).toBe(want.engine);
    expect([0, 3]).toContain((await tool("qpdf", ["--check", output])).code);
    const pages = await qpdfPages(output);
    expect(pages).toBe(want.pages);
    expect(/Pages:\s+(\d+)/.exec((await tool("pdfinfo", [output])).stdout)?.[1]).toBe(String(pages));
    const doc = await openWithMupdf(output);
    try {
      expect(doc.countPages()).toBe(pages);
      expect(() => doc.loadOutline()).not.toThrow();
    } finally {
      doc.destroy();
    }
    if (want.textLost === undefined)
      expect(await textChars(output)).toBeGreaterThanOrEqual((await textChars(input.path)) * 0.9);
  });
});

import { stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { split } from "../src/index.js";
import {
  context,
  corpus,
  type FlatBookmark,
  failureOf,
  flatOutline,
  openWithMupdf,
  qpdfPages,
  tool,
} from "./helpers.js";

/*
 * Split PDF's modes beyond the spec's: count, size and bookmarks. Bookmarks are checked against the
 * source's own outline; form fields and catalog entries with qpdf, which we did not write.
 */

const geoTopo = "general/samplefiles_GeoTopo-komprimiert.pdf"; // 117 pages, 35 bookmarks over 3 levels
const governmentForm = "general/pikepdf_form_210966.pdf"; // 2 pages, AcroForm fields on both

async function outlineOf(path: string): Promise<FlatBookmark[]> {
  const doc = await openWithMupdf(path);
  try {
    return flatOutline(doc);
  } finally {
    doc.destroy();
  }
}

/** qpdf's reading of the form: each field's full name and the 1-based page of its widget. */
async function qpdfFields(path: string): Promise<{ fullname: string; pageposfrom1: number }[]> {
  const { stdout, code } = await tool("qpdf", ["--json", "--json-key=acroform", path]);
  expect(code === 0 || code === 3).toBe(true);
  return (JSON.parse(stdout) as { acroform: { fields: { fullname: string; pageposfrom1: number }[] } })
    .acroform.fields;
}

/** The catalog dictionary as qpdf prints it. */
async function catalogOf(path: string): Promise<string> {
  const trailer = await tool("qpdf", ["--show-object=trailer", path]);
  const root = /\/Root (\d+) 0 R/.exec(trailer.stdout)?.[1];
  return (await tool("qpdf", [`--show-object=${root}`, path])).stdout;
}

/** Each internal link as "<page>-><target page>", 0-based, in page order (MuPDF resolves named ones). */
async function internalLinks(path: string): Promise<string[]> {
  const doc = await openWithMupdf(path);
  try {
    const links: string[] = [];
    for (let page = 0; page < doc.countPages(); page += 1) {
      for (const link of doc.loadPage(page).getLinks()) {
        if (!link.isExternal()) links.push(`${page}->${doc.resolveLink(link)}`);
      }
    }
    return links;
  } finally {
    doc.destroy();
  }
}

describe("split: mode count", () => {
  it("cuts every N pages; each part keeps exactly the bookmarks aimed inside it, re-aimed at its pages", async () => {
    const source = corpus(geoTopo, "GeoTopo.pdf");
    const result = await split(source, { mode: "count", pages: 50 }, await context());
    expect(result.outputs.map((output) => output.name)).toEqual([
      "GeoTopo-p1-50.pdf",
      "GeoTopo-p51-100.pdf",
      "GeoTopo-p101-117.pdf",
    ]);
    const whole = (await outlineOf(source.path)).filter((bookmark) => bookmark.page >= 0);
    for (const [index, output] of result.outputs.entries()) {
      const from = index * 50;
      const to = Math.min(117, from + 50) - 1;
      expect(await qpdfPages(output.path)).toBe(to - from + 1);
      const inside = whole
        .filter((bookmark) => bookmark.page >= from && bookmark.page <= to)
        .map((bookmark) => `${bookmark.title}@${bookmark.page - from}`);
      const kept = (await outlineOf(output.path)).map((bookmark) => `${bookmark.title}@${bookmark.page}`);
      expect(kept.sort()).toEqual(inside.sort());
    }
  });

  it("keeps the links aimed inside a part, re-aimed at its pages, and drops the others", async () => {
    // The pdflatex table of contents on page 1: 4 links to page 2, 3 to page 3, 2 to page 4.
    const source = corpus("general/samplefiles_pdflatex-outline.pdf");
    expect(await internalLinks(source.path)).toEqual([
      "0->1",
      "0->1",
      "0->1",
      "0->1",
      "0->2",
      "0->2",
      "0->2",
      "0->3",
      "0->3",
    ]);
    const result = await split(source, { mode: "count", pages: 2 }, await context());
    expect(await internalLinks(result.outputs[0]?.path ?? "")).toEqual(["0->1", "0->1", "0->1", "0->1"]);
    expect(await internalLinks(result.outputs[1]?.path ?? "")).toEqual([]);
  });

  it("keeps the form fields drawn on a part's pages, and the document's metadata and language", async () => {
    const source = corpus(governmentForm);
    const fields = await qpdfFields(source.path);
    const result = await split(source, { mode: "count", pages: 1 }, await context());
    expect(result.outputs).toHaveLength(2);
    for (const [index, output] of result.outputs.entries()) {
      const expected = fields
        .filter((field) => field.pageposfrom1 === index + 1)
        .map((field) => field.fullname);
      const found = (await qpdfFields(output.path)).map((field) => field.fullname);
      expect(found.sort()).toEqual(expected.sort());
      const catalog = await catalogOf(output.path);
      expect(catalog).toMatch(/\/Lang \d+ 0 R/);
      expect(catalog).toMatch(/\/Metadata \d+ 0 R/);
      expect(catalog).not.toContain("/XFA");
    }
  });
});

describe("split: mode size", () => {
  it("makes parts as large as fit: each under maxBytes, no two neighbours that would fit together", async () => {
    const maxBytes = 400_000;
    const result = await split(corpus(geoTopo, "GeoTopo.pdf"), { mode: "size", maxBytes }, await context());
    const sizes: number[] = [];
    let next = 1;
    for (const output of result.outputs) {
      const [, from, to] = /-p(\d+)(?:-(\d+))?\.pdf$/.exec(output.name) ?? [];
      expect(Number(from)).toBe(next);
      const pages = await qpdfPages(output.path);
      expect(pages).toBe(Number(to ?? from) - Number(from) + 1);
      next += pages;
      const bytes = (await stat(output.path)).size;
      sizes.push(bytes);
      if (pages > 1) expect(bytes).toBeLessThanOrEqual(maxBytes);
      if (bytes > maxBytes) expect(result.warnings.join(" ")).toContain(`Page ${from} of GeoTopo.pdf is`);
    }
    expect(next).toBe(118);
    for (let index = 1; index < sizes.length; index += 1)
      expect((sizes[index - 1] ?? 0) + (sizes[index] ?? 0)).toBeGreaterThan(maxBytes);
  });

  it("puts a page larger than maxBytes alone, with a warning naming it", async () => {
    const result = await split(
      corpus(governmentForm, "form.pdf"),
      { mode: "size", maxBytes: 10_000 },
      await context(),
    );
    expect(result.outputs.map((output) => output.name)).toEqual(["form-p1.pdf", "form-p2.pdf"]);
    expect(
      result.warnings.filter((warning) => /^Page \d of form\.pdf is .* over maxBytes/.test(warning)),
    ).toHaveLength(2);
  });
});

describe("split: mode bookmarks", () => {
  it("makes a part per top-level bookmark, named after its title, the pages before the first on their own", async () => {
    const source = corpus(geoTopo, "GeoTopo.pdf");
    const result = await split(source, { mode: "bookmarks" }, await context());
    const topLevel = (await outlineOf(source.path)).filter(
      (bookmark) => bookmark.depth === 0 && bookmark.page >= 0,
    );
    const starts = [...new Set(topLevel.map((bookmark) => bookmark.page))].sort((a, b) => a - b);
    expect(result.outputs).toHaveLength(starts.length + 1);
    expect(result.outputs[0]?.name).toBe(`GeoTopo-p1-${starts[0]}.pdf`);
    expect(result.outputs[1]?.name).toBe("1 Topologische Grundbegriffe.pdf");
    expect(result.outputs.map((output) => output.name)).toContain("5 Krümmung.pdf");
    let pages = 0;
    for (const [index, output] of result.outputs.entries()) {
      const count = await qpdfPages(output.path);
      if (index > 0) expect(count).toBe((starts[index] ?? 117) - (starts[index - 1] ?? 0));
      pages += count;
    }
    expect(pages).toBe(117);
  });

  it("at level 2 a section's part keeps its bookmark though its chapter's stays behind", async () => {
    const result = await split(
      corpus(geoTopo, "GeoTopo.pdf"),
      { mode: "bookmarks", level: 2 },
      await context(),
    );
    const part = result.outputs.find((output) => output.name === "1.2 Metrische Räume.pdf");
    if (part === undefined)
      throw new Error(`no part for 1.2: ${result.outputs.map((output) => output.name).join(", ")}`);
    expect((await outlineOf(part.path))[0]).toEqual({ depth: 0, title: "1.2 Metrische Räume", page: 0 });
  });

  it("refuses a PDF without bookmarks with invalid_options, pointing to the other modes", async () => {
    const failure = await failureOf(
      split(corpus("general/docling_redp5110_sampled.pdf"), { mode: "bookmarks" }, await context()),
    );
    expect(failure.code).toBe("invalid_options");
    expect(failure.message).toMatch(/has no bookmarks .* use mode "count" or "size"/);
  });
});

describe("split modes on damaged files", () => {
  it.each([
    ["broken/pdfjs_poppler-90-0-fuzzed.pdf", true],
    ["broken/qpdf_xref-compressed-in-compressed.pdf", true],
    ["broken/qpdf_outlines-with-loop.pdf", false],
  ])("%s is cut into its pages (by qpdf where MuPDF cannot: %s), each part checked", async (file, byQpdf) => {
    const source = corpus(file, "damaged.pdf");
    const pages = await qpdfPages(source.path);
    const result = await split(source, { mode: "count", pages: 1 }, await context());
    expect(result.outputs).toHaveLength(pages);
    for (const output of result.outputs) expect(await qpdfPages(output.path)).toBe(1);
    const warned = result.warnings.some((warning) => warning.includes("so qpdf cut them"));
    expect(warned).toBe(byQpdf);
  });
});

import { readdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { corpusPath } from "@octavo/testing";
import { describe, expect, it } from "vitest";
import { metadata } from "../src/metadata.js";
import { type PdfInfo, pdfInfo } from "../src/pdf-info.js";
import { context, corpus, failureOf, pdftotext, tool } from "./helpers.js";
import { xmpText } from "./metadata-helpers.js";

/*
 * pdf-info's report, judged by tools that read PDFs independently of MuPDF: poppler's pdfinfo (pages,
 * version, every page's size and rotation, tags, form), pdftotext (the pages with no text)
 * and qpdf (bookmarks, attachments), on every PDF of the corpus's general and scanned folders.
 */

async function reportOf(relative: string, name?: string): Promise<{ report: PdfInfo; warnings: string[] }> {
  const result = await pdfInfo(corpus(relative, name), {}, await context());
  const [output] = result.outputs;
  expect(result.outputs).toHaveLength(1);
  expect(output?.contentType).toBe("application/json");
  return {
    report: JSON.parse(await readFile(output?.path ?? "", "utf8")) as PdfInfo,
    warnings: result.warnings,
  };
}

/** pdfinfo's "Key: value" lines, with every page's "Page    N size" and "Page    N rot" when asked. */
async function popplerInfo(path: string, pages?: number): Promise<Record<string, string>> {
  const range = pages === undefined ? [] : ["-f", "1", "-l", String(pages)];
  const result = await tool("pdfinfo", ["-enc", "UTF-8", ...range, path]);
  const entries: Record<string, string> = {};
  for (const line of result.stdout.split("\n")) {
    const match = /^([A-Za-z][A-Za-z0-9 ]*?):\s*(.*)$/.exec(line);
    if (match?.[1] !== undefined) entries[match[1].replace(/\s+/g, " ")] = match[2] ?? "";
  }
  return entries;
}

/** The 1-based pages on which pdftotext finds nothing but white space. */
async function popplerBlankPages(path: string): Promise<number[]> {
  const pages = (await pdftotext(path)).split("\f").slice(0, -1);
  return pages.flatMap((text, index) => (text.trim() === "" ? [index + 1] : []));
}

/** Every page of the report's runs: [width, height, rotation] as poppler prints them (unrotated). */
function unrotatedPages(report: PdfInfo): [number, number, number][] {
  return report.pageSizes.flatMap((run) =>
    Array.from({ length: run.to - run.from + 1 }, (): [number, number, number] =>
      run.rotation === 90 || run.rotation === 270
        ? [run.height, run.width, run.rotation]
        : [run.width, run.height, run.rotation],
    ),
  );
}

const swept = ["general", "scanned"].flatMap((folder) =>
  readdirSync(corpusPath(folder))
    .filter((file) => file.endsWith(".pdf"))
    .map((file) => `${folder}/${file}`),
);

describe("pdf-info", () => {
  it.each(swept)("agrees with poppler on %s", { timeout: 60_000 }, async (relative) => {
    const path = corpusPath(relative);
    const { report } = await reportOf(relative);
    const poppler = await popplerInfo(path, report.pages);
    expect(report.pages).toBe(Number(poppler.Pages));
    expect(report.pdfVersion).toBe(poppler["PDF version"]);
    expect(report.tagged).toBe(poppler.Tagged === "yes");
    expect(poppler.Encrypted).toBe("no");
    expect(report.form.acroForm).toBe(poppler.Form !== "none");
    expect(report.form.xfa).toBe(poppler.Form === "XFA");
    const sizes = unrotatedPages(report);
    expect(sizes).toHaveLength(report.pages);
    for (const [index, [width, height, rotation]] of sizes.entries()) {
      const page = `Page ${index + 1}`;
      const [, popplerWidth, popplerHeight] =
        /^([\d.]+) x ([\d.]+) pts/.exec(poppler[`${page} size`] ?? "") ?? [];
      expect(Math.abs(width - Number(popplerWidth)), `${page} width`).toBeLessThan(0.01);
      expect(Math.abs(height - Number(popplerHeight)), `${page} height`).toBeLessThan(0.01);
      expect(rotation, `${page} rotation`).toBe(Number(poppler[`${page} rot`]));
    }
    expect(report.pagesWithoutText).toEqual(await popplerBlankPages(path));
  });

  it("reports the metadata the metadata operation wrote, dates in ISO 8601", async () => {
    const ctx = await context();
    const written = await metadata(
      corpus("general/samplefiles_pdflatex-outline.pdf"),
      { title: "Zoë's notes", author: "李白", keywords: ["alpha", "beta"], remove: false },
      ctx,
    );
    const path = written.outputs[0]?.path ?? "";
    const result = await pdfInfo({ path, name: "notes.pdf" }, {}, await context());
    const report = JSON.parse(await readFile(result.outputs[0]?.path ?? "", "utf8")) as PdfInfo;
    expect(result.outputs[0]?.name).toBe("notes.json");
    expect(report.file).toBe("notes.pdf");
    expect(report.metadata).toMatchObject({ title: "Zoë's notes", author: "李白", keywords: "alpha, beta" });
    expect(report.metadata.modified).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/);
    expect(Math.abs(Date.parse(report.metadata.modified ?? "") - Date.now())).toBeLessThan(120_000);
  });

  it("counts bookmarks and attachments as qpdf lists them", async () => {
    const outlined = "general/samplefiles_pdflatex-outline.pdf";
    const json = JSON.parse(
      (await tool("qpdf", ["--json", "--json-key=outlines", corpusPath(outlined)])).stdout,
    ) as {
      outlines: { kids: unknown[] }[];
    };
    const count = (items: { kids: unknown[] }[]): number =>
      items.reduce((total, item) => total + 1 + count(item.kids as { kids: unknown[] }[]), 0);
    expect(count(json.outlines)).toBeGreaterThan(0);
    expect((await reportOf(outlined)).report.bookmarks).toBe(count(json.outlines));

    const attached = "general/samplefiles_with-attachment.pdf";
    const listed = (await tool("qpdf", ["--list-attachments", corpusPath(attached)])).stdout;
    const attachments = listed.split("\n").filter((line) => /\S.* -> \d+,\d+$/.test(line)).length;
    expect(attachments).toBeGreaterThan(0);
    expect((await reportOf(attached)).report.attachments).toBe(attachments);
  });

  it("reads the PDF/A claim of the XMP packet, and none where there is none", async () => {
    for (const relative of ["general/cabinet_text_only_pdfa1b.pdf", "general/ocrmypdf_tagged.pdf"]) {
      const xmp = await xmpText(corpusPath(relative));
      const part = /pdfaid:part(?:>|=")(\d)/.exec(xmp)?.[1];
      const conformance = /pdfaid:conformance(?:>|=")([ABU])/i.exec(xmp)?.[1];
      expect(part).toBeDefined();
      expect((await reportOf(relative)).report.pdfaClaim).toBe(`${part}${conformance ?? ""}`.toUpperCase());
    }
    expect((await reportOf("general/samplefiles_pdflatex-outline.pdf")).report.pdfaClaim).toBeNull();
  });

  it("reads a damaged file after rebuilding it, and says so", async () => {
    const { report, warnings } = await reportOf("broken/govdocs_error_set_2_020747.pdf");
    expect(report.pages).toBe(12);
    expect(warnings.join(" ")).toMatch(/damaged/);
  });

  it("refuses an encrypted file, even one that opens without a password, and one that is no PDF", async () => {
    // As every operation but unlock: the owner password's restrictions are not for us to pass over.
    for (const relative of ["encrypted/qpdf_c-r6-in.pdf", "encrypted/qpdf_enc-XI-R6_V5_O-master.pdf"]) {
      const locked = await failureOf(pdfInfo(corpus(relative), {}, await context()));
      expect(locked.code).toBe("password_required");
      expect(locked.message).toMatch(/unlock/);
    }
    const ctx = await context();
    const text = join(ctx.workDir, "notes.pdf");
    await writeFile(text, "just some text, not a PDF\n");
    const notPdf = await failureOf(pdfInfo({ path: text, name: "notes.pdf" }, {}, ctx));
    expect(notPdf.code).toBe("invalid_input");
  });
});

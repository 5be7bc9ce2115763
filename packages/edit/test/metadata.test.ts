import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { withPdf } from "@octavo/engines";
import { validatePdfA } from "@octavo/pdfa";
import { describe, expect, it } from "vitest";
import { metadata } from "../src/metadata.js";
import { context, corpus, failureOf, pdftotext, qpdfCheck, qpdfPages } from "./helpers.js";
import {
  exifInstant,
  exiftool,
  hasPreflight,
  pdfinfo,
  preflightProblems,
  rawInfoEntry,
  xmpText,
} from "./metadata-helpers.js";

const pdfa1b = "general/cabinet_text_only_pdfa1b.pdf";

/** The Info and XMP readings of the same field, as exiftool reports them. */
function both(tags: Record<string, unknown>, info: string, xmp: string): unknown[] {
  return [tags[`PDF:${info}`], tags[`XMP-${xmp}`]];
}

describe("metadata", () => {
  it("writes every field to Info and XMP alike, escaped and in Unicode, keeping text and producer", async () => {
    const input = corpus("general/samplefiles_pdflatex-outline.pdf", "notes.pdf");
    const before = Date.now();
    const options = {
      title: 'Zoë & <Ångström> "quotes"',
      author: "李白",
      subject: "Résumé of the notes",
      creator: "Writer 7.1",
      keywords: ["alpha", "beta gamma", "δέλτα"],
      remove: false,
    };
    const result = await metadata(input, options, await context());
    const output = result.outputs[0]?.path ?? "";
    expect(result.outputs[0]?.name).toBe("notes.pdf");
    expect(result.warnings).toEqual([]);
    expect((await qpdfCheck(output)).code).toBe(0);
    expect(await qpdfPages(output)).toBe(4);
    expect(await pdftotext(output)).toBe(await pdftotext(input.path));

    const info = await pdfinfo(output);
    expect([info.Title, info.Author, info.Subject, info.Creator, info.Keywords]).toEqual([
      options.title,
      options.author,
      options.subject,
      options.creator,
      "alpha, beta gamma, δέλτα",
    ]);
    expect(info.Producer).toBe("pdfTeX-1.40.23");
    // Not PDFDocEncoding-safe: UTF-16BE with its byte order mark; plain ASCII stays a literal string.
    expect(await rawInfoEntry(output, "Author")).toMatch(/^<feff/);
    expect(await rawInfoEntry(output, "Creator")).toBe("(Writer 7.1)");

    const xmp = await xmpText(output);
    expect(xmp).toContain("Zoë &amp; &lt;Ångström&gt;");
    const tags = await exiftool(output);
    expect(both(tags, "Title", "dc:Title")).toEqual([options.title, options.title]);
    expect(both(tags, "Author", "dc:Creator")).toEqual([options.author, options.author]);
    expect(both(tags, "Subject", "dc:Description")).toEqual([options.subject, options.subject]);
    expect(both(tags, "Creator", "xmp:CreatorTool")).toEqual([options.creator, options.creator]);
    expect(tags["XMP-pdf:Keywords"]).toBe(info.Keywords);
    expect(tags["PDF:Keywords"]).toEqual(options.keywords); // exiftool splits the Info string at ", "
    expect(tags["XMP-dc:Subject"]).toEqual(options.keywords);
    expect(both(tags, "Producer", "pdf:Producer")).toEqual(["pdfTeX-1.40.23", "pdfTeX-1.40.23"]);
    // The creation date kept (and copied into XMP), the modification date now, the same instant in both.
    const [created, xmpCreated] = both(tags, "CreateDate", "xmp:CreateDate").map(exifInstant);
    expect(created).toBe(Date.parse("2022-04-06T18:15:41Z"));
    expect(xmpCreated).toBe(created);
    const [modified, xmpModified] = both(tags, "ModifyDate", "xmp:ModifyDate").map(exifInstant);
    expect(xmpModified).toBe(modified);
    expect(exifInstant(tags["XMP-xmp:MetadataDate"])).toBe(modified);
    expect(modified).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(modified).toBeLessThanOrEqual(Date.now());
  });

  // Two PDF/A-1b files of the corpus: Acrobat's packet with extension schemas, Ghostscript's with
  // properties written as attributes.
  it("keeps fields not given and the PDF/A identification, so PDF/A files stay valid", async () => {
    const cases = [
      { file: pdfa1b, options: { title: "Nouveau titre", author: "", remove: false } },
      {
        file: "general/samplefiles_crazyones-pdfa.pdf",
        options: { keywords: ["archive", "test"], remove: false },
      },
    ];
    for (const { file, options } of cases) {
      const input = corpus(file);
      const result = await metadata(input, options, await context());
      const output = result.outputs[0]?.path ?? "";
      expect(result.warnings).toEqual([]);
      const [was, now] = [await exiftool(input.path), await exiftool(output)];
      for (const [infoTag, xmpTag] of [
        ["Creator", "xmp:CreatorTool"],
        ["Producer", "pdf:Producer"],
      ] as const) {
        expect(both(now, infoTag, xmpTag)).toEqual(both(was, infoTag, xmpTag));
      }
      expect(exifInstant(now["XMP-xmp:CreateDate"])).toBe(exifInstant(was["PDF:CreateDate"]));
      expect(now["XMP-pdfaid:Part"]).toBe(1);
      expect(now["XMP-pdfaid:Conformance"]).toBe("B");
      expect(await validatePdfA(output, "1")).toEqual({ valid: true, problems: [] });
      if (await hasPreflight()) expect(await preflightProblems(output)).toBe("");
      expect(await pdftotext(output)).toBe(await pdftotext(input.path));
    }
    const acrobat = await exiftool(
      (await metadata(corpus(pdfa1b), cases[0]?.options ?? { remove: false }, await context())).outputs[0]
        ?.path ?? "",
    );
    expect(both(acrobat, "Title", "dc:Title")).toEqual(["Nouveau titre", "Nouveau titre"]);
    expect(both(acrobat, "Author", "dc:Creator")).toEqual([undefined, undefined]); // given empty: cleared
    expect(acrobat["XMP-pdfaExtension:SchemasNamespaceURI"]).toBe("http://ns.adobe.com/xap/1.0/mm/");
  });

  it("removes Info and XMP with remove: true, warning that PDF/A is lost, then writes afresh", async () => {
    const cleared = await metadata(corpus(pdfa1b, "archive.pdf"), { remove: true }, await context());
    expect(cleared.warnings).toEqual([
      expect.stringMatching(/^archive\.pdf was a PDF\/A file; .* no longer PDF\/A/),
    ]);
    // pdflatex writes a cross-reference stream, whose trailer MuPDF handles apart.
    const latex = await metadata(
      corpus("general/samplefiles_pdflatex-outline.pdf"),
      { remove: true },
      await context(),
    );
    expect(latex.warnings).toEqual([]);
    for (const output of [cleared.outputs[0]?.path ?? "", latex.outputs[0]?.path ?? ""]) {
      const info = await pdfinfo(output);
      expect([info.Title, info.Author, info.Creator, info.Producer, info.CreationDate, info.ModDate]).toEqual(
        Array(6).fill(undefined),
      );
      expect(info["Metadata Stream"]).toBe("no");
      expect(await xmpText(output)).toBe("");
      expect(await rawInfoEntry(output, "Title")).toBeUndefined();
      expect((await qpdfCheck(output)).code).toBe(0);
    }
    const output = cleared.outputs[0]?.path ?? "";

    // A file with neither: both are made.
    const written = await metadata(
      { path: output, name: "archive.pdf" },
      { title: "Fresh", remove: false },
      await context(),
    );
    const tags = await exiftool(written.outputs[0]?.path ?? "");
    expect(both(tags, "Title", "dc:Title")).toEqual(["Fresh", "Fresh"]);
    expect(exifInstant(tags["PDF:ModifyDate"])).toBe(exifInstant(tags["XMP-xmp:ModifyDate"]));
  });

  it("writes only what is given after remove: true", async () => {
    const result = await metadata(
      corpus(pdfa1b),
      { title: "Only this", keywords: ["one"], remove: true },
      await context(),
    );
    const tags = await exiftool(result.outputs[0]?.path ?? "");
    expect(both(tags, "Title", "dc:Title")).toEqual(["Only this", "Only this"]);
    expect(both(tags, "Keywords", "pdf:Keywords")).toEqual(["one", "one"]);
    for (const [infoTag, xmpTag] of [
      ["Author", "dc:Creator"],
      ["Producer", "pdf:Producer"],
      ["CreateDate", "xmp:CreateDate"],
    ] as const) {
      expect(both(tags, infoTag, xmpTag)).toEqual([undefined, undefined]);
    }
    expect(tags["XMP-pdfaid:Part"]).toBeUndefined();
  });

  // Distiller 8 wrote an old-style packet (no x:xmpmeta, properties in a default namespace, "about"
  // without its rdf: prefix); LiveCycle Designer a subject with line breaks written as &#xD;&#xA;.
  it("edits packets other tools wrote without losing what they hold", async () => {
    const distiller = await metadata(
      corpus("general/govdocs_error_set_2_064034.pdf"),
      { title: "Angola MIS 2006-07", remove: false },
      await context(),
    );
    const tags = await exiftool(distiller.outputs[0]?.path ?? "");
    expect(both(tags, "Title", "dc:Title")).toEqual(["Angola MIS 2006-07", "Angola MIS 2006-07"]);
    expect(both(tags, "Creator", "xmp:CreatorTool")).toEqual([
      "PScript5.dll Version 5.2.2",
      "PScript5.dll Version 5.2.2",
    ]);
    expect(tags["XMP-xmpMM:DocumentID"]).toBe("uuid:2bfce60f-a6eb-41b4-be9a-c292d4e07fb2");

    const designer = await metadata(
      corpus("general/pikepdf_form_210966.pdf"),
      { author: "VA", remove: false },
      await context(),
    );
    const form = await exiftool(designer.outputs[0]?.path ?? "");
    const [subject, description] = both(form, "Subject", "dc:Description");
    expect(subject).toMatch(/^INTENT TO FILE A CLAIM/);
    expect(description).toBe(subject);
    expect(await xmpText(designer.outputs[0]?.path ?? "")).toContain("PENSION,&#xD;\n");
    expect(form["XMP-pdfuaid:Part"]).toBe(1);
  });

  // A tool that edited Info only (and dated it) leaves the XMP stale; one that did not date its edit
  // loses to the XMP, the place PDF 2.0 prefers.
  it("makes Info and XMP agree, taking the more recently modified one", async () => {
    const ctx = await context();
    const edited = async (moddate: string) => {
      const path = join(ctx.workDir, `edited-${moddate}.pdf`);
      const bytes = await withPdf(corpus(pdfa1b).path, (doc) => {
        doc.setMetaData("info:Title", "Changed in Info only");
        doc.setMetaData("info:ModDate", moddate);
        // Copied out of MuPDF's heap, which later calls may grow (and so detach the view).
        return doc.saveToBuffer("").asUint8Array().slice();
      });
      await writeFile(path, bytes);
      return path;
    };
    for (const { moddate, title } of [
      { moddate: "D:20200101000000Z", title: "Changed in Info only" },
      { moddate: "D:20000101000000Z", title: "This is a test document" },
    ]) {
      const result = await metadata({ path: await edited(moddate), name: "a.pdf" }, { remove: false }, ctx);
      expect(both(await exiftool(result.outputs[0]?.path ?? ""), "Title", "dc:Title")).toEqual([
        title,
        title,
      ]);
    }
  });

  it("passes a damaged file's repair on, and refuses encrypted files and files that are not PDFs", async () => {
    const damaged = await metadata(
      corpus("broken/cabinet_corruptionOneByteMissing.pdf", "scan.pdf"),
      { title: "Repaired", remove: false },
      await context(),
    );
    expect(damaged.warnings).toEqual([expect.stringMatching(/^scan\.pdf is damaged; \w+ reconstructed it/)]);
    expect((await pdfinfo(damaged.outputs[0]?.path ?? "")).Title).toBe("Repaired");
    expect((await qpdfCheck(damaged.outputs[0]?.path ?? "")).code).toBe(0);
    // MuPDF repairs this one only when it writes it, dropping the changes made before: they are made again.
    const fuzzed = await metadata(
      corpus("broken/pdfjs_poppler-90-0-fuzzed.pdf"),
      { title: "Fuzzed", remove: false },
      await context(),
    );
    expect(fuzzed.warnings).toEqual([
      expect.stringMatching(/^pdfjs_poppler-90-0-fuzzed\.pdf is damaged; MuPDF reconstructed it/),
    ]);
    expect(both(await exiftool(fuzzed.outputs[0]?.path ?? ""), "Title", "dc:Title")).toEqual([
      "Fuzzed",
      "Fuzzed",
    ]);

    const locked = await failureOf(
      metadata(corpus("encrypted/qpdf_c-r6-in.pdf"), { remove: true }, await context()),
    );
    expect(locked.code).toBe("password_required");
    for (const file of [
      "mislabeled/pydocx_test_docx_renamed.pdf",
      "mislabeled/docling_table_06_html_renamed.pdf",
    ]) {
      const refused = await failureOf(metadata(corpus(file), { title: "x", remove: false }, await context()));
      expect(refused.code).toBe("invalid_input");
    }
  });
});

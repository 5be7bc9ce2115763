import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { familyOf, officeExtensions } from "../src/extensions.js";
import { inspectInput } from "../src/inspect.js";
import { extensionOf, pdfNameFor } from "../src/names.js";
import { detectEncoding, prepareTextInput } from "../src/text-input.js";
import { corpus, tempDir } from "./helpers.js";

function utf16be(text: string): Buffer {
  const le = Buffer.from(text, "utf16le");
  const be = Buffer.alloc(le.length);
  for (let index = 0; index + 1 < le.length; index += 2) {
    be[index] = le[index + 1] ?? 0;
    be[index + 1] = le[index] ?? 0;
  }
  return be;
}

describe("encoding detection", () => {
  const sample = "Grüße aus Köln, “Straße” – naïve café\n";
  it.each([
    ["UTF-8", Buffer.from(sample, "utf8"), "utf-8", 0],
    [
      "UTF-8 with BOM",
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(sample, "utf8")]),
      "utf-8",
      3,
    ],
    [
      "UTF-16LE with BOM",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(sample, "utf16le")]),
      "utf-16le",
      2,
    ],
    ["UTF-16BE with BOM", Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(sample)]), "utf-16be", 2],
    ["UTF-16LE without BOM", Buffer.from(sample.repeat(3), "utf16le"), "utf-16le", 0],
    ["UTF-16BE without BOM", utf16be(sample.repeat(3)), "utf-16be", 0],
    ["plain ASCII", Buffer.from("id,name\n1,english\n"), "utf-8", 0],
  ])("%s", (_, bytes, label, bomLength) => {
    expect(detectEncoding(bytes)).toEqual({ label, bomLength });
  });

  it("reads Windows-1252 and ISO-8859-1 text as such", () => {
    // tika_testTXT_win-1252.txt: smart quotes 0x93/0x94; tabulator_latin1.csv: © as 0xA9.
    const smartQuotes = Buffer.from(
      "These smart quotes are the trigger for CharsetRecog_sbcs to think this is a \x93windows\x94 encoding",
      "latin1",
    );
    const decoded = new TextDecoder(detectEncoding(smartQuotes).label).decode(smartQuotes);
    expect(decoded).toContain("“windows”");
    const latin1 = Buffer.from("id,name\n1,english\n2,\xa9\n", "latin1");
    expect(new TextDecoder(detectEncoding(latin1).label).decode(latin1)).toContain("2,©");
  });

  it.each([
    [
      "Shift_JIS",
      "93fa967b8cea82cc8365834c8358836782c582b7814282b182ea82cd8356837483674a495382c58f9182a982ea82bd837483408343838b82c582b7814295b68e9a8352815b836882f090b382b582ad94bb92e882c582ab82e982a98a6d944682b582dc82b78142",
      "日本語のテキストです。",
    ],
    [
      "Windows-1251",
      "cff0e8e2e5f22c20ece8f02120ddf2ee20f2e5eaf1f220e220eaeee4e8f0eee2eae52057696e646f77732d3132353120e4ebff20eff0eee2e5f0eae820eeeff0e5e4e5ebe5ede8ff20eaeee4e8f0eee2eae82e",
      "Привет, мир!",
    ],
  ])("recognises %s", (_, hex, expected) => {
    const bytes = Buffer.from(hex, "hex");
    expect(new TextDecoder(detectEncoding(bytes).label).decode(bytes)).toContain(expected);
  });
});

describe("CSV and TXT preparation", () => {
  it.each([
    [",", 44],
    [";", 59],
    ["\t", 9],
    ["|", 124],
  ])("finds the separator %j and passes it as FilterOptions", async (separator, code) => {
    const dir = await tempDir();
    const source = join(dir, "source.csv");
    const rows = [
      ["Index", "Name", "City", "Note"],
      ["1", "Sheryl", "East Leonard", "a, b; c"],
      ["2", "Preston", "Djibouti", "x"],
    ];
    await writeFile(
      source,
      rows
        .map((row) => row.map((cell) => (cell.includes(separator) ? `"${cell}"` : cell)).join(separator))
        .join("\r\n"),
    );
    const result = await prepareTextInput(source, join(dir, "report.csv"));
    if (!result.ok) throw new Error(result.looksLike);
    expect(result.prepared.separator).toBe(separator);
    expect(result.prepared.filter).toBe("Text - txt - csv (StarCalc)");
    // Separator, text delimiter ", UTF-8 (76), from line 1, then every column as text.
    expect(result.prepared.filterOptions).toBe(`${code},34,76,1,1/2/2/2/3/2/4/2`);
  });

  it("finds the corpus separators: semicolon and pipe", async () => {
    const dir = await tempDir();
    for (const [file, separator] of [
      ["office/docling_csv-semicolon.csv", ";"],
      ["mislabeled/docling_csv-pipe.csv", "|"],
    ] as const) {
      const result = await prepareTextInput(corpus(file).path, join(dir, "x.csv"));
      expect(result.ok && result.prepared.separator).toBe(separator);
    }
  });

  it("rewrites a TXT as UTF-8 for Writer's encoded-text filter", async () => {
    const dir = await tempDir();
    const result = await prepareTextInput(
      corpus("office/tika_testTXT_win-1252.txt").path,
      join(dir, "a.txt"),
    );
    if (!result.ok) throw new Error(result.looksLike);
    expect(result.prepared).toMatchObject({
      filter: "Text (encoded)",
      filterOptions: "UTF8",
      encoding: "windows-1252",
    });
  });

  it("refuses binary data under a text extension", async () => {
    const dir = await tempDir();
    const source = join(dir, "data.csv");
    await writeFile(source, Buffer.from(Array.from({ length: 2048 }, (_, index) => (index * 37) % 256)));
    const result = await prepareTextInput(source, join(dir, "x.csv"));
    expect(result.ok).toBe(false);
  });
});

describe("input inspection", () => {
  it("decides the clear cases before LibreOffice sees the file", async () => {
    const dir = await tempDir();
    const empty = join(dir, "empty.docx");
    await writeFile(empty, "");
    expect(await inspectInput(empty, ".docx")).toEqual({ kind: "empty" });
    expect(
      await inspectInput(corpus("mislabeled/samplefiles_minimal-document_pdf_renamed.docx").path, ".docx"),
    ).toEqual({
      kind: "mismatch",
      looksLike: "a PDF document",
    });
    expect(await inspectInput(corpus("mislabeled/tika_testODTnotaZipFile.odt").path, ".odt")).toEqual({
      kind: "mismatch",
      looksLike: "plain text",
    });
    expect(await inspectInput(corpus("office/poi_bug53475-password-is-pass.docx").path, ".docx")).toEqual({
      kind: "password",
    });
    // A legacy XLS under .xlsx and a truncated DOCX are LibreOffice's to judge.
    expect(
      await inspectInput(corpus("mislabeled/tika_testEXCEL-formats_xls_renamed.xlsx").path, ".xlsx"),
    ).toEqual({ kind: "ok" });
    expect(await inspectInput(corpus("broken/tika_testWORD_truncated.docx").path, ".docx")).toEqual({
      kind: "ok",
    });
    expect(await inspectInput(corpus("office/tika_testWORD_various.doc").path, ".doc")).toEqual({
      kind: "ok",
    });
  });
});

describe("names and extensions", () => {
  it("names the PDF after the input", () => {
    expect(pdfNameFor("report.docx")).toBe("report.pdf");
    expect(pdfNameFor("Quarterly Figures.XLSX")).toBe("Quarterly Figures.pdf");
    expect(pdfNameFor("../../etc/passwd.doc")).toBe("passwd.pdf");
    expect(pdfNameFor(".docx")).toBe("document.pdf");
    expect(pdfNameFor("archive.tar.csv")).toBe("archive.tar.pdf");
    // Within the 255-byte file-name limit, whatever the script.
    expect(Buffer.byteLength(pdfNameFor(`${"漢".repeat(300)}.docx`))).toBeLessThanOrEqual(204);
  });

  it("covers the spec's extensions, case-insensitively", () => {
    expect(officeExtensions).toEqual({
      word: [".doc", ".docx", ".odt", ".rtf", ".txt"],
      powerpoint: [".ppt", ".pptx", ".odp", ".pps", ".ppsx"],
      excel: [".xls", ".xlsx", ".ods", ".csv"],
    });
    expect(familyOf(extensionOf("Deck.PPSX"))).toBe("powerpoint");
    expect(familyOf(extensionOf("notes.md"))).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { extensionForContentType, fileNameFor } from "../src/index.js";

describe("fileNameFor", () => {
  it("prefers Content-Disposition, filename* (RFC 8187) over filename", () => {
    expect(
      fileNameFor({
        url: "https://x.example/download?id=1",
        contentDisposition: `attachment; filename="fallback.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20final.pdf`,
      }),
    ).toBe("résumé final.pdf");
    expect(
      fileNameFor({ url: "https://x.example/a.bin", contentDisposition: 'inline; filename="report.docx"' }),
    ).toBe("report.docx");
    expect(
      fileNameFor({ url: "https://x.example/a.bin", contentDisposition: "attachment; filename=plain.odt" }),
    ).toBe("plain.odt");
  });

  it("reads a plain filename sent in raw UTF-8 as UTF-8, and one in Latin-1 as Latin-1", () => {
    // How the header arrives: its bytes as Latin-1 characters.
    const asHeader = (text: string, encoding: BufferEncoding) =>
      Buffer.from(text, encoding).toString("latin1");
    for (const name of ["Отчёт за квартал.pdf", "報告書.pdf", "résumé.pdf"]) {
      expect(
        fileNameFor({
          url: "https://x.example/download",
          contentDisposition: `attachment; filename="${asHeader(name, "utf8")}"`,
        }),
      ).toBe(name);
    }
    expect(
      fileNameFor({
        url: "https://x.example/download",
        contentDisposition: `attachment; filename="${asHeader("résumé.pdf", "latin1")}"`,
      }),
    ).toBe("résumé.pdf");
  });

  it("falls back to the last path segment, percent-decoded", () => {
    expect(fileNameFor({ url: "https://x.example/files/My%20Report.pdf?sig=abc" })).toBe("My Report.pdf");
    expect(fileNameFor({ url: "https://x.example/files/deck.pptx/" })).toBe("deck.pptx");
    expect(fileNameFor({ url: "https://x.example/bad%zzname.pdf" })).toBe("bad%zzname.pdf");
    expect(fileNameFor({ url: "https://x.example/", contentDisposition: "attachment" })).toBeUndefined();
  });

  it("adds the extension of the Content-Type when the name has none octavo knows", () => {
    expect(fileNameFor({ url: "https://x.example/files/report", contentType: "application/pdf" })).toBe(
      "report.pdf",
    );
    expect(fileNameFor({ url: "https://x.example/get.php?id=3", contentType: "Application/PDF; x=y" })).toBe(
      "get.php.pdf",
    );
    expect(fileNameFor({ url: "https://x.example/", contentType: "text/csv; charset=utf-8" })).toBe(
      "download.csv",
    );
    expect(fileNameFor({ url: "https://x.example/a.PDF", contentType: "application/octet-stream" })).toBe(
      "a.PDF",
    );
    expect(fileNameFor({ url: "https://x.example/page.htm", contentType: "text/html" })).toBe("page.htm");
    expect(fileNameFor({ url: "https://x.example/data", contentType: "application/octet-stream" })).toBe(
      "data",
    );
  });

  it("keeps only a safe last part of a hostile name", () => {
    expect(
      fileNameFor({
        url: "https://x.example/",
        contentDisposition: 'attachment; filename="../../etc/passwd"',
      }),
    ).toBe("passwd");
    expect(
      fileNameFor({
        url: "https://x.example/",
        contentDisposition: 'attachment; filename="..\\\\evil\u0007.pdf"',
      }),
    ).toBe("evil.pdf");
    expect(fileNameFor({ url: "https://x.example/%2e%2e" })).toBeUndefined();
    expect(fileNameFor({ url: `https://x.example/${"a".repeat(300)}.pdf` })?.length).toBe(200);
    expect(fileNameFor({ url: `https://x.example/${"a".repeat(300)}.pdf` })?.endsWith(".pdf")).toBe(true);
  });
});

describe("extensionForContentType", () => {
  it.each([
    ["application/pdf", ".pdf"],
    ["application/msword", ".doc"],
    ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", ".docx"],
    ["application/vnd.oasis.opendocument.text", ".odt"],
    ["text/rtf", ".rtf"],
    ["text/plain; charset=utf-8", ".txt"],
    ["application/vnd.ms-powerpoint", ".ppt"],
    ["application/vnd.openxmlformats-officedocument.presentationml.presentation", ".pptx"],
    ["application/vnd.oasis.opendocument.presentation", ".odp"],
    ["application/vnd.ms-excel", ".xls"],
    ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ".xlsx"],
    ["application/vnd.oasis.opendocument.spreadsheet", ".ods"],
    ["text/csv", ".csv"],
    ["text/html; charset=utf-8", ".html"],
  ])("%s → %s", (type, extension) => {
    expect(extensionForContentType(type)).toBe(extension);
  });

  it("knows nothing else", () => {
    expect(extensionForContentType("application/octet-stream")).toBeUndefined();
    expect(extensionForContentType("constructor")).toBeUndefined();
    expect(extensionForContentType(undefined)).toBeUndefined();
  });
});

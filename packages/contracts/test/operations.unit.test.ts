import { describe, expect, it } from "vitest";
import { findOperationByPath, getOperation, isOperationId, operationIds, operations } from "../src/index.js";

const pdf = [".pdf"];

/** The spec's operation table, copied by hand so the catalogue is checked against it. */
const specTable = [
  ["merge", "Merge PDF", "/v1/merge", 1, 2, 20, pdf],
  ["split", "Split PDF", "/v1/split", 1, 1, 1, pdf],
  ["rotate", "Rotate PDF", "/v1/rotate", 1, 1, 1, pdf],
  ["compress", "Compress PDF", "/v1/compress", 2, 1, 1, pdf],
  ["repair", "Repair PDF", "/v1/repair", 1, 1, 1, pdf],
  ["ocr", "OCR PDF", "/v1/ocr", 3, 1, 1, pdf],
  [
    "word-to-pdf",
    "Word to PDF",
    "/v1/convert/word-to-pdf",
    2,
    1,
    10,
    [".doc", ".docx", ".odt", ".rtf", ".txt"],
  ],
  [
    "powerpoint-to-pdf",
    "PowerPoint to PDF",
    "/v1/convert/powerpoint-to-pdf",
    2,
    1,
    10,
    [".ppt", ".pptx", ".odp", ".pps", ".ppsx"],
  ],
  ["excel-to-pdf", "Excel to PDF", "/v1/convert/excel-to-pdf", 2, 1, 10, [".xls", ".xlsx", ".ods", ".csv"]],
  ["html-to-pdf", "HTML / URL to PDF", "/v1/convert/html-to-pdf", 2, 0, 1, [".html", ".htm"]],
  ["pdf-to-word", "PDF to Word", "/v1/convert/pdf-to-word", 2, 1, 1, pdf],
  ["pdf-to-powerpoint", "PDF to PowerPoint", "/v1/convert/pdf-to-powerpoint", 2, 1, 1, pdf],
  ["pdf-to-excel", "PDF to Excel", "/v1/convert/pdf-to-excel", 2, 1, 1, pdf],
  ["pdf-to-pdfa", "PDF to PDF/A", "/v1/convert/pdf-to-pdfa", 2, 1, 1, pdf],
  ["protect", "Protect PDF", "/v1/protect", 1, 1, 1, pdf],
  ["unlock", "Unlock PDF", "/v1/unlock", 1, 1, 1, pdf],
] as const;

const images = [".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".gif", ".bmp"];

/** Issue 19's table of the operations beyond the spec, copied by hand as well. */
const additionsTable = [
  ["pdf-to-image", "PDF to Image", "/v1/convert/pdf-to-image", 2, 1, 1, pdf],
  ["image-to-pdf", "Image to PDF", "/v1/convert/image-to-pdf", 2, 1, 50, images],
  ["watermark", "Watermark PDF", "/v1/watermark", 1, 1, 1, pdf],
  ["page-numbers", "Add page numbers", "/v1/page-numbers", 1, 1, 1, pdf],
  ["flatten", "Flatten PDF", "/v1/flatten", 1, 1, 1, pdf],
  ["metadata", "Edit metadata", "/v1/metadata", 1, 1, 1, pdf],
] as const;

describe("operation catalogue", () => {
  it("holds the spec's 16 operations in its order, then the additions", () => {
    const spec = specTable.map(([id]) => id);
    expect(operations.map((entry) => entry.id)).toEqual(operationIds);
    expect(operationIds.slice(0, spec.length)).toEqual(spec);
    // Each later one is checked by its own row below, or by its own tests where it has no row.
    expect(operationIds.slice(spec.length, spec.length + additionsTable.length)).toEqual(
      additionsTable.map(([id]) => id),
    );
  });

  it.each([...specTable, ...additionsTable])(
    "%s: %s at %s costs %i, takes %i-%i files",
    (id, title, path, credits, min, max, extensions) => {
      const spec = getOperation(id);
      expect(spec).toMatchObject({ id, title, path, credits, files: { min, max, extensions } });
      expect(spec.description.length).toBeGreaterThan(10);
      expect(findOperationByPath(path)).toBe(spec);
    },
  );

  it("uses ids that can name queues", () => {
    for (const id of operationIds) expect(id).toMatch(/^[a-z][a-z-]*$/);
  });

  it("keeps extensions lower-case with the dot", () => {
    for (const spec of operations) for (const ext of spec.files.extensions) expect(ext).toMatch(/^\.[a-z]+$/);
  });

  it("gives every operation a closed options schema with a description on each option", () => {
    for (const spec of operations) {
      expect(spec.options.additionalProperties).toBe(false);
      for (const option of Object.values(spec.options.properties)) expect(option.description).toBeTruthy();
    }
  });

  it("names, as secret and URL options, options the schema has; and named uploads as files are named", () => {
    for (const spec of operations) {
      const properties = Object.keys(spec.options.properties);
      for (const name of [...(spec.secretOptions ?? []), ...(spec.urlOptions ?? [])])
        expect(properties, spec.id).toContain(name);
      for (const [field, upload] of Object.entries(spec.files.named ?? {})) {
        expect(field, spec.id).toMatch(/^[a-z]+$/);
        expect(["file", "url", "options", "webhook_url"]).not.toContain(field);
        expect(upload.max, spec.id).toBeGreaterThanOrEqual(1);
        for (const ext of upload.extensions) expect(ext).toMatch(/^\.[a-z0-9]+$/);
      }
    }
    expect(getOperation("sign")).toMatchObject({
      secretOptions: ["certificatePassword"],
      urlOptions: ["timestampUrl"],
      files: { named: { certificate: { required: true, max: 1 }, image: { required: false } } },
    });
  });

  it("finds operations by path, tolerating one trailing slash", () => {
    expect(findOperationByPath("/v1/convert/pdf-to-pdfa/")?.id).toBe("pdf-to-pdfa");
    expect(findOperationByPath("/v1/convert/merge")).toBeUndefined();
    expect(findOperationByPath("/v1/jobs")).toBeUndefined();
    expect(findOperationByPath("")).toBeUndefined();
  });

  it("tells operation ids from other strings", () => {
    expect(isOperationId("ocr")).toBe(true);
    expect(isOperationId("convert/word-to-pdf")).toBe(false);
  });
});

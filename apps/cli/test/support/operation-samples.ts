import { fileURLToPath } from "node:url";
import type { OperationId } from "@octavo/contracts";
import { corpusPath } from "@octavo/testing";
import { imageFixture } from "./image-fixtures.js";

/** One small, fast, successful job of an operation: its inputs, options and what it must produce. */
export interface OperationSample {
  /** Input file paths, in order. */
  files: string[];
  /** Files of the operation's named upload fields, by field (Sign PDF's certificate). */
  named?: Record<string, string[]>;
  /** The options object to send; omitted: the operation's defaults. */
  options?: Record<string, unknown>;
  /** Every output's extension, with the dot: ".pdf". */
  outputExtension: string;
  /** Every output's content type. */
  outputContentType: string;
  /** How many outputs the job yields. */
  outputs: number;
}

const example = (name: string) => fileURLToPath(new URL(`../../../../examples/${name}`, import.meta.url));

const sampleA = example("sample-a.pdf"); // 1 page
const sampleB = example("sample-b.pdf"); // 1 page
const outline = corpusPath("general/samplefiles_pdflatex-outline.pdf"); // 4 pages
const libreOfficeForm = corpusPath("general/samplefiles_libreoffice-form.pdf"); // 8 fields

const pdf = { outputExtension: ".pdf", outputContentType: "application/pdf", outputs: 1 };
const ooxml = "application/vnd.openxmlformats-officedocument";

/** Known user password (corpus MANIFEST: user=asdfzxcv; AES-128, 1 page). */
export const unlockSamplePassword = "asdfzxcv";

/** examples/README.md: the password of examples/sample-signer.p12. */
const samplePasswords = { signer: "example" };

/**
 * A sample job for every operation id, on real files of the corpus, the examples and the image
 * fixtures, each chosen to run in a few seconds. Shared by the octavo-client CLI's test and the SDK's.
 */
export const operationSamples: Record<OperationId, OperationSample> = {
  merge: { files: [sampleA, sampleB], ...pdf },
  split: { files: [outline], options: { ranges: "1-2, 3-4" }, ...pdf, outputs: 2 },
  rotate: { files: [sampleA], options: { angle: 180 }, ...pdf },
  compress: { files: [sampleB], options: { level: "recommended" }, ...pdf },
  repair: { files: [sampleA], ...pdf },
  ocr: { files: [corpusPath("scanned/tesseract_phototest.pdf")], options: { languages: ["eng"] }, ...pdf },
  "word-to-pdf": { files: [corpusPath("office/tika_testWORD_various.docx")], ...pdf },
  "powerpoint-to-pdf": { files: [corpusPath("office/poi_with_japanese.pptx")], ...pdf },
  "excel-to-pdf": { files: [corpusPath("office/docling_xlsx_01.xlsx")], ...pdf },
  "html-to-pdf": { files: [corpusPath("html/samplefiles_habibi.html")], options: { format: "A4" }, ...pdf },
  "pdf-to-word": {
    files: [sampleA],
    outputExtension: ".docx",
    outputContentType: `${ooxml}.wordprocessingml.document`,
    outputs: 1,
  },
  "pdf-to-powerpoint": {
    files: [sampleA],
    outputExtension: ".pptx",
    outputContentType: `${ooxml}.presentationml.presentation`,
    outputs: 1,
  },
  "pdf-to-excel": {
    files: [corpusPath("tables/camelot_agstat.pdf")], // one ruled table
    options: { mode: "tables" },
    outputExtension: ".xlsx",
    outputContentType: `${ooxml}.spreadsheetml.sheet`,
    outputs: 1,
  },
  "pdf-to-markdown": {
    files: [outline],
    outputExtension: ".md",
    outputContentType: "text/markdown; charset=utf-8",
    outputs: 1,
  },
  "pdf-to-pdfa": { files: [sampleA], options: { level: "2" }, ...pdf },
  protect: { files: [sampleA], options: { userPassword: "sample-secret" }, ...pdf },
  unlock: {
    files: [corpusPath("encrypted/pypdf_r4-aes-user-password.pdf")],
    options: { password: unlockSamplePassword },
    ...pdf,
  },
  "pdf-to-image": {
    files: [sampleB],
    options: { format: "png", dpi: 72, pages: "1" },
    outputExtension: ".png",
    outputContentType: "image/png",
    outputs: 1,
  },
  "image-to-pdf": { files: [imageFixture("datagov-rgb.jpg").path], options: { pageSize: "A4" }, ...pdf },
  watermark: { files: [sampleA], options: { text: "SAMPLE" }, ...pdf },
  "page-numbers": { files: [outline], options: { format: "Page {n} of {total}" }, ...pdf },
  flatten: { files: [libreOfficeForm], ...pdf },
  metadata: { files: [sampleA], options: { title: "Sample title", keywords: ["sample", "test"] }, ...pdf },
  "pdf-info": {
    files: [outline],
    outputExtension: ".json",
    outputContentType: "application/json",
    outputs: 1,
  },
  redact: { files: [sampleA], options: { text: ["test document"], presets: ["email"] }, ...pdf },
  sign: {
    files: [sampleA],
    named: { certificate: [example("sample-signer.p12")] },
    options: { certificatePassword: samplePasswords.signer, reason: "Sample" },
    ...pdf,
  },
  "verify-signatures": {
    files: [sampleA],
    named: { roots: [example("sample-root.pem")] },
    outputExtension: ".json",
    outputContentType: "application/json",
    outputs: 1,
  },
  "forms-read": {
    files: [libreOfficeForm],
    outputExtension: ".json",
    outputContentType: "application/json",
    outputs: 1,
  },
  "forms-fill": {
    files: [libreOfficeForm],
    options: { values: { "First Name": "Ada", Nationality: "French", gdpr: true }, flatten: true },
    ...pdf,
  },
  // A real document with no placeholders is a template that fills to itself.
  generate: { files: [corpusPath("office/docling_docx_rich_tables_01.docx")], options: { data: {} }, ...pdf },
};

/** The first bytes of a file of each output extension: PDFs start "%PDF-", OOXML files are zips. */
const signatures: Record<string, string> = {
  ".pdf": "%PDF-",
  ".docx": "PK\u0003\u0004",
  ".pptx": "PK\u0003\u0004",
  ".xlsx": "PK\u0003\u0004",
  ".png": "\u0089PNG",
  ".jpg": "\u00ff\u00d8\u00ff",
  ".webp": "RIFF",
  // pdf-info's report: a JSON object.
  ".json": "{",
  // PDF to Markdown of the outline sample, whose first block is its "Contents" heading.
  ".md": "# ",
};

/** Whether the bytes start as a file of the extension should. */
export function looksLike(bytes: Uint8Array, extension: string): boolean {
  const signature = signatures[extension];
  if (signature === undefined) throw new Error(`no signature known for ${extension}`);
  return Buffer.from(bytes.subarray(0, signature.length)).toString("latin1") === signature;
}

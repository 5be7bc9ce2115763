import type { TObject } from "@sinclair/typebox";
import { imageRenderLimits } from "./limits.js";
import { CompressOptions } from "./options/compress.js";
import { FlattenOptions, MetadataOptions, PageNumbersOptions, WatermarkOptions } from "./options/edits.js";
import { HtmlToPdfOptions } from "./options/html-to-pdf.js";
import { ImageToPdfOptions, PdfToImageOptions } from "./options/images.js";
import { NoOptions } from "./options/no-options.js";
import { OcrOptions } from "./options/ocr.js";
import { RotateOptions, SplitOptions } from "./options/pages.js";
import { PdfToExcelOptions, PdfToPdfaOptions } from "./options/pdf-conversions.js";
import { ProtectOptions, UnlockOptions } from "./options/security.js";

/*
 * The operation catalogue: one entry per operation, and every other list of operations is derived
 * from it (ids, queues, lanes, options, runners, the OpenAPI paths, the SDK) or is a mapped type over
 * its ids that does not compile while an entry lacks its row. Adding an operation: its options
 * schema, its engine module, this entry and its tests.
 */

export interface FileRule {
  /** Fewest input files (uploads and URLs together). */
  readonly min: number;
  /** Most input files (uploads and URLs together). */
  readonly max: number;
  /** Accepted extensions, lower-case with the dot: ".pdf". */
  readonly extensions: readonly string[];
}

/**
 * Light jobs take milliseconds to a second, heavy ones seconds to minutes. A worker gives each lane engine
 * slots of its own (a light queue takes twice as many jobs at once), so a backlog of one kind never holds
 * up the other; the back-pressure estimates use a lane's typical run time until an operation has history.
 */
export type Lane = "light" | "heavy";

/** The warm engines a worker keeps for the operations it does not run in a sandbox process. */
export type ResidentEngine = "libreoffice" | "chromium";

export type RunnerSpec =
  /**
   * A sandbox process: no credentials, a capped heap, native tools in processes of their own under
   * their own limits, and a fresh MuPDF (WebAssembly) instance for every job, whose memory is erased
   * when the job ends. `reuse`: the process then takes the next job. That is safe where the document
   * is decoded only inside MuPDF's memory and in tool processes that exit (the structural operations).
   * Not reused: operations whose JavaScript holds the document's text and images (layout analysis, the
   * Office writers, PDF/A checks), or that decode images in native code inside the process (sharp);
   * garbage no job boundary can wipe, so each of their jobs gets a fresh process, and an end.
   */
  | { readonly runner: "sandbox"; readonly reuse: boolean }
  /** Warm LibreOffice or Chromium, whose own processes parse the file under their own limits. */
  | { readonly runner: "resident"; readonly engine: ResidentEngine };

/**
 * The worker class an operation's queue belongs to: one container image holding only the engines of
 * its operations (infra/README.md). pdf: qpdf, Ghostscript and MuPDF; heavy: OCRmyPDF, Tesseract,
 * layout analysis and sharp; office: LibreOffice and Chromium.
 */
export type OperationClass = "pdf" | "heavy" | "office";

export interface CatalogueEntry {
  /** The POST path, e.g. "/v1/merge" or "/v1/convert/word-to-pdf". */
  readonly path: string;
  /** The spec's name, e.g. "Merge PDF". */
  readonly title: string;
  readonly description: string;
  /** Credits charged when the job succeeds; a failed job costs nothing. */
  readonly credits: number;
  readonly files: FileRule;
  /** TypeBox schema of the options object. */
  readonly options: TObject;
  readonly lane: Lane;
  readonly runner: RunnerSpec;
  readonly workerClass: OperationClass;
  /**
   * Jobs of this operation a worker of its class runs at once, where fewer than its lane's slots: OCR
   * runs a page per core, so two OCR jobs on one worker would fight over the same cores.
   */
  readonly concurrency?: number;
}

const pdf = [".pdf"] as const;
const onePdf: FileRule = { min: 1, max: 1, extensions: pdf };
const upToTen = (extensions: readonly string[]): FileRule => ({ min: 1, max: 10, extensions });

/** Structural edits: the document is decoded only inside MuPDF's memory and tools that exit. */
const reusedSandbox = { runner: "sandbox", reuse: true } as const;
/** JavaScript holds the document's text or pixels, or sharp decodes images in-process. */
const freshSandbox = { runner: "sandbox", reuse: false } as const;

function count(value: number): string {
  return value.toLocaleString("en-US");
}

/**
 * The spec's operation table, in its order, then the operations beyond it (issue 19's image, stamp
 * and document operations). The keys double as BullMQ queue names, so they hold neither "/" nor ":".
 */
export const catalogue = {
  merge: {
    path: "/v1/merge",
    title: "Merge PDF",
    credits: 1,
    files: { min: 2, max: 20, extensions: pdf },
    description: "Combines the inputs into one PDF in the order sent.",
    options: NoOptions,
    lane: "light",
    runner: reusedSandbox,
    workerClass: "pdf",
  },
  split: {
    path: "/v1/split",
    title: "Split PDF",
    credits: 1,
    files: onePdf,
    description: "One output file per page, or per range when ranges is given.",
    options: SplitOptions,
    lane: "light",
    runner: reusedSandbox,
    workerClass: "pdf",
  },
  rotate: {
    path: "/v1/rotate",
    title: "Rotate PDF",
    credits: 1,
    files: onePdf,
    description: "Rotates clockwise, all pages or the listed pages.",
    options: RotateOptions,
    lane: "light",
    runner: reusedSandbox,
    workerClass: "pdf",
  },
  compress: {
    path: "/v1/compress",
    title: "Compress PDF",
    credits: 2,
    files: onePdf,
    description: "Downsamples images and removes redundant data.",
    options: CompressOptions,
    lane: "heavy",
    runner: freshSandbox,
    workerClass: "heavy",
  },
  repair: {
    path: "/v1/repair",
    title: "Repair PDF",
    credits: 1,
    files: onePdf,
    description: "Rebuilds a damaged or partly corrupted PDF.",
    options: NoOptions,
    lane: "light",
    runner: reusedSandbox,
    workerClass: "pdf",
  },
  ocr: {
    path: "/v1/ocr",
    title: "OCR PDF",
    credits: 3,
    files: onePdf,
    description: "Adds a searchable text layer to scanned PDFs.",
    options: OcrOptions,
    lane: "heavy",
    runner: freshSandbox,
    workerClass: "heavy",
    // OCRmyPDF runs a page per core: one job takes the worker's cores.
    concurrency: 1,
  },
  "word-to-pdf": {
    path: "/v1/convert/word-to-pdf",
    title: "Word to PDF",
    credits: 2,
    files: upToTen([".doc", ".docx", ".odt", ".rtf", ".txt"]),
    description: "Converts word-processing documents; one PDF output per input file.",
    options: NoOptions,
    lane: "heavy",
    runner: { runner: "resident", engine: "libreoffice" },
    workerClass: "office",
  },
  "powerpoint-to-pdf": {
    path: "/v1/convert/powerpoint-to-pdf",
    title: "PowerPoint to PDF",
    credits: 2,
    files: upToTen([".ppt", ".pptx", ".odp", ".pps", ".ppsx"]),
    description: "Converts presentations; one PDF output per input file.",
    options: NoOptions,
    lane: "heavy",
    runner: { runner: "resident", engine: "libreoffice" },
    workerClass: "office",
  },
  "excel-to-pdf": {
    path: "/v1/convert/excel-to-pdf",
    title: "Excel to PDF",
    credits: 2,
    files: upToTen([".xls", ".xlsx", ".ods", ".csv"]),
    description: "Converts spreadsheets; one PDF output per input file.",
    options: NoOptions,
    lane: "heavy",
    runner: { runner: "resident", engine: "libreoffice" },
    workerClass: "office",
  },
  "html-to-pdf": {
    path: "/v1/convert/html-to-pdf",
    title: "HTML / URL to PDF",
    credits: 2,
    files: { min: 0, max: 1, extensions: [".html", ".htm"] },
    description:
      "Renders a public page or an uploaded HTML file with a browser engine. The page can be given as " +
      "options.url instead of a file; exactly one of the two is needed.",
    options: HtmlToPdfOptions,
    lane: "heavy",
    runner: { runner: "resident", engine: "chromium" },
    workerClass: "office",
  },
  "pdf-to-word": {
    path: "/v1/convert/pdf-to-word",
    title: "PDF to Word",
    credits: 2,
    files: onePdf,
    description:
      "Converts to an editable DOCX: flowing paragraphs with their fonts, headings, pictures and Word tables, " +
      "multi-column pages in reading order. Scanned pages are OCRed first (English), with a warning.",
    options: NoOptions,
    lane: "heavy",
    runner: freshSandbox,
    workerClass: "heavy",
    // Scanned pages are OCRed first, a page per core.
    concurrency: 1,
  },
  "pdf-to-powerpoint": {
    path: "/v1/convert/pdf-to-powerpoint",
    title: "PDF to PowerPoint",
    credits: 2,
    files: onePdf,
    description:
      "Converts to a PPTX with one slide per page, each the size of its page: the page's graphics as the " +
      "slide's background and its text as editable text boxes at their positions.",
    options: NoOptions,
    lane: "heavy",
    runner: freshSandbox,
    workerClass: "heavy",
    // Scanned pages are OCRed first, a page per core.
    concurrency: 1,
  },
  "pdf-to-excel": {
    path: "/v1/convert/pdf-to-excel",
    title: "PDF to Excel",
    credits: 2,
    files: onePdf,
    description:
      "Converts to an XLSX workbook. mode tables (default): one sheet per detected table (ruled or " +
      "borderless), merged cells merged, numbers as numbers; a PDF without tables fails with no_tables. " +
      "mode pages: one sheet per page with all its text in rows and columns.",
    options: PdfToExcelOptions,
    lane: "heavy",
    runner: freshSandbox,
    workerClass: "heavy",
    // Scanned pages are OCRed first, a page per core.
    concurrency: 1,
  },
  "pdf-to-pdfa": {
    path: "/v1/convert/pdf-to-pdfa",
    title: "PDF to PDF/A",
    credits: 2,
    files: onePdf,
    description: "Archival conversion to PDF/A.",
    options: PdfToPdfaOptions,
    lane: "heavy",
    runner: freshSandbox,
    workerClass: "heavy",
  },
  protect: {
    path: "/v1/protect",
    title: "Protect PDF",
    credits: 1,
    files: onePdf,
    description: "Encrypts with AES-256 and sets permissions.",
    options: ProtectOptions,
    lane: "light",
    runner: reusedSandbox,
    workerClass: "pdf",
  },
  unlock: {
    path: "/v1/unlock",
    title: "Unlock PDF",
    credits: 1,
    files: onePdf,
    description: "Removes the password and restrictions from a PDF whose password is known.",
    options: UnlockOptions,
    lane: "light",
    runner: reusedSandbox,
    workerClass: "pdf",
  },
  "pdf-to-image": {
    path: "/v1/convert/pdf-to-image",
    title: "PDF to Image",
    credits: 2,
    files: onePdf,
    description:
      "One PNG, JPEG or WebP image per page (or per listed page), named <name>-p<page>.<ext>, each the " +
      "page's visible size × dpi / 72 pixels with its rotation applied. At most " +
      `${count(imageRenderLimits.maxPages)} pages, ${count(imageRenderLimits.maxPixelsPerPage)} pixels a ` +
      `page and ${count(imageRenderLimits.maxTotalPixels)} pixels in all per job; a job beyond them ` +
      "fails with invalid_input before rendering (ask for fewer pages or a lower dpi).",
    options: PdfToImageOptions,
    lane: "heavy",
    // Page pixels pass through JavaScript.
    runner: freshSandbox,
    workerClass: "heavy",
  },
  "image-to-pdf": {
    path: "/v1/convert/image-to-pdf",
    title: "Image to PDF",
    credits: 2,
    files: {
      min: 1,
      max: 50,
      extensions: [".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".gif", ".bmp"],
    },
    description:
      "One PDF with a page per image in the order sent (every frame of a multi-page TIFF, the first of " +
      "an animated GIF). JPEG data is embedded as it is, other images losslessly; EXIF orientation, " +
      "colour profiles and CMYK are kept.",
    options: ImageToPdfOptions,
    lane: "heavy",
    // sharp decodes and encodes images in native code.
    runner: freshSandbox,
    workerClass: "heavy",
  },
  watermark: {
    path: "/v1/watermark",
    title: "Watermark PDF",
    credits: 1,
    files: onePdf,
    description:
      "Draws text over each page (or the listed pages) with the given opacity, upright on rotated " +
      "pages; the text is real text and the content underneath is untouched.",
    options: WatermarkOptions,
    lane: "light",
    runner: reusedSandbox,
    workerClass: "pdf",
  },
  "page-numbers": {
    path: "/v1/page-numbers",
    title: "Add page numbers",
    credits: 1,
    files: onePdf,
    description:
      "Writes page numbers as text inside each page's visible area, upright on rotated pages; {n} counts " +
      "from start over the numbered pages and {total} is how many they are.",
    options: PageNumbersOptions,
    lane: "light",
    runner: reusedSandbox,
    workerClass: "pdf",
  },
  flatten: {
    path: "/v1/flatten",
    title: "Flatten PDF",
    credits: 1,
    files: onePdf,
    description:
      "Turns form fields with their values and annotations into page content, so they can no longer " +
      "be edited; what was visible stays where it was.",
    options: FlattenOptions,
    lane: "light",
    runner: reusedSandbox,
    workerClass: "pdf",
  },
  metadata: {
    path: "/v1/metadata",
    title: "Edit metadata",
    credits: 1,
    files: onePdf,
    description:
      "Sets title, author, subject, creator and keywords in both the Info dictionary and the XMP " +
      "packet, or removes all document metadata first; PDF/A files stay PDF/A where the change allows.",
    options: MetadataOptions,
    lane: "light",
    // Reads and writes the XMP packet, the document's own text, in JavaScript.
    runner: freshSandbox,
    workerClass: "pdf",
  },
} as const satisfies Record<string, CatalogueEntry>;

export type Catalogue = typeof catalogue;

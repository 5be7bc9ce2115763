import type { TObject } from "@sinclair/typebox";
import { FormReport } from "./form-report.js";
import { imageRenderLimits } from "./limits.js";
import { MarkdownDocument } from "./markdown-document.js";
import { CompressOptions } from "./options/compress.js";
import { FlattenOptions, MetadataOptions, PageNumbersOptions, WatermarkOptions } from "./options/edits.js";
import { FillFormOptions } from "./options/forms.js";
import { GenerateOptions, maxGenerateItems } from "./options/generate.js";
import { HtmlToPdfOptions } from "./options/html-to-pdf.js";
import { ImageToPdfOptions, PdfToImageOptions } from "./options/images.js";
import { PdfToMarkdownOptions } from "./options/markdown.js";
import { NoOptions } from "./options/no-options.js";
import { OcrOptions } from "./options/ocr.js";
import { RotateOptions, SplitOptions } from "./options/pages.js";
import { PdfToExcelOptions, PdfToPdfaOptions } from "./options/pdf-conversions.js";
import { RedactOptions } from "./options/redact.js";
import { ProtectOptions, UnlockOptions } from "./options/security.js";
import { SignOptions } from "./options/signatures.js";
import { SignatureReport } from "./signature-report.js";

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
  /** Files the operation takes beside its inputs, each kind in a multipart field of its own name. */
  readonly named?: Readonly<Record<string, NamedUpload>>;
}

/**
 * A file that is not a document to process but something the operation needs to process it: Sign PDF's
 * PKCS#12 file, Verify signatures' extra roots. It is uploaded in its own multipart field (never a URL, so
 * a key file is never fetched from anywhere), stored and deleted with the inputs, and given to the engine
 * as an input that names its field.
 */
export interface NamedUpload {
  readonly description: string;
  readonly required: boolean;
  readonly max: number;
  /** Accepted extensions, lower-case with the dot. */
  readonly extensions: readonly string[];
  /**
   * The option the file stands for, when it may be sent as either (Generate's data, too large for the
   * options field): exactly one of the two is needed, and the engine reads the file as that option's value.
   */
  readonly insteadOf?: string;
}

/**
 * Light jobs take milliseconds to a second, heavy ones seconds to minutes. A worker gives each lane engine
 * slots of its own (a light queue takes twice as many jobs at once), so a backlog of one kind never holds
 * up the other; the back-pressure estimates use a lane's typical run time until an operation has history.
 */
export type Lane = "light" | "heavy";

/** The warm engines a worker keeps for the operations it does not run in a sandbox process. */
export type ResidentEngine = "libreoffice" | "chromium";

/**
 * Where a sandboxed operation's engine is: a module the sandbox imports on its first job of the
 * operation (a light sandbox never loads the heavy packages, and keeps a small heap), and the function
 * it exports, called with (input, options, context), or (inputs, options, context) when the operation
 * takes more than one file. The module is an engine package ("@octavo/edit") or one of its modules by
 * path ("@octavo/edit/pdf-info"), so a new operation's module need not be added to its package's index.
 */
export interface EngineExport {
  readonly module: string;
  readonly export: string;
}

/**
 * Which job a sandbox process takes after one of this operation's (see RunnerSpec):
 * - `shared`: any operation's job, any account's. The document was decoded only inside MuPDF's memory,
 *   erased when the job ends, and in tool processes that exited (the structural operations).
 * - `account`: the same account's only. JavaScript held the client's values and the document's text (Fill
 *   form, Read form): garbage no job boundary can wipe, so it may be left only where the one who sent it
 *   is the next to send a file. A process waiting with it ends soon (the worker's sandbox limits).
 * - `none`: none; the process ends. Operations whose JavaScript holds a whole document's text and
 *   images (layout analysis, the Office writers, PDF/A checks), or that decode images in native code
 *   inside the process (sharp), where a hostile file could leave more than garbage behind.
 */
export type SandboxReuse = "shared" | "account" | "none";

export type RunnerSpec =
  /**
   * A sandbox process: no credentials, a capped heap, native tools in processes of their own under
   * their own limits, and a fresh MuPDF (WebAssembly) instance for every job, whose memory is erased
   * when the job ends. `reuse`: which job the process may take next.
   */
  | { readonly runner: "sandbox"; readonly reuse: SandboxReuse; readonly engine: EngineExport }
  /**
   * Warm LibreOffice or Chromium, whose own processes parse the file under their own limits. `prepare`: a
   * sandbox engine (in a fresh process) that first turns the inputs into what the resident engine takes, as
   * Generate's templating makes the Office files LibreOffice converts.
   */
  | { readonly runner: "resident"; readonly engine: ResidentEngine; readonly prepare?: EngineExport };

/**
 * The worker class an operation's queue belongs to: one container image holding only the engines of
 * its operations (infra/README.md). pdf: qpdf, Ghostscript and MuPDF; heavy: OCRmyPDF, Tesseract,
 * layout analysis and sharp; office: LibreOffice and Chromium.
 */
export type OperationClass = "pdf" | "heavy" | "office";

/** What an operation yields: what a pipeline's next step receives. */
export interface OperationOutput {
  /** Lower-case with the dot, as in FileRule.extensions; the default when options choose it. */
  readonly extension: string;
  /**
   * one: a single file whatever it received; per-input: one file per file received (a one-file
   * operation runs once per file in a pipeline); several: a number known only once it has run.
   */
  readonly count: "one" | "per-input" | "several";
  /**
   * The schema of the JSON document the operation writes (with the option that asks for JSON), named as
   * the OpenAPI document's component: clients generate its type, and the tests validate real outputs.
   */
  readonly document?: { readonly name: string; readonly schema: TObject };
}

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
  readonly output: OperationOutput;
  readonly lane: Lane;
  readonly runner: RunnerSpec;
  readonly workerClass: OperationClass;
  /**
   * The programs the operation starts, besides node and the packages in node_modules (MuPDF.js, sharp,
   * the Office writers): which operations a machine runs (the API's offer and `octavo worker`'s queues)
   * and what `octavo doctor` requires. A program that only improves a result is not listed: PDF to
   * Office OCRs scanned pages when ocrmypdf is there and converts them with a warning when it is not.
   */
  readonly programs: readonly string[];
  /**
   * Options that are secrets (Sign PDF's certificate password): never written to the job's row, its
   * Idempotency-Key fingerprint or a log. The API keeps them in a stored object beside the inputs, deleted
   * with them, and the worker hands them to the engine with the other options.
   */
  readonly secretOptions?: readonly string[];
  /**
   * Options holding a URL the engine will request (Sign PDF's time-stamp server): the API checks each
   * against the outbound policy when the job is created, as it checks URL inputs, and the engine's request
   * goes through the same policy again.
   */
  readonly urlOptions?: readonly string[];
  /**
   * Jobs of this operation a worker of its class runs at once, where fewer than its lane's slots: OCR
   * runs a page per core, so two OCR jobs on one worker would fight over the same cores.
   */
  readonly concurrency?: number;
  /**
   * Where a test job's "octavo test mode" stamp goes (@octavo/test-mark): on its outputs once the engine
   * is done (the default), or on its PDF inputs before the engine, for an operation whose output cannot be
   * rewritten afterwards (encrypted, signed, PDF/A) or is drawn from the pages (images).
   */
  readonly testStamp?: "inputs" | "outputs";
}

const pdf = [".pdf"] as const;
const onePdf: FileRule = { min: 1, max: 1, extensions: pdf };
const upToTen = (extensions: readonly string[]): FileRule => ({ min: 1, max: 10, extensions });

function sandboxOf(reuse: SandboxReuse, module: string, exported: string) {
  return { runner: "sandbox", reuse, engine: { module, export: exported } } as const;
}

/** A structural edit: the document is decoded only inside MuPDF's memory and tools that exit. */
const reusedSandbox = (module: string, exported: string) => sandboxOf("shared", module, exported);
/** The client's values and the form's own text pass through JavaScript: reused for the same account only. */
const accountSandbox = (module: string, exported: string) => sandboxOf("account", module, exported);
/** JavaScript holds the document's text or pixels, or sharp decodes images in-process: a process a job. */
const freshSandbox = (module: string, exported: string) => sandboxOf("none", module, exported);

const onePdfOut: OperationOutput = { extension: ".pdf", count: "one" };
const pdfPerInput: OperationOutput = { extension: ".pdf", count: "per-input" };

// Every PDF input goes through openSource, where qpdf counts the pages beside MuPDF; prlimit caps the
// memory and CPU of every engine process (util-linux, like unshare).
const pdfInput = ["qpdf", "prlimit"] as const;
// Warm LibreOffice: soffice, driven through UNO by Debian's python3 (python3-uno), started without
// network inside `unshare`.
const office = ["soffice", "/usr/bin/python3", "prlimit", "unshare"] as const;

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
    output: onePdfOut,
    lane: "light",
    runner: reusedSandbox("@octavo/engines", "merge"),
    workerClass: "pdf",
    programs: pdfInput,
  },
  split: {
    path: "/v1/split",
    title: "Split PDF",
    credits: 1,
    files: onePdf,
    description: "One output file per page, or per range when ranges is given.",
    options: SplitOptions,
    output: { extension: ".pdf", count: "several" },
    lane: "light",
    runner: reusedSandbox("@octavo/engines", "split"),
    workerClass: "pdf",
    programs: pdfInput,
  },
  rotate: {
    path: "/v1/rotate",
    title: "Rotate PDF",
    credits: 1,
    files: onePdf,
    description: "Rotates clockwise, all pages or the listed pages.",
    options: RotateOptions,
    output: pdfPerInput,
    lane: "light",
    runner: reusedSandbox("@octavo/engines", "rotate"),
    workerClass: "pdf",
    programs: pdfInput,
  },
  compress: {
    path: "/v1/compress",
    title: "Compress PDF",
    credits: 2,
    files: onePdf,
    description: "Downsamples images and removes redundant data.",
    options: CompressOptions,
    output: pdfPerInput,
    lane: "heavy",
    runner: freshSandbox("@octavo/compress", "compress"),
    workerClass: "heavy",
    programs: [...pdfInput, "gs"],
  },
  repair: {
    path: "/v1/repair",
    title: "Repair PDF",
    credits: 1,
    files: onePdf,
    description: "Rebuilds a damaged or partly corrupted PDF.",
    options: NoOptions,
    output: pdfPerInput,
    lane: "light",
    runner: reusedSandbox("@octavo/engines", "repair"),
    workerClass: "pdf",
    // Ghostscript is the last pass; pdfinfo (poppler) is the third parser that checks a repaired file.
    programs: [...pdfInput, "gs", "pdfinfo"],
  },
  ocr: {
    path: "/v1/ocr",
    title: "OCR PDF",
    credits: 3,
    files: onePdf,
    description: "Adds a searchable text layer to scanned PDFs.",
    options: OcrOptions,
    output: pdfPerInput,
    lane: "heavy",
    runner: freshSandbox("@octavo/ocr", "ocr"),
    workerClass: "heavy",
    // OCRmyPDF runs Tesseract and rasterises pages with Ghostscript.
    programs: [...pdfInput, "ocrmypdf", "tesseract", "gs"],
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
    output: pdfPerInput,
    lane: "heavy",
    runner: { runner: "resident", engine: "libreoffice" },
    workerClass: "office",
    programs: office,
  },
  "powerpoint-to-pdf": {
    path: "/v1/convert/powerpoint-to-pdf",
    title: "PowerPoint to PDF",
    credits: 2,
    files: upToTen([".ppt", ".pptx", ".odp", ".pps", ".ppsx"]),
    description: "Converts presentations; one PDF output per input file.",
    options: NoOptions,
    output: pdfPerInput,
    lane: "heavy",
    runner: { runner: "resident", engine: "libreoffice" },
    workerClass: "office",
    programs: office,
  },
  "excel-to-pdf": {
    path: "/v1/convert/excel-to-pdf",
    title: "Excel to PDF",
    credits: 2,
    files: upToTen([".xls", ".xlsx", ".ods", ".csv"]),
    description: "Converts spreadsheets; one PDF output per input file.",
    options: NoOptions,
    output: pdfPerInput,
    lane: "heavy",
    runner: { runner: "resident", engine: "libreoffice" },
    workerClass: "office",
    programs: office,
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
    output: onePdfOut,
    lane: "heavy",
    runner: { runner: "resident", engine: "chromium" },
    workerClass: "office",
    programs: ["chromium"],
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
    output: { extension: ".docx", count: "per-input" },
    lane: "heavy",
    runner: freshSandbox("@octavo/pdf-office", "pdfToWord"),
    workerClass: "heavy",
    programs: pdfInput,
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
    output: { extension: ".pptx", count: "per-input" },
    lane: "heavy",
    runner: freshSandbox("@octavo/pdf-office", "pdfToPowerPoint"),
    workerClass: "heavy",
    programs: pdfInput,
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
    output: { extension: ".xlsx", count: "per-input" },
    lane: "heavy",
    runner: freshSandbox("@octavo/pdf-office", "pdfToExcel"),
    workerClass: "heavy",
    programs: pdfInput,
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
    output: pdfPerInput,
    lane: "heavy",
    runner: freshSandbox("@octavo/pdfa", "toPdfA"),
    workerClass: "heavy",
    // pdftotext (poppler) checks that the PDF/A's text survived.
    programs: [...pdfInput, "gs", "pdftotext"],
    // Stamped before the conversion, which then makes the stamp part of a conforming PDF/A.
    testStamp: "inputs",
  },
  protect: {
    path: "/v1/protect",
    title: "Protect PDF",
    credits: 1,
    files: onePdf,
    description: "Encrypts with AES-256 and sets permissions.",
    options: ProtectOptions,
    output: pdfPerInput,
    lane: "light",
    runner: reusedSandbox("@octavo/engines", "protect"),
    workerClass: "pdf",
    programs: pdfInput,
    // The output is encrypted.
    testStamp: "inputs",
  },
  unlock: {
    path: "/v1/unlock",
    title: "Unlock PDF",
    credits: 1,
    files: onePdf,
    description: "Removes the password and restrictions from a PDF whose password is known.",
    options: UnlockOptions,
    output: pdfPerInput,
    lane: "light",
    runner: reusedSandbox("@octavo/engines", "unlock"),
    workerClass: "pdf",
    programs: pdfInput,
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
    output: { extension: ".png", count: "several" },
    lane: "heavy",
    // Page pixels pass through JavaScript.
    runner: freshSandbox("@octavo/images", "pdfToImage"),
    workerClass: "heavy",
    programs: pdfInput,
    // The images are rendered from stamped pages, so the stamp is drawn into them.
    testStamp: "inputs",
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
    output: onePdfOut,
    lane: "heavy",
    // sharp decodes and encodes images in native code.
    runner: freshSandbox("@octavo/images", "imageToPdf"),
    workerClass: "heavy",
    // Images are decoded by sharp and MuPDF inside the sandbox; the PDF is written by pdf-lib.
    programs: [],
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
    output: pdfPerInput,
    lane: "light",
    runner: reusedSandbox("@octavo/edit", "watermark"),
    workerClass: "pdf",
    programs: pdfInput,
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
    output: pdfPerInput,
    lane: "light",
    runner: reusedSandbox("@octavo/edit", "pageNumbers"),
    workerClass: "pdf",
    programs: pdfInput,
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
    output: pdfPerInput,
    lane: "light",
    runner: reusedSandbox("@octavo/edit", "flatten"),
    workerClass: "pdf",
    programs: pdfInput,
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
    output: pdfPerInput,
    lane: "light",
    // Reads and writes the XMP packet, the document's own text, in JavaScript.
    runner: freshSandbox("@octavo/edit", "metadata"),
    workerClass: "pdf",
    programs: pdfInput,
  },
  "pdf-info": {
    path: "/v1/pdf-info",
    title: "PDF info",
    credits: 1,
    files: onePdf,
    description:
      "Reports the document's facts as JSON (<name>.json): PDF version, pages and their sizes, metadata, " +
      "tags, PDF/A claim, language, bookmarks, form fields, links, attachments and the " +
      "pages without text (the ones OCR would help).",
    options: NoOptions,
    output: { extension: ".json", count: "per-input" },
    lane: "light",
    // Reads the pages' text in JavaScript.
    runner: freshSandbox("@octavo/edit/pdf-info", "pdfInfo"),
    workerClass: "pdf",
    programs: pdfInput,
  },
  "pdf-to-markdown": {
    path: "/v1/convert/pdf-to-markdown",
    title: "PDF to Markdown",
    credits: 2,
    files: onePdf,
    description:
      "Converts to Markdown, JSON or plain text for search and language models: the text in reading order " +
      "(columns, paragraphs joined, hyphenation undone), headings from the font sizes and the outline, lists, " +
      "tables (GFM, or HTML where cells span), figures with their captions, footnotes, code and links; " +
      "running headers and page numbers left out. Scanned pages are OCRed first. format json gives every " +
      "block with its page and box (the MarkdownDocument schema), and chunks when chunking is set.",
    options: PdfToMarkdownOptions,
    output: {
      extension: ".md",
      count: "several",
      document: { name: "MarkdownDocument", schema: MarkdownDocument },
    },
    lane: "heavy",
    // The document's text passes through JavaScript (layout analysis).
    runner: freshSandbox("@octavo/pdf-office/markdown/pdf-to-markdown", "pdfToMarkdown"),
    workerClass: "heavy",
    programs: pdfInput,
    // Scanned pages are OCRed first, a page per core.
    concurrency: 1,
  },
  redact: {
    path: "/v1/redact",
    title: "Redact PDF",
    credits: 2,
    files: onePdf,
    description:
      "Removes, not covers, exact text, RE2 patterns, presets (email, phone, IBAN, card, SSN, IP addresses) " +
      "and areas. What the rules find on the pages asked leaves the content: the glyphs, and the image pixels " +
      "and vector art under each box, with the links and annotations a box touches; a box of the fill colour " +
      "is left in each place. sanitize (default) also removes metadata, attachments, JavaScript and matching " +
      "outline entries, and hidden text (outside the crop box, invisible, white on white, under an opaque " +
      "image or box). The job's redaction counts the matches per page and rule, never their text. With ocr, " +
      "scans are OCRed first and what the rules find is removed from their text layer and pixels; without " +
      "it, a page that is only an image fails with conversion_failed. A page whose text the engine would move " +
      "while removing it is delivered as a picture of itself with the boxes painted in, its other words " +
      "kept over it as invisible text (searchable, as on an OCRed scan), and the job's warnings name it; a " +
      "match that cannot be removed fails the job with conversion_failed.",
    options: RedactOptions,
    output: pdfPerInput,
    // 50 pages with five terms take about 4.6 s.
    lane: "heavy",
    // The pages' text passes through JavaScript.
    runner: freshSandbox("@octavo/redact", "redact"),
    // With ocr, OCRmyPDF runs first.
    workerClass: "heavy",
    programs: [...pdfInput, "ocrmypdf", "tesseract", "gs"],
    // Scans are OCRed a page per core.
    concurrency: 1,
  },
  sign: {
    path: "/v1/sign",
    title: "Sign PDF",
    credits: 2,
    files: {
      min: 1,
      max: 1,
      extensions: pdf,
      named: {
        certificate: {
          description:
            "The signer's certificate and private key, a PKCS#12 file; options.certificatePassword opens it.",
          required: true,
          max: 1,
          extensions: [".p12", ".pfx"],
        },
        image: {
          description: "A picture drawn in a visible signature (a handwritten signature, a seal).",
          required: false,
          max: 1,
          extensions: [".png", ".jpg", ".jpeg"],
        },
      },
    },
    description:
      "Signs with a PAdES baseline signature (ETSI.CAdES.detached, SHA-256; B-B, or B-T with a time-stamp " +
      "server) in an incremental update, so the original bytes and earlier signatures stay intact; visible or " +
      "invisible, approval or certification (DocMDP). The certificate is refused before signing when its " +
      "password is wrong, it is expired or not yet valid, its key does not match or it may not sign.",
    options: SignOptions,
    secretOptions: ["certificatePassword"],
    urlOptions: ["timestampUrl"],
    output: pdfPerInput,
    lane: "light",
    // The private key is held in JavaScript while the job runs: no later job may share its process.
    runner: freshSandbox("@octavo/sign/operations", "sign"),
    workerClass: "pdf",
    // OpenSSL reads the PKCS#12 file in a process of its own.
    programs: [...pdfInput, "openssl"],
    // Stamped before signing: a change after it would break the signature.
    testStamp: "inputs",
  },
  "verify-signatures": {
    path: "/v1/verify-signatures",
    title: "Verify signatures",
    credits: 1,
    files: {
      min: 1,
      max: 1,
      extensions: pdf,
      named: {
        roots: {
          description:
            "Certificates to trust beside Debian's ca-certificates (PEM or DER), e.g. a company's own root.",
          required: false,
          max: 10,
          extensions: [".pem", ".crt", ".cer", ".der"],
        },
      },
    },
    description:
      "Reports every signature (report.json, and in the job as verification): integrity, what the signature " +
      "covers and whether later revisions only made allowed changes, the certificate's validity at signing " +
      "time, the chain to a trusted root, the time-stamp, and revocation data only as far as the file embeds " +
      "it (nothing is fetched). A file without signatures gives a report with none.",
    options: NoOptions,
    output: {
      extension: ".json",
      count: "per-input",
      document: { name: "SignatureReport", schema: SignatureReport },
    },
    lane: "light",
    // The document's structure and the certificates are read in JavaScript.
    runner: freshSandbox("@octavo/sign/operations", "verifySignatures"),
    workerClass: "pdf",
    programs: pdfInput,
  },
  generate: {
    path: "/v1/generate",
    title: "Generate document",
    credits: 2,
    files: {
      min: 1,
      max: 1,
      extensions: [".docx", ".xlsx", ".pptx", ".odt"],
      named: {
        data: {
          description:
            "The data as a JSON file, for data larger than the options field takes; instead of options.data.",
          required: false,
          max: 1,
          extensions: [".json"],
          insteadOf: "data",
        },
      },
    },
    description:
      "Fills a Word, Excel, PowerPoint or OpenDocument template's placeholders from options.data (or an uploaded " +
      "data.json): values, loops that repeat table rows, list items and slides, conditions, date, number and " +
      "currency formatters by locale, and images from data URLs or allowed URLs. One document per item of an " +
      `array (at most ${count(maxGenerateItems)}), or one merged PDF; as PDF or in the template's own format. A ` +
      "placeholder with no data, malformed template syntax or a damaged template fails the job naming the " +
      "placeholder and where it is.",
    options: GenerateOptions,
    output: { extension: ".pdf", count: "several" },
    lane: "heavy",
    runner: {
      runner: "resident",
      engine: "libreoffice",
      // The template and the data are read in JavaScript: a fresh sandbox process, before LibreOffice.
      prepare: { module: "@octavo/generate", export: "fillTemplate" },
    },
    workerClass: "office",
    // qpdf merges a batch's PDFs.
    programs: [...office, "qpdf"],
  },
  "forms-read": {
    path: "/v1/forms/read",
    title: "Read form",
    credits: 1,
    files: onePdf,
    description:
      "Reports every AcroForm field (fields.json, and in the job as form): its fully qualified name, type, value, " +
      "options with their export values, flags (required, read-only, multiline, comb, max length) and the page " +
      "and rectangle of each widget. An XFA form is reported as XFA; a dynamic one cannot be filled.",
    options: NoOptions,
    output: { extension: ".json", count: "per-input", document: { name: "FormReport", schema: FormReport } },
    lane: "light",
    // The field values, the document's own text, are read in JavaScript.
    runner: accountSandbox("@octavo/edit/forms/read-form", "readForm"),
    workerClass: "pdf",
    programs: pdfInput,
  },
  "forms-fill": {
    path: "/v1/forms/fill",
    title: "Fill form",
    credits: 1,
    files: onePdf,
    description:
      "Fills AcroForm fields from options.values (names as forms/read reports them) and draws each filled " +
      "widget's appearance (the field's font, size or auto-size, alignment, comb and multiline; characters " +
      "the field's font lacks in an embedded font that has them), so every viewer shows the values. With " +
      "flatten the fields then become page content. An unknown field, a value of the wrong type, an option " +
      "not in the list, text over the field's maximum length or a read-only field without force fails the job " +
      "with invalid_options naming the field.",
    options: FillFormOptions,
    output: pdfPerInput,
    lane: "light",
    // The values pass through JavaScript, and the fonts that draw them.
    runner: accountSandbox("@octavo/edit/forms/fill-form", "fillForm"),
    workerClass: "pdf",
    programs: pdfInput,
  },
} as const satisfies Record<string, CatalogueEntry>;

export type Catalogue = typeof catalogue;

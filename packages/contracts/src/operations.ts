import type { TObject } from "@sinclair/typebox";
import { imageRenderLimits } from "./limits.js";
import type { OperationId } from "./operation-ids.js";
import { optionsSchemas } from "./options/index.js";

export interface FileRule {
  /** Fewest input files (uploads and URLs together). */
  readonly min: number;
  /** Most input files (uploads and URLs together). */
  readonly max: number;
  /** Accepted extensions, lower-case with the dot: ".pdf". */
  readonly extensions: readonly string[];
}

export interface OperationSpec {
  /** Also the name of the operation's queue. */
  readonly id: OperationId;
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
}

const pdf = [".pdf"] as const;
const onePdf: FileRule = { min: 1, max: 1, extensions: pdf };
const upToTen = (extensions: readonly string[]): FileRule => ({ min: 1, max: 10, extensions });

function operation(
  id: OperationId,
  path: string,
  title: string,
  credits: number,
  files: FileRule,
  description: string,
): OperationSpec {
  return { id, path, title, description, credits, files, options: optionsSchemas[id] };
}

/** The spec's operation table, in its order, then the operations beyond it. */
export const operations: readonly OperationSpec[] = [
  operation(
    "merge",
    "/v1/merge",
    "Merge PDF",
    1,
    { min: 2, max: 20, extensions: pdf },
    "Combines the inputs into one PDF in the order sent.",
  ),
  operation(
    "split",
    "/v1/split",
    "Split PDF",
    1,
    onePdf,
    "One output file per page, or per range when ranges is given.",
  ),
  operation(
    "rotate",
    "/v1/rotate",
    "Rotate PDF",
    1,
    onePdf,
    "Rotates clockwise, all pages or the listed pages.",
  ),
  operation(
    "compress",
    "/v1/compress",
    "Compress PDF",
    2,
    onePdf,
    "Downsamples images and removes redundant data.",
  ),
  operation("repair", "/v1/repair", "Repair PDF", 1, onePdf, "Rebuilds a damaged or partly corrupted PDF."),
  operation("ocr", "/v1/ocr", "OCR PDF", 3, onePdf, "Adds a searchable text layer to scanned PDFs."),
  operation(
    "word-to-pdf",
    "/v1/convert/word-to-pdf",
    "Word to PDF",
    2,
    upToTen([".doc", ".docx", ".odt", ".rtf", ".txt"]),
    "Converts word-processing documents; one PDF output per input file.",
  ),
  operation(
    "powerpoint-to-pdf",
    "/v1/convert/powerpoint-to-pdf",
    "PowerPoint to PDF",
    2,
    upToTen([".ppt", ".pptx", ".odp", ".pps", ".ppsx"]),
    "Converts presentations; one PDF output per input file.",
  ),
  operation(
    "excel-to-pdf",
    "/v1/convert/excel-to-pdf",
    "Excel to PDF",
    2,
    upToTen([".xls", ".xlsx", ".ods", ".csv"]),
    "Converts spreadsheets; one PDF output per input file.",
  ),
  operation(
    "html-to-pdf",
    "/v1/convert/html-to-pdf",
    "HTML / URL to PDF",
    2,
    { min: 0, max: 1, extensions: [".html", ".htm"] },
    "Renders a public page or an uploaded HTML file with a browser engine. The page can be given as " +
      "options.url instead of a file; exactly one of the two is needed.",
  ),
  operation(
    "pdf-to-word",
    "/v1/convert/pdf-to-word",
    "PDF to Word",
    2,
    onePdf,
    "Converts to an editable DOCX: flowing paragraphs with their fonts, headings, pictures and Word tables, " +
      "multi-column pages in reading order. Scanned pages are OCRed first (English), with a warning.",
  ),
  operation(
    "pdf-to-powerpoint",
    "/v1/convert/pdf-to-powerpoint",
    "PDF to PowerPoint",
    2,
    onePdf,
    "Converts to a PPTX with one slide per page, each the size of its page: the page's graphics as the " +
      "slide's background and its text as editable text boxes at their positions.",
  ),
  operation(
    "pdf-to-excel",
    "/v1/convert/pdf-to-excel",
    "PDF to Excel",
    2,
    onePdf,
    "Converts to an XLSX workbook. mode tables (default): one sheet per detected table (ruled or " +
      "borderless), merged cells merged, numbers as numbers; a PDF without tables fails with no_tables. " +
      "mode pages: one sheet per page with all its text in rows and columns.",
  ),
  operation(
    "pdf-to-pdfa",
    "/v1/convert/pdf-to-pdfa",
    "PDF to PDF/A",
    2,
    onePdf,
    "Archival conversion to PDF/A.",
  ),
  operation(
    "protect",
    "/v1/protect",
    "Protect PDF",
    1,
    onePdf,
    "Encrypts with AES-256 and sets permissions.",
  ),
  operation(
    "unlock",
    "/v1/unlock",
    "Unlock PDF",
    1,
    onePdf,
    "Removes the password and restrictions from a PDF whose password is known.",
  ),
  // Beyond the spec: the operations customers ask the peers for (issue 19).
  operation(
    "pdf-to-image",
    "/v1/convert/pdf-to-image",
    "PDF to Image",
    2,
    onePdf,
    "One PNG, JPEG or WebP image per page (or per listed page), named <name>-p<page>.<ext>, each the " +
      "page's visible size × dpi / 72 pixels with its rotation applied. At most " +
      `${count(imageRenderLimits.maxPages)} pages, ${count(imageRenderLimits.maxPixelsPerPage)} pixels a ` +
      `page and ${count(imageRenderLimits.maxTotalPixels)} pixels in all per job; a job beyond them ` +
      "fails with invalid_input before rendering (ask for fewer pages or a lower dpi).",
  ),
  operation(
    "image-to-pdf",
    "/v1/convert/image-to-pdf",
    "Image to PDF",
    2,
    { min: 1, max: 50, extensions: [".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".gif", ".bmp"] },
    "One PDF with a page per image in the order sent (every frame of a multi-page TIFF, the first of " +
      "an animated GIF). JPEG data is embedded as it is, other images losslessly; EXIF orientation, " +
      "colour profiles and CMYK are kept.",
  ),
  operation(
    "watermark",
    "/v1/watermark",
    "Watermark PDF",
    1,
    onePdf,
    "Draws text over each page (or the listed pages) with the given opacity, upright on rotated " +
      "pages; the text is real text and the content underneath is untouched.",
  ),
  operation(
    "page-numbers",
    "/v1/page-numbers",
    "Add page numbers",
    1,
    onePdf,
    "Writes page numbers as text inside each page's visible area, upright on rotated pages; {n} counts " +
      "from start over the numbered pages and {total} is how many they are.",
  ),
  operation(
    "flatten",
    "/v1/flatten",
    "Flatten PDF",
    1,
    onePdf,
    "Turns form fields with their values and annotations into page content, so they can no longer " +
      "be edited; what was visible stays where it was.",
  ),
  operation(
    "metadata",
    "/v1/metadata",
    "Edit metadata",
    1,
    onePdf,
    "Sets title, author, subject, creator and keywords in both the Info dictionary and the XMP " +
      "packet, or removes all document metadata first; PDF/A files stay PDF/A where the change allows.",
  ),
];

function count(value: number): string {
  return value.toLocaleString("en-US");
}

const byId = new Map(operations.map((spec) => [spec.id, spec]));
const byPath = new Map(operations.map((spec) => [spec.path, spec]));

export function getOperation(id: OperationId): OperationSpec {
  const spec = byId.get(id);
  // Unreachable for a well-typed id; a clear throw beats undefined for callers passing casts.
  if (spec === undefined) throw new Error(`unknown operation: ${String(id)}`);
  return spec;
}

/** The operation POSTed to `path`; one trailing slash is tolerated, as Express's routing does. */
export function findOperationByPath(path: string): OperationSpec | undefined {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return byPath.get(trimmed);
}

import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type EngineContext,
  type EngineInput,
  forgetBorrowed,
  JobFailure,
  openSource,
} from "@octavo/engines";
import type { Mupdf } from "@octavo/mupdf";
import { loadMupdf } from "@octavo/mupdf";
import { ocr } from "@octavo/ocr";

/** The PDF the writers read: the checked input, or its OCRed copy when some pages were scans. */
export interface PreparedPdf {
  doc: Mupdf.PDFDocument;
  /** The file `doc` was opened from. */
  path: string;
  pages: number;
  /** Zero-based pages whose text came from OCR. */
  ocrPages: Set<number>;
  warnings: string[];
  /** "ocrmypdf" when OCR ran, for EngineResult.engine. */
  engines: string[];
}

/** When pages are OCRed: auto, the scans without a text layer; always, every page; never, none. */
export interface OcrChoice {
  mode: "auto" | "always" | "never";
  /** Tesseract language codes. */
  languages: string[];
}

const scansInEnglish: OcrChoice = { mode: "auto", languages: ["eng"] };

/** Share of the progress bar the preparation takes when OCR runs. */
const ocrShare = 0.4;

/**
 * Runs the shared preflight (refuses non-PDFs and encrypted files, rebuilds damaged ones), then OCRs the
 * pages that are scans without a text layer so that they convert to editable text too.
 */
export async function preparePdf(
  input: EngineInput,
  name: string,
  scratchDir: string,
  ctx: EngineContext,
  choice: OcrChoice = scansInEnglish,
): Promise<PreparedPdf> {
  const sourceDir = join(scratchDir, "source");
  await mkdir(sourceDir);
  const source = await openSource(input, sourceDir, ctx.signal);
  const warnings = [...source.warnings];
  const mupdf = await loadMupdf();
  let doc = new mupdf.PDFDocument(await readFile(source.path));
  const scanned =
    choice.mode === "never"
      ? []
      : choice.mode === "always"
        ? Array.from({ length: doc.countPages() }, (_, index) => index)
        : scannedPages(doc, ctx.signal);
  if (scanned.length === 0)
    return { doc, path: source.path, pages: source.pages, ocrPages: new Set(), warnings, engines: [] };

  const ocrDir = join(scratchDir, "ocr");
  await mkdir(ocrDir);
  let ocrPath: string;
  try {
    const result = await ocr(
      { path: source.path, name: input.name },
      { languages: choice.languages, deskew: false, force: choice.mode === "always" },
      {
        workDir: ocrDir,
        ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
        onProgress: (fraction) => ctx.onProgress?.(fraction * ocrShare),
      },
    );
    ocrPath = result.outputs[0]?.path ?? "";
  } catch (error) {
    if (ctx.signal?.aborted || !(error instanceof JobFailure) || error.code === "timeout") throw error;
    // A failed OCR leaves the scans as pictures; the rest of the document still converts.
    warnings.push(
      `${pageList(scanned)} of ${name} ${verb(scanned)} scanned and OCR failed (${error.message})`,
    );
    return { doc, path: source.path, pages: source.pages, ocrPages: new Set(), warnings, engines: [] };
  }
  doc.destroy();
  doc = new mupdf.PDFDocument(await readFile(ocrPath));
  const stillScanned = new Set(choice.mode === "always" ? [] : scannedPages(doc, ctx.signal));
  const ocrPages = new Set(scanned.filter((index) => !stillScanned.has(index)));
  const recognised = [...ocrPages];
  if (recognised.length > 0) {
    warnings.push(
      choice.mode === "always"
        ? `The text of ${name} was recognised by OCR (Tesseract, ${languageNames(choice.languages)}) on every page and may contain mistakes.`
        : `${capitalise(pageList(recognised))} of ${name} ${verb(recognised)} scanned: the text was recognised by OCR (Tesseract, ${languageNames(choice.languages)}) and may contain mistakes.`,
    );
  }
  if (stillScanned.size > 0) {
    warnings.push(`No text was recognised on ${pageList([...stillScanned])}; it is kept as a picture.`);
  }
  return { doc, path: ocrPath, pages: doc.countPages(), ocrPages, warnings, engines: ["ocrmypdf"] };
}

/** Zero-based pages that have no text but images over most of the page: scans waiting for OCR. */
function scannedPages(doc: Mupdf.PDFDocument, signal: AbortSignal | undefined): number[] {
  const found: number[] = [];
  const count = doc.countPages();
  for (let index = 0; index < count; index += 1) {
    signal?.throwIfAborted();
    const page = doc.loadPage(index);
    const [x0, y0, x1, y1] = page.getBounds();
    const pageArea = Math.max(1, (x1 - x0) * (y1 - y0));
    const text = page.toStructuredText("preserve-images");
    let chars = 0;
    let imageArea = 0;
    try {
      text.walk({
        onChar: (c) => {
          if (c.trim() !== "") chars += 1;
        },
        onImageBlock: (bbox, _matrix, image) => {
          // MuPDF.js wraps the block's image without a reference of its own (see forgetBorrowed).
          forgetBorrowed(image);
          // Summed: a scan may be stored as strips, each under half the page.
          imageArea += (bbox[2] - bbox[0]) * (bbox[3] - bbox[1]);
        },
      });
    } finally {
      text.destroy();
      page.destroy();
    }
    // A scan fills most of its page; a small photo on an otherwise empty page is not sent to OCR.
    if (chars === 0 && imageArea >= 0.5 * pageArea) found.push(index);
  }
  return found;
}

export function pageList(zeroBased: number[]): string {
  const numbers = zeroBased.map((index) => index + 1);
  const shown = numbers.slice(0, 10).join(", ");
  const more = numbers.length > 10 ? ` and ${numbers.length - 10} more` : "";
  return `${numbers.length === 1 ? "page" : "pages"} ${shown}${more}`;
}

const languageNamesInEnglish = new Intl.DisplayNames(["en"], { type: "language" });

/** "English", "English and German": Tesseract codes are ISO 639-2 with a script suffix ("chi_sim"). */
function languageNames(codes: string[]): string {
  const names = codes.map((code) => {
    const base = code.split("_")[0] ?? code;
    try {
      return languageNamesInEnglish.of(base) ?? code;
    } catch {
      return code;
    }
  });
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

function verb(pages: number[]): string {
  return pages.length === 1 ? "is" : "are";
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

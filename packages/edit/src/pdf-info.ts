import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  freshDir,
  openSource,
  type PdfDocument,
  pageTextChars,
  reportProgress,
  runOperation,
  stemOf,
  withPdf,
} from "@octavo/engines";
import type { Mupdf } from "@octavo/mupdf";
import { pdfDateToXmp, type XmpPacket } from "@octavo/xmp";
import { surveyDocument } from "./flatten-survey.js";
import {
  currentValues,
  type InfoEntries,
  modificationDate,
  pdfaPart,
  textFields,
} from "./metadata-fields.js";
import { readInfo, readPacket } from "./metadata-places.js";
import { nameOf, objectAt } from "./pdf-objects.js";

/** The pages of a run of consecutive pages that look the same: size in points as shown, and rotation. */
export interface PageRun {
  from: number;
  to: number;
  /** Width and height of the visible area (CropBox within MediaBox) after the page's rotation. */
  width: number;
  height: number;
  rotation: 0 | 90 | 180 | 270;
}

/** The facts `pdf-info` reports of a PDF, written as its JSON output. */
export interface PdfInfo {
  file: string;
  bytes: number;
  /** "1.7", from the header or the catalog's /Version, whichever is later. */
  pdfVersion: string;
  pages: number;
  pageSizes: PageRun[];
  /** The same values the metadata operation reads and writes: Info and XMP reconciled, dates in ISO 8601. */
  metadata: {
    title?: string;
    author?: string;
    subject?: string;
    keywords?: string;
    creator?: string;
    producer?: string;
    created?: string;
    modified?: string;
  };
  /** The catalog marks the file as tagged (/MarkInfo /Marked true), as PDF readers and poppler take it. */
  tagged: boolean;
  /** The PDF/A part and conformance its XMP claims ("2B"); a claim, not a validation. */
  pdfaClaim: string | null;
  /** The document language (/Lang), e.g. "en-US". */
  language: string | null;
  bookmarks: number;
  /**
   * The catalog has a form (/AcroForm, possibly with no fields left), the widget annotations of its
   * fields, the signed signature fields among them, and whether it carries XFA.
   */
  form: { acroForm: boolean; widgets: number; signatures: number; xfa: boolean };
  links: number;
  attachments: number;
  /** Pages on which MuPDF finds no text: scans, or pages of graphics only; OCR would give them text. */
  pagesWithoutText: number[];
}

/**
 * PDF info: the document's facts as JSON (`<name>.json`), for deciding what to do with a file
 * (OCR when pages have no text, PDF/A when it claims none, repair when it came back damaged) before
 * paying for the heavier operations. A damaged file is read after the usual rebuild, with its warning;
 * an encrypted one is refused as every operation but unlock refuses it.
 */
export async function pdfInfo(
  input: EngineInput,
  _options: object,
  ctx: EngineContext,
): Promise<EngineResult> {
  const name = displayName(input.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const source = await openSource(input, scratchDir, ctx.signal);
    reportProgress(ctx, 0.2);
    const facts = await withPdf(source.path, (doc) => readFacts(doc, ctx.signal));
    const report: PdfInfo = { file: input.name, bytes: (await stat(input.path)).size, ...facts };
    const output = join(await freshDir(ctx.workDir, "pdf-info"), "info.json");
    await writeFile(output, `${JSON.stringify(report, null, 2)}\n`);
    return {
      outputs: [{ path: output, name: `${stemOf(input.name)}.json`, contentType: "application/json" }],
      engine: "MuPDF",
      warnings: source.warnings,
    };
  });
}

function readFacts(doc: PdfDocument, signal: AbortSignal | undefined): Omit<PdfInfo, "file" | "bytes"> {
  const pages = doc.countPages();
  const survey = surveyDocument(doc);
  const root = objectAt(doc.getTrailer(), "Root");
  const packet = readPacket(doc).packet;
  const part = packet?.get(pdfaPart);
  const conformance = packet?.get({ ...pdfaPart, name: "conformance" });
  return {
    pdfVersion: versionOf(doc, root),
    pages,
    pageSizes: pageRuns(doc, pages),
    metadata: metadataOf(readInfo(doc), packet),
    tagged: isTrue(objectAt(root, "MarkInfo", "Marked")),
    pdfaClaim: part === undefined ? null : `${part}${conformance ?? ""}`.toUpperCase(),
    language: doc.getLanguage(),
    bookmarks: countOutline(doc.loadOutline()),
    form: {
      acroForm: survey.acroForm,
      widgets: survey.widgets,
      signatures: survey.signatures,
      xfa: survey.xfa,
    },
    links: survey.links,
    attachments: Object.keys(doc.getEmbeddedFiles()).length,
    pagesWithoutText: pagesWithoutText(doc, pages, signal),
  };
}

/** The metadata operation's reading of Info and XMP, without empty values, dates as XMP (ISO 8601) dates. */
function metadataOf(info: InfoEntries, packet: XmpPacket | undefined): PdfInfo["metadata"] {
  const values = currentValues(info, packet);
  const metadata: PdfInfo["metadata"] = {};
  for (const field of textFields) {
    const value = values.text[field];
    if (value !== undefined && value.trim() !== "") metadata[field] = value;
  }
  if (values.created.xmp !== undefined) metadata.created = values.created.xmp;
  const infoModified = info[modificationDate.info];
  const modified =
    (infoModified === undefined ? undefined : pdfDateToXmp(infoModified)) ??
    packet?.get(modificationDate.xmp);
  if (modified !== undefined) metadata.modified = modified;
  return metadata;
}

function versionOf(doc: PdfDocument, root: Mupdf.PDFObject): string {
  // MuPDF gives the header's version as 17 for "%PDF-1.7"; a catalog /Version may raise it (PDF 1.4 on).
  const header = `${Math.floor(doc.getVersion() / 10)}.${doc.getVersion() % 10}`;
  const catalog = nameOf(root.get("Version"));
  return catalog !== undefined && Number(catalog) > Number(header) ? catalog : header;
}

function pageRuns(doc: PdfDocument, pages: number): PageRun[] {
  const runs: PageRun[] = [];
  for (let index = 0; index < pages; index += 1) {
    const page = pageLook(doc, index);
    const last = runs.at(-1);
    if (last && last.width === page.width && last.height === page.height && last.rotation === page.rotation)
      last.to = index + 1;
    else runs.push({ from: index + 1, to: index + 1, ...page });
  }
  return runs;
}

/**
 * The page as it shows, the way the project reads it everywhere (stamps, PDF to Image): MuPDF's bounds
 * of the loaded page are the visible box (CropBox within MediaBox) with /Rotate applied.
 */
function pageLook(doc: PdfDocument, index: number): Omit<PageRun, "from" | "to"> {
  const page = doc.loadPage(index);
  try {
    const [x0, y0, x1, y1] = page.getBounds();
    const turn = page.getObject().getInheritable("Rotate");
    const rotation = (((Math.round((turn.isNumber() ? turn.asNumber() : 0) / 90) * 90) % 360) + 360) % 360;
    return { width: round(x1 - x0), height: round(y1 - y0), rotation: rotation as PageRun["rotation"] };
  } finally {
    page.destroy();
  }
}

function isTrue(value: Mupdf.PDFObject): boolean {
  return value.isBoolean() && value.asBoolean();
}

function round(points: number): number {
  return Math.round(points * 100) / 100;
}

/** MuPDF.js does not export its outline item type. */
type OutlineItems = ReturnType<PdfDocument["loadOutline"]>;

function countOutline(items: OutlineItems | undefined): number {
  return (items ?? []).reduce((count, item) => count + 1 + countOutline(item.down), 0);
}

function pagesWithoutText(doc: PdfDocument, pages: number, signal: AbortSignal | undefined): number[] {
  const blank: number[] = [];
  for (let index = 0; index < pages; index += 1) {
    signal?.throwIfAborted();
    if (pageTextChars(doc, index) === 0) blank.push(index + 1);
  }
  return blank;
}

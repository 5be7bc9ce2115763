import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { MarkdownDocument, MarkdownElement } from "@octavo/contracts/markdown-document";
import {
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineOutput,
  type EngineResult,
  parsePageRanges,
  runOperation,
  selectPages,
  stemOf,
} from "@octavo/engines";
import type { PageLayout } from "@octavo/layout";
import type { Mupdf } from "@octavo/mupdf";
import { forEachPage } from "../layout.js";
import { outputDir } from "../names.js";
import { type PreparedPdf, preparePdf } from "../prepare.js";
import { chunkElements } from "./chunks.js";
import type { Draft } from "./draft.js";
import { flowElements } from "./flow.js";
import { assignHeadings, readOutline } from "./headings.js";
import { type PageLink, pageDrafts } from "./page-drafts.js";
import { toMarkdown, toText } from "./render.js";
import { markRunningHeads } from "./running-heads.js";
import { Vocabulary } from "./vocabulary.js";

export interface PdfToMarkdownOptions {
  format: "markdown" | "json" | "text";
  /** 1-based pages and ranges, "1-3, 5"; all pages when absent. */
  pages?: string;
  images: "none" | "placeholder" | "files";
  pageBreaks: boolean;
  headersFooters: "drop" | "keep";
  ocr: "auto" | "always" | "never";
  languages: string[];
  chunking?: { maxCharacters: number };
  /**
   * Not an API option: false leaves the PDF's outline out of the heading decisions, so the headings
   * bench can score the font hierarchy against the outline without reading the answer.
   */
  outline?: boolean;
}

const defaults: PdfToMarkdownOptions = {
  format: "markdown",
  images: "placeholder",
  pageBreaks: false,
  headersFooters: "drop",
  ocr: "auto",
  languages: ["eng"],
};

const formats = {
  markdown: { extension: "md", contentType: "text/markdown; charset=utf-8" },
  json: { extension: "json", contentType: "application/json" },
  text: { extension: "txt", contentType: "text/plain; charset=utf-8" },
} as const;

/**
 * PDF to Markdown, JSON or plain text for search and language models. Each page is laid out by
 * @octavo/layout (reading order, paragraphs, columns, tables, figures) and becomes blocks; the document
 * passes then find the running heads, the heading levels (outline and font hierarchy), the nested lists
 * and the paragraphs a column or page break cut. Scanned pages are OCRed first.
 */
export async function pdfToMarkdown(
  input: EngineInput,
  given: Partial<PdfToMarkdownOptions>,
  ctx: EngineContext,
): Promise<EngineResult> {
  const options: PdfToMarkdownOptions = { ...defaults, ...given };
  const name = displayName(input.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const prepared = await preparePdf(input, name, scratchDir, ctx, {
      mode: options.ocr,
      languages: options.languages,
    });
    const dir = await outputDir(ctx.workDir, "pdf-to-markdown");
    let converted: Converted;
    try {
      converted = await convertPages(prepared, options, { name, stem: stemOf(input.name), dir, ctx });
    } finally {
      prepared.doc.destroy();
    }
    const format = formats[options.format];
    const path = join(dir, `document.${format.extension}`);
    await writeFile(path, serialise(converted, prepared, options, name));
    const warnings = [...prepared.warnings];
    if (options.chunking !== undefined && options.format !== "json") {
      warnings.push(`chunking applies to format json only; this ${options.format} output has no chunks.`);
    }
    const documentOutput: EngineOutput = {
      path,
      name: `${stemOf(input.name)}.${format.extension}`,
      contentType: format.contentType,
    };
    return {
      outputs: [documentOutput, ...converted.figures],
      engine: [...prepared.engines, "octavo-layout"].join(" + "),
      warnings,
    };
  });
}

interface Converted {
  elements: MarkdownElement[];
  /** 1-based. */
  pages: number[];
  figures: EngineOutput[];
}

async function convertPages(
  prepared: PreparedPdf,
  options: PdfToMarkdownOptions,
  job: { name: string; stem: string; dir: string; ctx: EngineContext },
): Promise<Converted> {
  const ranges = options.pages === undefined ? undefined : parsePageRanges(options.pages, "pages");
  const pages = selectPages(ranges, prepared.pages, job.name);
  const outline = options.outline === false ? [] : readOutline(prepared.doc);
  const vocabulary = new Vocabulary();
  const drafts: Draft[] = [];
  const figures: EngineOutput[] = [];
  const from = prepared.engines.length > 0 ? 0.4 : 0.05;
  const pageOptions = {
    images: options.images !== "none",
    imageData: options.images === "files",
    tables: true,
  };
  const at = { name: job.name, ctx: job.ctx, from, pages: pages.map((page) => page - 1) };
  await forEachPage(prepared, pageOptions, at, async (layout) => {
    learnWords(layout, vocabulary);
    const onPage = pageDrafts({
      page: layout,
      links: pageLinks(prepared.doc, layout.index),
      vocabulary,
      ocr: prepared.ocrPages.has(layout.index) || recognisedText(layout),
      keepFigures: options.images === "files",
    });
    // Figures go to disk as they are found, so a long illustrated document's pixels are not all held.
    for (const draft of onPage) {
      if (draft.figure === undefined) continue;
      const figureName = `${job.stem}-figure-${figures.length + 1}.png`;
      const path = join(job.dir, `figure-${figures.length + 1}.png`);
      await writeFile(path, draft.figure.data);
      figures.push({ path, name: figureName, contentType: "image/png" });
      draft.element.image = figureName;
      delete draft.figure;
    }
    drafts.push(...onPage);
  });
  markRunningHeads(drafts, pages.length);
  assignHeadings(drafts, outline);
  const elements = flowElements(drafts, options.headersFooters === "keep").map((draft) => draft.element);
  return { elements, pages, figures };
}

/**
 * A page whose text is mostly in Tesseract's invisible GlyphLessFont was OCRed before it came (by
 * OCRmyPDF, or this service's OCR): its fonts and sizes say nothing of headings or code.
 */
function recognisedText(layout: PageLayout): boolean {
  let recognised = 0;
  let all = 0;
  for (const block of layout.blocks) {
    if (block.kind !== "paragraph") continue;
    for (const line of block.lines) {
      for (const span of line.spans) {
        all += span.text.length;
        if (/glyphless/i.test(span.font.name)) recognised += span.text.length;
      }
    }
  }
  return all > 0 && recognised * 2 > all;
}

function learnWords(layout: PageLayout, vocabulary: Vocabulary): void {
  for (const block of layout.blocks) {
    if (block.kind === "paragraph") {
      for (const line of block.lines) vocabulary.add(line.spans.map((span) => span.text).join(""));
    } else if (block.kind === "table") {
      for (const cell of block.cells) vocabulary.add(cell.text);
    }
  }
}

/** The page's links to places outside the document (web and mail addresses). */
function pageLinks(doc: Mupdf.PDFDocument, index: number): PageLink[] {
  const page = doc.loadPage(index);
  try {
    const links: PageLink[] = [];
    for (const link of page.getLinks()) {
      try {
        const uri = link.getURI();
        if (link.isExternal() && /^(https?:|mailto:)/i.test(uri)) {
          const [x0, y0, x1, y1] = link.getBounds();
          links.push({ box: { x0, y0, x1, y1 }, uri });
        }
      } finally {
        link.destroy();
      }
    }
    return links;
  } catch {
    // A broken annotation array costs the page its links, not its text.
    return [];
  } finally {
    page.destroy();
  }
}

function serialise(
  converted: Converted,
  prepared: PreparedPdf,
  options: PdfToMarkdownOptions,
  name: string,
): string {
  const render = {
    images: options.images,
    pageBreaks: options.pageBreaks ? converted.pages : undefined,
  };
  if (options.format === "markdown") return toMarkdown(converted.elements, render);
  if (options.format === "text") return toText(converted.elements, render);
  const document: MarkdownDocument = {
    name,
    pageCount: prepared.pages,
    pages: converted.pages,
    ocrPages: converted.pages.filter((page) => prepared.ocrPages.has(page - 1)),
    elements: converted.elements,
    ...(options.chunking === undefined
      ? {}
      : { chunks: chunkElements(converted.elements, options.chunking.maxCharacters) }),
  };
  return `${JSON.stringify(document, null, 1)}\n`;
}

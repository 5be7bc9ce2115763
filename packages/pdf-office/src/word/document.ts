import type { Block, PageLayout } from "@octavo/layout";
import { Document, type FileChild, Packer, PageOrientation, type Paragraph, type Table } from "docx";
import { columnOf } from "../layout.js";
import { imageParagraph } from "./image.js";
import { pageBreakParagraph, twips, wordParagraph } from "./paragraph.js";
import { wordTable } from "./table.js";

/** Consecutive pages of one size and orientation: one Word section. */
interface Section {
  width: number;
  height: number;
  margins: PageLayout["margins"];
  children: FileChild[];
}

/** Word's page margins stay within these (points): content closer to the edge would not print. */
const marginRange = { min: 14, maxShare: 0.3 };

/**
 * Builds the Word document page by page: `addPage` turns one page's layout into paragraphs, tables and
 * pictures in reading order (the layout is then dropped), `toBuffer` writes the .docx.
 */
export class WordBuilder {
  private readonly sections: Section[] = [];

  /** `ocr`: the page's text came from OCR, so the scan behind it is not repeated as a picture. */
  addPage(page: PageLayout, ocr: boolean): void {
    let section = this.sections[this.sections.length - 1];
    const startsSection =
      section === undefined ||
      Math.abs(section.width - page.width) > 1 ||
      Math.abs(section.height - page.height) > 1;
    if (section === undefined || startsSection) {
      section = { width: page.width, height: page.height, margins: clampMargins(page), children: [] };
      this.sections.push(section);
    } else {
      section.margins = narrowest(section.margins, clampMargins(page));
    }
    const blocks = page.blocks.filter((block) => !(ocr && block.kind === "image" && coversPage(block, page)));
    const breakBefore = !startsSection;
    // A table cannot carry "page break before", and an empty page has nothing to carry it.
    if (breakBefore && (blocks.length === 0 || blocks[0]?.kind === "table")) {
      section.children.push(pageBreakParagraph());
    }
    const textWidth = page.width - section.margins.left - section.margins.right;
    for (const [index, block] of blocks.entries()) {
      const first = index === 0;
      const pageBreakBefore = first && breakBefore && block.kind !== "table";
      section.children.push(wordBlock(block, page, { first, pageBreakBefore, textWidth, ocr }));
    }
  }

  async toBuffer(title: string): Promise<Buffer> {
    const document = new Document({
      creator: "octavo",
      title,
      sections: this.sections.map((section) => ({
        properties: { page: { size: pageSize(section), margin: pageMargins(section.margins) } },
        children: section.children.length > 0 ? section.children : [pageBreakParagraph()],
      })),
    });
    return Packer.toBuffer(document);
  }
}

function wordBlock(
  block: Block,
  page: PageLayout,
  place: { first: boolean; pageBreakBefore: boolean; textWidth: number; ocr: boolean },
): Paragraph | Table {
  const column = columnOf(page, block.box);
  if (block.kind === "paragraph") {
    return wordParagraph(block, {
      left: column.x0,
      first: place.first,
      pageBreakBefore: place.pageBreakBefore,
      ocr: place.ocr,
    });
  }
  if (block.kind === "image") {
    return imageParagraph(block, {
      column,
      textWidth: place.textWidth,
      first: place.first,
      pageBreakBefore: place.pageBreakBefore,
    });
  }
  return wordTable(block, Math.min(column.x0, page.margins.left), place.ocr);
}

function coversPage(block: Block, page: PageLayout): boolean {
  const area = (block.box.x1 - block.box.x0) * (block.box.y1 - block.box.y0);
  return area >= 0.6 * page.width * page.height;
}

function clampMargins(page: PageLayout): PageLayout["margins"] {
  const clamp = (value: number, extent: number) =>
    Math.min(extent * marginRange.maxShare, Math.max(marginRange.min, Number.isFinite(value) ? value : 72));
  return {
    top: clamp(page.margins.top, page.height),
    bottom: clamp(page.margins.bottom, page.height),
    left: clamp(page.margins.left, page.width),
    right: clamp(page.margins.right, page.width),
  };
}

function narrowest(a: PageLayout["margins"], b: PageLayout["margins"]): PageLayout["margins"] {
  return {
    top: Math.min(a.top, b.top),
    bottom: Math.min(a.bottom, b.bottom),
    left: Math.min(a.left, b.left),
    right: Math.min(a.right, b.right),
  };
}

/** docx swaps width and height for landscape, so a landscape page is given as its portrait twin. */
function pageSize(section: Section) {
  const landscape = section.width > section.height;
  return landscape
    ? { width: twips(section.height), height: twips(section.width), orientation: PageOrientation.LANDSCAPE }
    : { width: twips(section.width), height: twips(section.height), orientation: PageOrientation.PORTRAIT };
}

function pageMargins(margins: PageLayout["margins"]) {
  return {
    top: twips(margins.top),
    bottom: twips(margins.bottom),
    left: twips(margins.left),
    right: twips(margins.right),
    header: twips(Math.min(36, margins.top / 2)),
    footer: twips(Math.min(36, margins.bottom / 2)),
  };
}

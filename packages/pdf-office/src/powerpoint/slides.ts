import type { Block, PageLayout, Paragraph } from "@octavo/layout";
import pptxgenjs from "pptxgenjs";
import { largestSize, paragraphPieces } from "../text.js";
import type { Background } from "./background.js";

const pointsPerInch = 72;
/** PowerPoint's slide size limits, in inches (1 to 56). */
const slideInches = { min: 1, max: 56 };

type PresentationClass = typeof pptxgenjs.default;
/**
 * pptxgenjs's types describe its CommonJS build, where the class is the module's `default`; Node loads its
 * ES build, whose default export is the class itself.
 */
const Presentation: PresentationClass =
  (pptxgenjs as unknown as { default?: PresentationClass }).default ??
  (pptxgenjs as unknown as PresentationClass);
type Slide = ReturnType<InstanceType<typeof Presentation>["addSlide"]>;

/** Where a page lands on the slide: pages of another size than the first are scaled to fit, centred. */
interface Placement {
  scale: number;
  dx: number;
  dy: number;
}

/**
 * Builds the deck page by page: one slide per page, the slide as large as the first page, the page's
 * graphics as the slide background and each paragraph as an editable text box at its place.
 */
export class DeckBuilder {
  private readonly deck = new Presentation();
  private slideSize: { width: number; height: number } | undefined;
  /** Zero-based pages of another size than the first: a deck has one slide size, so they were scaled. */
  readonly scaledPages: number[] = [];

  /** `ocr`: the text came from OCR and the scan stays behind it, so the boxes are opaque to hide it. */
  addPage(page: PageLayout, background: Background | undefined, ocr: boolean): void {
    const size = this.slideSize ?? this.defineSize(page);
    const scale = Math.min(size.width / page.width, size.height / page.height);
    if (Math.abs(scale - 1) > 0.01) this.scaledPages.push(page.index);
    const placement = {
      scale,
      dx: (size.width - page.width * scale) / 2,
      dy: (size.height - page.height * scale) / 2,
    };
    const slide = this.deck.addSlide();
    if (background !== undefined) {
      const data = `${background.mime};base64,${Buffer.from(background.data).toString("base64")}`;
      if (placement.dx === 0 && placement.dy === 0) slide.background = { data };
      else slide.addImage({ data, ...inches(placement, 0, 0, page.width, page.height) });
    }
    for (const paragraph of paragraphsOf(page.blocks)) addTextBox(slide, paragraph, placement, ocr);
  }

  async toBuffer(title: string): Promise<Uint8Array> {
    if (this.slideSize === undefined) this.deck.addSlide();
    this.deck.title = title;
    this.deck.author = "octavo";
    const written = await this.deck.write({ outputType: "nodebuffer" });
    return written as Uint8Array;
  }

  private defineSize(page: PageLayout): { width: number; height: number } {
    const clamp = (points: number) =>
      Math.min(slideInches.max, Math.max(slideInches.min, points / pointsPerInch)) * pointsPerInch;
    this.slideSize = { width: clamp(page.width), height: clamp(page.height) };
    this.deck.defineLayout({
      name: "PDF",
      width: this.slideSize.width / pointsPerInch,
      height: this.slideSize.height / pointsPerInch,
    });
    this.deck.layout = "PDF";
    return this.slideSize;
  }
}

/** The page's paragraphs, those inside table cells included (the cell rulings are in the background). */
function paragraphsOf(blocks: Block[]): Paragraph[] {
  return blocks.flatMap((block) => {
    if (block.kind === "paragraph") return [block];
    if (block.kind === "table") return block.cells.flatMap((cell) => cell.paragraphs);
    return [];
  });
}

function addTextBox(slide: Slide, paragraph: Paragraph, placement: Placement, ocr: boolean): void {
  const pieces = paragraphPieces(paragraph, ocr);
  if (pieces.length === 0) return;
  const size = largestSize(paragraph);
  const multiLine = paragraph.lines.length > 1;
  // Fonts on the viewer's machine may run a little wider than the PDF's: the box gets some slack,
  // on the side the text grows towards.
  const slack = Math.max(2, 0.06 * (paragraph.box.x1 - paragraph.box.x0));
  const grow = { left: paragraph.align === "right" ? slack : paragraph.align === "center" ? slack / 2 : 0 };
  const box = inches(
    placement,
    paragraph.box.x0 - grow.left,
    paragraph.box.y0,
    paragraph.box.x1 - paragraph.box.x0 + slack,
    paragraph.box.y1 - paragraph.box.y0 + 0.2 * size,
  );
  const exactPitch = multiLine && paragraph.lineHeight >= 1.05 * size && paragraph.lineHeight < 4 * size;
  // One line stays one line (a substituted font may run wider than the box); turned text keeps its lines
  // rather than wrapping in a box drawn for upright text.
  const wrap = multiLine && (paragraph.lines[0]?.rotation ?? 0) === 0;
  slide.addText(
    pieces.map((piece) => ({
      text: piece.text,
      options: {
        fontFace: piece.font.family,
        fontSize: Math.max(1, Math.round(piece.font.size * placement.scale * 10) / 10),
        bold: piece.font.bold,
        italic: piece.font.italic,
        color: piece.color,
      },
    })),
    {
      ...box,
      margin: 0,
      valign: "top",
      align: paragraph.align,
      fit: "none",
      wrap,
      isTextBox: true,
      ...(exactPitch ? { lineSpacing: Math.round(paragraph.lineHeight * placement.scale * 10) / 10 } : {}),
      ...(ocr ? { fill: { color: "FFFFFF" } } : {}),
    },
  );
}

function inches(placement: Placement, x: number, y: number, width: number, height: number) {
  const toInches = (points: number) => (points * placement.scale) / pointsPerInch;
  return {
    x: toInches(x) + placement.dx / pointsPerInch,
    y: toInches(y) + placement.dy / pointsPerInch,
    w: Math.max(0.05, toInches(width)),
    h: Math.max(0.05, toInches(height)),
  };
}

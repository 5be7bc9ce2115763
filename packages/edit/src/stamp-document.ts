import type { PdfDocument } from "@octavo/engines";
import { currentMupdf, type Mupdf, type MupdfModule } from "@octavo/mupdf";
import { marginFor, placeText, type StampPosition } from "./stamp-layout.js";
import { type StampNames, stampPage } from "./stamp-page.js";
import { embedFonts, hexGlyphs, type ShapedText, StampFonts } from "./stamp-text.js";

export interface StampStyle {
  fontSize: number;
  /** "#RRGGBB" */
  color: string;
  /** Fill opacity; 1 draws without a graphics state. */
  opacity: number;
  /** Degrees, counter-clockwise as the reader sees the page. */
  rotation: number;
  position: StampPosition;
  /** Points from the visible edges the text is next to (less on a tiny page). */
  margin: number;
}

export interface StampPlan {
  /** 0-based page indexes, in page order. */
  pages: number[];
  /** The text of each of those pages. */
  texts: string[];
  style: StampStyle;
  signal: AbortSignal | undefined;
  onProgress: (fraction: number) => void;
}

/**
 * Draws the plan's texts on the pages of `doc`. Returns the font sizes used on the pages where the text
 * had to shrink to fit.
 */
export function stampDocument(doc: PdfDocument, plan: StampPlan): number[] {
  const mupdf = currentMupdf();
  const fonts = new StampFonts(mupdf);
  try {
    return stampPages(mupdf, doc, fonts, fonts.shape(plan.texts), plan);
  } finally {
    fonts.destroy();
  }
}

function stampPages(
  mupdf: MupdfModule,
  doc: PdfDocument,
  fonts: StampFonts,
  shaped: ShapedText[],
  plan: StampPlan,
): number[] {
  const { style } = plan;
  const additions = {
    fonts: embedFonts(mupdf, doc, fonts, shaped),
    extGState: style.opacity < 1 ? addExtGState(doc, style.opacity) : undefined,
    saveStream: doc.addStream("q\n", doc.newDictionary()),
  };
  // One vertical box for all texts, so that page numbers sit on the same baseline on every page.
  const bottom = Math.min(...shaped.map((text) => text.box.bottom));
  const top = Math.max(...shaped.map((text) => text.box.top));
  const shrunk: number[] = [];

  plan.pages.forEach((index, ordinal) => {
    plan.signal?.throwIfAborted();
    const text = shaped[ordinal];
    if (text === undefined) return;
    const { visible, toPdf } = pageGeometry(mupdf, doc, index);
    const placement = placeText({ advance: text.box.advance, bottom, top }, visible, {
      size: style.fontSize,
      rotation: style.rotation,
      position: style.position,
      margin: marginFor(visible, style.margin),
    });
    if (placement.size < style.fontSize) shrunk.push(placement.size);
    const textMatrix = mupdf.Matrix.concat(placement.matrix, toPdf);
    stampPage(doc, doc.findPage(index), additions, (names) =>
      drawText(names, text, textMatrix, placement.size, style),
    );
    plan.onProgress((ordinal + 1) / plan.pages.length);
  });
  return shrunk;
}

/** The page's visible box (CropBox ∩ MediaBox) in display space, and the map from there to PDF space. */
function pageGeometry(
  mupdf: MupdfModule,
  doc: PdfDocument,
  index: number,
): { visible: Mupdf.Rect; toPdf: Mupdf.Matrix } {
  const page = doc.loadPage(index);
  try {
    // MuPDF's page transform turns PDF space into display space: /Rotate applied, the visible box's
    // top-left corner at the origin, y down.
    return { visible: page.getBounds(), toPdf: mupdf.Matrix.invert(page.getTransform()) };
  } finally {
    page.destroy();
  }
}

function addExtGState(doc: PdfDocument, opacity: number): Mupdf.PDFObject {
  const state = doc.newDictionary();
  state.put("Type", doc.newName("ExtGState"));
  state.put("ca", doc.newReal(opacity));
  state.put("CA", doc.newReal(opacity));
  return doc.addObject(state);
}

/** The content stream of the stamp: text drawn with the default text state, in the stamp's colour. */
function drawText(
  names: StampNames,
  text: ShapedText,
  matrix: Mupdf.Matrix,
  size: number,
  style: StampStyle,
): string {
  const lines = ["q"];
  if (names.extGState !== undefined) lines.push(`/${names.extGState} gs`);
  lines.push(`${rgb(style.color).map(pdfNumber).join(" ")} rg`, "BT", "0 Tc 0 Tw 100 Tz 0 Ts 0 Tr");
  lines.push(`${matrix.map(pdfNumber).join(" ")} Tm`);
  for (const run of text.runs) {
    lines.push(`/${names.fonts.get(run.font)} ${pdfNumber(size)} Tf ${hexGlyphs(run.glyphs)} Tj`);
  }
  lines.push("ET", "Q", "");
  return lines.join("\n");
}

function rgb(color: string): number[] {
  const value = Number.parseInt(color.replace(/^#/, ""), 16);
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff].map((channel) => channel / 255);
}

/** A PDF number: no exponent, at most 4 decimals, no "-0". */
function pdfNumber(value: number): string {
  const rounded = Number(value.toFixed(4));
  return rounded === 0 ? "0" : String(rounded);
}

import { embedFonts, hexGlyphs, type ShapedText, StampFonts } from "@octavo/edit/stamp-text";
import { JobFailure } from "@octavo/engines";
import type { Mupdf, MupdfModule } from "@octavo/mupdf";
import { type Box, boxOfQuad, overlaps, union } from "./box.js";

/** A word of the page: its text, and where and how large it is drawn (display space, y down). */
interface PlacedWord {
  text: string;
  /** The first letter's origin on the baseline. */
  origin: [number, number];
  /** The baseline's direction, a unit vector. */
  direction: [number, number];
  size: number;
  /** From the origin to the end of the last letter, along the baseline. */
  length: number;
}

/**
 * Writes the words of `untouched` that touch none of the `boxes` onto `page` as invisible text (render mode 3),
 * each fitted to the place it had: a page drawn as a picture of itself (asPicture) stays searchable and its
 * text selectable, as an OCRed scan is, while nothing under a box comes back. Words drawn with characters no
 * stamp font has are left out.
 */
export function addInvisibleText(
  mupdf: MupdfModule,
  doc: Mupdf.PDFDocument,
  page: Mupdf.PDFPage,
  untouched: Mupdf.PDFPage,
  boxes: Box[],
): void {
  const words = placedWords(untouched).filter((word) => !boxes.some((box) => overlaps(word.box, box)));
  if (words.length === 0) return;
  const fonts = new StampFonts(mupdf);
  try {
    const shaped: { word: PlacedWord; text: ShapedText }[] = [];
    for (const word of words) {
      const text = shapedOrNothing(fonts, word.text);
      if (text !== undefined && text.box.advance > 0) shaped.push({ word, text });
    }
    if (shaped.length === 0) return;
    const embedded = embedFonts(
      mupdf,
      doc,
      fonts,
      shaped.map(({ text }) => text),
    );
    const resources = page.getObject().get("Resources");
    const fontDict = doc.newDictionary();
    for (const [font, object] of embedded) fontDict.put(`T${font}`, object);
    resources.put("Font", fontDict);
    const toPage = mupdf.Matrix.invert(page.getTransform());
    const shows = shaped.map(({ word, text }) => {
      const [ux, uy] = word.direction;
      const stretch = word.length / text.box.advance;
      // Glyph space (y up) to the displayed page: x along the baseline, y to the letters' tops.
      const shown: Mupdf.Matrix = [
        ux * stretch,
        uy * stretch,
        uy * word.size,
        -ux * word.size,
        ...word.origin,
      ];
      const matrix = mupdf.Matrix.concat(shown, toPage).map((value) => value.toFixed(3));
      const runs = text.runs.map((run) => `/T${run.font} 1 Tf ${hexGlyphs(run.glyphs)} Tj`);
      return `${matrix.join(" ")} Tm ${runs.join(" ")}`;
    });
    const contents = page.getObject().get("Contents");
    const drawn = contents.readStream().asString();
    contents.writeStream(`${drawn}BT 3 Tr\n${shows.join("\n")}\nET\n`);
  } finally {
    fonts.destroy();
  }
}

/** The text as glyphs, or undefined when a character of it has no glyph in the stamp fonts. */
function shapedOrNothing(fonts: StampFonts, text: string): ShapedText | undefined {
  try {
    return fonts.shape([text])[0];
  } catch (error) {
    if (error instanceof JobFailure) return undefined;
    throw error;
  }
}

/** The page's words, split at white space, each with its box. */
function placedWords(page: Mupdf.PDFPage): (PlacedWord & { box: Box })[] {
  const stext = page.toStructuredText("preserve-whitespace");
  const words: (PlacedWord & { box: Box })[] = [];
  let direction: [number, number] = [1, 0];
  let current: { chars: string[]; origin: [number, number]; size: number; box: Box; end: number } | undefined;
  const close = (): void => {
    if (current !== undefined) {
      words.push({
        text: current.chars.join(""),
        origin: current.origin,
        direction,
        size: current.size,
        length: current.end,
        box: current.box,
      });
    }
    current = undefined;
  };
  try {
    stext.walk({
      beginLine(_bbox, _wmode, dir) {
        direction = [dir[0], dir[1]];
      },
      onChar(c, origin, font, size, quad) {
        font.destroy();
        if (c.trim() === "") {
          close();
          return;
        }
        const box = boxOfQuad(quad);
        current ??= { chars: [], origin: [origin[0], origin[1]], size, box, end: 0 };
        current.chars.push(c);
        current.box = union(current.box, box);
        // The letter's far end, along the baseline from the word's origin.
        const [ox, oy] = current.origin;
        const ends = [0, 2, 4, 6].map(
          (at) => ((quad[at] ?? ox) - ox) * direction[0] + ((quad[at + 1] ?? oy) - oy) * direction[1],
        );
        current.end = Math.max(current.end, ...ends);
      },
      endLine() {
        close();
      },
    });
  } finally {
    stext.destroy();
  }
  return words;
}

import { JobFailure } from "@octavo/engines";
import type { Mupdf, MupdfModule } from "@octavo/mupdf";
import type { TextBox } from "./stamp-layout.js";

/**
 * MuPDF's built-in fonts, tried in this order for each character: Nimbus Sans (Helvetica's metrics;
 * Latin, Greek, Cyrillic), then Droid Sans Fallback (Chinese, Japanese, Korean, and much else).
 */
const fontNames = ["Helvetica", "zh-Hans"] as const;

/** Glyph bounds are only known per glyph when MuPDF keeps a table for the font; else the ideographic em box. */
const emBox: Ink = { bottom: -0.12, top: 0.88 };

/** How far a glyph's ink reaches below and above the baseline, in em. */
interface Ink {
  bottom: number;
  top: number;
}

/** Glyph ids drawn with one font. */
export interface GlyphRun {
  font: number;
  glyphs: number[];
}

/** A line of text as glyphs, with its box in em units. */
export interface ShapedText {
  runs: GlyphRun[];
  box: TextBox;
}

/** Characters that only change the way their neighbours look: nothing of their own to draw. */
const invisible = /\p{Default_Ignorable_Code_Point}/gu;
/** Spaces and punctuation stay in the font of the text around them, rather than breaking it into runs. */
const neutral = /^[\p{Z}\p{P}]$/u;

/**
 * The fonts a job draws with, loaded once. Text is laid out glyph by glyph (no kerning, ligatures or
 * right-to-left shaping: only scripts drawn left to right letter by letter are covered by these fonts).
 */
export class StampFonts {
  private readonly fonts: Mupdf.Font[] = [];
  private readonly inkCache = new Map<string, Ink | undefined>();

  constructor(private readonly mupdf: MupdfModule) {}

  /** Each text as glyph runs; fails the job, naming them, when characters have no glyph in any font. */
  shape(texts: string[]): ShapedText[] {
    const missing = new Set<string>();
    const shaped = texts.map((text) => this.shapeOne(normalise(text), missing));
    if (missing.size > 0) throw undrawable([...missing]);
    return shaped;
  }

  destroy(): void {
    for (const font of this.fonts) font.destroy();
  }

  private shapeOne(text: string, missing: Set<string>): ShapedText {
    const runs: GlyphRun[] = [];
    let advance = 0;
    let bottom = Number.POSITIVE_INFINITY;
    let top = Number.NEGATIVE_INFINITY;
    for (const char of text) {
      const codePoint = char.codePointAt(0) ?? 0;
      const current = runs.at(-1);
      const stay = current !== undefined && neutral.test(char) && this.glyphOf(current.font, codePoint) !== 0;
      const font = stay ? current.font : this.firstFontWith(codePoint);
      if (font === undefined) {
        missing.add(char);
        continue;
      }
      const glyph = this.glyphOf(font, codePoint);
      if (current?.font === font) current.glyphs.push(glyph);
      else runs.push({ font, glyphs: [glyph] });
      const ink = this.inkOf(font, glyph);
      if (ink !== undefined) {
        bottom = Math.min(bottom, ink.bottom);
        top = Math.max(top, ink.top);
      }
      advance += this.font(font).advanceGlyph(glyph);
    }
    // Only blank characters: a line with no height, on the baseline.
    if (bottom > top) [bottom, top] = [0, 0];
    return { runs, box: { advance, bottom, top } };
  }

  private firstFontWith(codePoint: number): number | undefined {
    const index = fontNames.findIndex((_, font) => this.glyphOf(font, codePoint) !== 0);
    return index === -1 ? undefined : index;
  }

  private glyphOf(font: number, codePoint: number): number {
    return this.font(font).encodeCharacter(codePoint);
  }

  /** The font of index `index` in the fallback order, loaded on first use. */
  font(index: number): Mupdf.Font {
    const name = fontNames[index];
    if (name === undefined) throw new Error(`no font ${index}`);
    this.fonts[index] ??= new this.mupdf.Font(name);
    return this.fonts[index];
  }

  /** The glyph's ink (undefined: a blank glyph). */
  private inkOf(font: number, glyph: number): Ink | undefined {
    const key = `${font}:${glyph}`;
    if (this.inkCache.has(key)) return this.inkCache.get(key);
    const scale = 1000;
    const bounds = (gid: number): number[] => {
      const text = new this.mupdf.Text();
      try {
        text.showGlyph(this.font(font), [scale, 0, 0, scale, 0, 0], gid, 0);
        // No stroke state: the fill's bounds. MuPDF.js takes null here though its typings do not say so.
        return text.getBounds(null as unknown as Mupdf.StrokeState, [1, 0, 0, 1, 0, 0]);
      } finally {
        text.destroy();
      }
    };
    // Height in em without MuPDF's padding of one unit on each side; a blank glyph has none.
    const height = ([, y0 = 0, , y1 = 0]: number[]): number => (y1 - y0 - 2) / scale;
    const [, y0 = 0, , y1 = 0] = bounds(glyph);
    let ink: Ink | undefined;
    if (height(bounds(this.glyphOf(font, 0x20))) > 0.01) {
      // A space with ink: MuPDF gives the font's box for every glyph of this (large) font.
      ink = emBox;
    } else if (height([0, y0, 0, y1]) > 0.01) {
      ink = { bottom: (y0 + 1) / scale, top: (y1 - 1) / scale };
    }
    this.inkCache.set(key, ink);
    return ink;
  }
}

/**
 * Embeds the fonts the texts use in `doc`, each cut down to the glyphs drawn (a whole CJK font is 3.5 MB):
 * the cutting is done in a scratch document that draws the texts, so no font of `doc` itself is touched.
 * Glyph ids stay as they were; each font is a Type0 font with Identity-H encoding and a ToUnicode map, so
 * the text can be selected and extracted. Returns the font objects by font index.
 */
export function embedFonts(
  mupdf: MupdfModule,
  doc: Mupdf.PDFDocument,
  fonts: StampFonts,
  texts: ShapedText[],
): Map<number, Mupdf.PDFObject> {
  const used = [...new Set(texts.flatMap((text) => text.runs.map((run) => run.font)))];
  const scratch = new mupdf.PDFDocument();
  try {
    const fontDict = scratch.newDictionary();
    const scratchFonts = new Map(used.map((font) => [font, scratch.addFont(fonts.font(font))]));
    for (const [font, ref] of scratchFonts) fontDict.put(`F${font}`, ref);
    const resources = scratch.newDictionary();
    resources.put("Font", fontDict);
    // Each run once: page numbers repeat most of their glyphs on every page.
    const lines = new Set(
      texts.flatMap((text) => text.runs.map((run) => `/F${run.font} 12 Tf ${hexGlyphs(run.glyphs)} Tj`)),
    );
    const page = scratch.addPage([0, 0, 612, 792], 0, resources, `BT\n${[...lines].join("\n")}\nET\n`);
    scratch.insertPage(-1, page);
    scratch.subsetFonts();
    const graft = doc.newGraftMap();
    try {
      return new Map(
        [...scratchFonts].map(([font]) => [
          font,
          graft.graftObject(scratch.findPage(0).get("Resources", "Font", `F${font}`)),
        ]),
      );
    } finally {
      graft.destroy();
    }
  } finally {
    scratch.destroy();
  }
}

/** Glyph ids as a hex string for an Identity-H font: two bytes each. */
export function hexGlyphs(glyphs: number[]): string {
  return `<${glyphs.map((glyph) => glyph.toString(16).padStart(4, "0")).join("")}>`;
}

/** NFC (a letter and its accent as one glyph), control characters as spaces, invisible ones dropped. */
function normalise(text: string): string {
  return text
    .normalize("NFC")
    .replace(/\p{Cc}/gu, " ")
    .replace(invisible, "");
}

function undrawable(chars: string[]): JobFailure {
  const shown = chars
    .slice(0, 10)
    .map((char) => `"${char}" (U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")})`)
    .join(", ");
  const more = chars.length > 10 ? ` and ${chars.length - 10} more` : "";
  return new JobFailure(
    "conversion_failed",
    `The text cannot be drawn: no available font has the characters ${shown}${more}. Latin, Greek, Cyrillic, Chinese, Japanese and Korean text can be drawn; remove or replace these characters.`,
  );
}

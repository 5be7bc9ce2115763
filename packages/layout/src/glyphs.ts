import type { Mupdf as mupdf } from "@octavo/mupdf";
import { type FontFacts, fontStyle } from "./fonts.js";
import type { Box, FontStyle } from "./types.js";
import { pageStructuredText } from "./widgets.js";

/** One character from MuPDF's structured text, in page space. */
export interface Glyph {
  c: string;
  box: Box;
  /** Pen position: x of the origin and y of the baseline. */
  x: number;
  baseline: number;
  size: number;
  font: FontStyle;
  color: string;
  /** MuPDF's line this glyph came from: glyphs of one line share it. */
  line: number;
  /** Writing direction in degrees (0 = left to right). */
  rotation: number;
}

export interface RawImage {
  box: Box;
  image: mupdf.Image;
}

function hex(color: number[]): string {
  const [r = 0, g = r, b = r] = color.length === 4 ? cmykToRgb(color) : color;
  const byte = (v: number) =>
    Math.round(Math.min(1, Math.max(0, v)) * 255)
      .toString(16)
      .padStart(2, "0");
  return `#${byte(r)}${byte(g)}${byte(b)}`.toUpperCase();
}

function cmykToRgb([c = 0, m = 0, y = 0, k = 0]: number[]): number[] {
  return [(1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)];
}

function quadBox(q: mupdf.Quad): Box {
  const xs = [q[0], q[2], q[4], q[6]];
  const ys = [q[1], q[3], q[5], q[7]];
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}

/** C0 controls and DEL, but not the tab and line breaks. */
function isControl(c: string): boolean {
  const code = c.codePointAt(0) ?? 32;
  return (code < 32 || code === 127) && c !== "\t" && c !== "\n" && c !== "\r";
}

/** Reads every character (and, when asked, every image) of a page's structured text, form values included. */
export function readGlyphs(page: mupdf.Page, withImages: boolean): { glyphs: Glyph[]; images: RawImage[] } {
  const options = withImages
    ? "preserve-whitespace,preserve-images,preserve-spans"
    : "preserve-whitespace,preserve-spans";
  const stext = pageStructuredText(page, options);
  const glyphs: Glyph[] = [];
  const images: RawImage[] = [];
  // Font facts are cached by the font's pointer: asking MuPDF per character is slow.
  const fonts = new Map<number, FontFacts>();
  let line = 0;
  let rotation = 0;
  try {
    stext.walk({
      onImageBlock(bbox, _transform, image) {
        images.push({ box: { x0: bbox[0], y0: bbox[1], x1: bbox[2], y1: bbox[3] }, image });
      },
      beginLine(_bbox, _wmode, direction) {
        line += 1;
        const degrees = (Math.atan2(direction[1], direction[0]) * 180) / Math.PI;
        rotation = Math.round(degrees);
      },
      onChar(c, origin, font, size, quad, color) {
        // U+FFFD is a glyph without a Unicode meaning (no ToUnicode entry): nothing a reader could use.
        // Nor is a control character, which symbol fonts without a ToUnicode map give (a form's
        // checkbox mark comes out as U+0014) and which XML, so a Word document, cannot hold.
        if (c === "\uFFFD" || isControl(c)) {
          font.destroy();
          return;
        }
        let facts = fonts.get(font.pointer);
        if (!facts) {
          facts = {
            name: font.getName(),
            bold: font.isBold(),
            italic: font.isItalic(),
            mono: font.isMono(),
            serif: font.isSerif(),
          };
          fonts.set(font.pointer, facts);
        }
        font.destroy();
        glyphs.push({
          c,
          box: quadBox(quad),
          x: origin[0],
          baseline: origin[1],
          size,
          font: fontStyle(facts, size),
          color: hex(color),
          line,
          rotation,
        });
      },
    });
  } finally {
    stext.destroy();
  }
  return { glyphs: withLigaturesInOrder(glyphs), images };
}

const rightToLeft = /^[\p{Script=Arabic}\p{Script=Hebrew}]$/u;
const mark = /^\p{M}$/u;

/**
 * MuPDF turns right-to-left text into reading order by reversing its characters, and with them the
 * characters of a ligature: Arabic lam-alef "لا" comes out as alef (with no width, at the glyph's right
 * edge) then lam. Such pairs are put back.
 */
function withLigaturesInOrder(glyphs: Glyph[]): Glyph[] {
  for (let i = 0; i + 1 < glyphs.length; i += 1) {
    const first = glyphs[i] as Glyph;
    const second = glyphs[i + 1] as Glyph;
    const zeroWidth = first.box.x1 - first.box.x0 < 0.01;
    if (!zeroWidth || first.line !== second.line || second.box.x1 - second.box.x0 < 0.01) continue;
    if (!rightToLeft.test(first.c) || !rightToLeft.test(second.c) || mark.test(first.c)) continue;
    if (Math.abs(second.box.x1 - first.box.x0) > 0.2) continue;
    glyphs[i] = second;
    glyphs[i + 1] = first;
    i += 1;
  }
  return glyphs;
}

export function isBlank(g: Glyph): boolean {
  return g.c.trim() === "";
}

import type { PdfDocument } from "@octavo/engines";
import type { Mupdf, MupdfModule } from "@octavo/mupdf";
import { nameOf, objectAt } from "../pdf-objects.js";
import { arrayItems, numberOf } from "./form-fields.js";

/**
 * The font a text field's default appearance (/DA) names, as far as a widget's appearance needs it: which
 * characters it can show (a simple font with the standard Latin encoding), how wide each is, and how tall
 * its lines are. Characters it cannot show are drawn with an embedded fallback (fill-appearance.ts).
 */
export interface FieldFont {
  /** The font dictionary, put in each appearance's resources. */
  object: Mupdf.PDFObject;
  /** The byte that shows `char`, or undefined when the font cannot show it. */
  code(char: string): number | undefined;
  /** Advance of the byte's glyph in thousandths of the font size. */
  width(code: number): number;
  /** Ascent and descent in units of the font size (descent negative). */
  ascent: number;
  descent: number;
}

/** The parsed /DA: "/Helv 0 Tf 0 g" → the font's name in /DR, the size (0: auto) and the colour operator. */
export interface DefaultAppearance {
  fontName: string | undefined;
  size: number;
  color: string;
}

export function parseDefaultAppearance(da: string): DefaultAppearance {
  const tokens = da.trim().split(/\s+/);
  let fontName: string | undefined;
  let size = 0;
  let color = "0 g";
  tokens.forEach((token, index) => {
    if (token === "Tf" && index >= 2) {
      fontName = tokens[index - 2]?.replace(/^\//, "");
      size = Math.max(0, Number(tokens[index - 1]) || 0);
    }
    const operands = { g: 1, rg: 3, k: 4 }[token];
    if (operands !== undefined && index >= operands) {
      const numbers = tokens.slice(index - operands, index);
      if (numbers.every((item) => Number.isFinite(Number(item)))) color = `${numbers.join(" ")} ${token}`;
    }
  });
  return { fontName, size, color };
}

/** WinAnsiEncoding (Windows code page 1252 as PDF defines it): Unicode character → byte. */
const winAnsi: Map<string, number> = (() => {
  const decoder = new TextDecoder("windows-1252");
  const map = new Map<string, number>();
  for (let byte = 0x20; byte <= 0xff; byte += 1) {
    const char = decoder.decode(new Uint8Array([byte]));
    if (!/\p{Cc}/u.test(char) && !map.has(char)) map.set(char, byte);
  }
  return map;
})();

/** The base-14 font whose metrics stand in for a font dictionary that gives no /Widths. */
function standardMetricsName(baseFont: string): string {
  const bold = /bold|black|heavy|bd/i.test(baseFont);
  const italic = /italic|oblique|it$/i.test(baseFont);
  const family = /times|tiro|serif|roman/i.test(baseFont)
    ? "Times"
    : /cour|mono/i.test(baseFont)
      ? "Courier"
      : "Helvetica";
  if (family === "Times")
    return bold && italic
      ? "Times-BoldItalic"
      : bold
        ? "Times-Bold"
        : italic
          ? "Times-Italic"
          : "Times-Roman";
  if (bold && italic) return `${family}-BoldOblique`;
  if (bold) return `${family}-Bold`;
  if (italic) return `${family}-Oblique`;
  return family;
}

/** The font dictionary /DA names: in the widget's own /DR, else the form's. */
export function fontDictionary(
  doc: PdfDocument,
  widget: Mupdf.PDFObject,
  fontName: string | undefined,
): Mupdf.PDFObject | undefined {
  if (fontName === undefined) return undefined;
  const own = objectAt(widget, "DR", "Font", fontName);
  const object = own.isDictionary()
    ? own
    : objectAt(doc.getTrailer(), "Root", "AcroForm", "DR", "Font", fontName);
  return object.isDictionary() ? object : undefined;
}

/**
 * The font dictionary as a FieldFont, or undefined when it cannot be used: not a simple font, or a symbol
 * font. `metrics` caches the base-14 fonts that give widths where the dictionary lists none.
 */
export function fieldFont(
  mupdf: MupdfModule,
  object: Mupdf.PDFObject,
  metrics: Map<string, Mupdf.Font>,
): FieldFont | undefined {
  const subtype = nameOf(object.get("Subtype"));
  if (subtype !== "Type1" && subtype !== "TrueType" && subtype !== "MMType1") return undefined;
  const baseFont = nameOf(object.get("BaseFont")) ?? "Helvetica";
  if (/symbol|dingbat|zadb/i.test(baseFont)) return undefined;
  const overridden = differencesCodes(object.get("Encoding"));
  const widths = object.get("Widths");
  const firstChar = numberOf(object.get("FirstChar")) ?? 0;
  const standardName = standardMetricsName(baseFont);
  const standard = (): Mupdf.Font => {
    let font = metrics.get(standardName);
    if (font === undefined) {
      font = new mupdf.Font(standardName);
      metrics.set(standardName, font);
    }
    return font;
  };
  const decoder = new TextDecoder("windows-1252");
  const descriptor = object.get("FontDescriptor");
  const ascent = numberOf(objectAt(descriptor, "Ascent"));
  const descent = numberOf(objectAt(descriptor, "Descent"));
  return {
    object,
    code: (char) => {
      const code = winAnsi.get(char);
      return code === undefined || overridden.has(code) ? undefined : code;
    },
    width: (code) => {
      const listed = widths.isArray() ? numberOf(widths.get(code - firstChar)) : undefined;
      if (listed !== undefined && listed > 0) return listed;
      const font = standard();
      const unicode = decoder.decode(new Uint8Array([code])).codePointAt(0) ?? 32;
      return font.advanceGlyph(font.encodeCharacter(unicode)) * 1000;
    },
    // Fonts that state no vertical metrics get Helvetica's.
    ascent: ascent !== undefined && ascent > 0 ? ascent / 1000 : 0.718,
    descent: descent !== undefined && descent < 0 ? descent / 1000 : -0.207,
  };
}

/** Codes an /Encoding's /Differences remaps: WinAnsi no longer says what they show. */
function differencesCodes(encoding: Mupdf.PDFObject): Set<number> {
  const codes = new Set<number>();
  const differences = encoding.isDictionary() ? encoding.get("Differences") : undefined;
  if (differences === undefined || !differences.isArray()) return codes;
  let code = 0;
  for (const item of arrayItems(differences)) {
    if (item.isNumber()) code = item.asNumber();
    else if (item.isName()) {
      codes.add(code);
      code += 1;
    }
  }
  return codes;
}

import { JobFailure, type PdfDocument } from "@octavo/engines";
import type { Mupdf, MupdfModule } from "@octavo/mupdf";
import { objectAt } from "../pdf-objects.js";
import { embedFonts, type ShapedText, StampFonts } from "../stamp-text.js";
import {
  type DefaultAppearance,
  type FieldFont,
  fieldFont,
  fontDictionary,
  parseDefaultAppearance,
} from "./field-font.js";
import { arrayItems, type Field, type FieldWidget, fieldFlags, numberOf } from "./form-fields.js";

/*
 * The normal appearance of a filled text field or choice, drawn as Acrobat draws it, so no viewer has to
 * (no /NeedAppearances): the field's own font and size from /DA (size 0: the largest that fits), its
 * alignment (/Q), comb boxes, multiline wrapping, the widget's background and border (/MK), and its rotation.
 * Characters the field's font cannot show are drawn with MuPDF's fonts (Latin, Greek and Cyrillic, then
 * Chinese, Japanese and Korean), embedded as subsets of the glyphs used, as the watermark does.
 */

/** A character as drawn: with the field's font (a byte) or a fallback font (a glyph id). */
interface Glyph {
  font: "field" | number;
  /** Hex digits of the code shown: two for the field's font, four for an Identity-H fallback. */
  hex: string;
  /** Advance in thousandths of the font size. */
  width: number;
  space: boolean;
}

/** The font size chosen for auto-sized (size 0) fields, at most, as Acrobat does. */
const autoSizeMax = 12;
const autoSizeMin = 4;
/** The font resource names of the appearance streams this writes. */
const fieldFontName = "FF";
const fallbackName = (index: number): string => `FB${index}`;

export class FormAppearances {
  private readonly fallback: StampFonts;
  private readonly fallbackTexts: ShapedText[] = [];
  private readonly metrics = new Map<string, Mupdf.Font>();
  private readonly pending: (() => void)[] = [];
  private helvetica: Mupdf.PDFObject | undefined;
  private fallbackObjects = new Map<number, Mupdf.PDFObject>();

  constructor(
    private readonly mupdf: MupdfModule,
    private readonly doc: PdfDocument,
  ) {
    this.fallback = new StampFonts(mupdf);
  }

  /** Plans the appearance of each widget of a text field showing `text`. */
  text(field: Field, text: string): void {
    for (const widget of field.widgets) this.planText(field, widget, text);
  }

  /** Plans a drop-down's appearance (its chosen text) or a list box's (its options, the chosen highlighted). */
  choice(field: Field, chosen: string[]): void {
    const combo = (field.flags & fieldFlags.combo) !== 0;
    for (const widget of field.widgets) {
      if (combo) {
        const label = field.choices.find((choice) => choice.value === chosen[0])?.label ?? chosen[0] ?? "";
        this.planText(field, widget, label);
      } else this.planList(field, widget, chosen);
    }
  }

  /** Embeds the fallback fonts the planned appearances use, then writes them all. */
  write(): void {
    if (this.fallbackTexts.length > 0)
      this.fallbackObjects = embedFonts(this.mupdf, this.doc, this.fallback, this.fallbackTexts);
    for (const write of this.pending) write();
    this.pending.length = 0;
  }

  destroy(): void {
    this.fallback.destroy();
    for (const font of this.metrics.values()) font.destroy();
  }

  private planText(field: Field, widget: FieldWidget, value: string): void {
    const { da, font } = this.fontOf(field, widget);
    const box = widgetBox(widget);
    const flags = field.flags;
    const shown = flags & fieldFlags.password ? "*".repeat([...value].length) : value;
    const comb =
      (flags & fieldFlags.comb) !== 0 && field.maxLength !== undefined && !(flags & fieldFlags.multiline);
    const multiline = (flags & fieldFlags.multiline) !== 0;
    const paragraphs = (multiline ? shown.split(/\r\n|\r|\n/) : [shown.replace(/[\r\n]+/g, " ")]).map(
      (line) => this.glyphs(line, font, field.name),
    );
    const alignment = quaddingOf(field);
    this.pending.push(() => {
      const body = comb
        ? combText(paragraphs[0] ?? [], box, da, font, field.maxLength ?? 1)
        : multiline
          ? multilineText(paragraphs, box, da, font, alignment)
          : singleLineText(paragraphs[0] ?? [], box, da, font, alignment);
      this.writeAppearance(
        widget,
        box,
        `/Tx BMC\nq\n${box.frame}${box.clip}BT\n${da.color}\n${body}ET\nQ\nEMC\n`,
        font,
      );
    });
  }

  private planList(field: Field, widget: FieldWidget, chosen: string[]): void {
    const { da, font } = this.fontOf(field, widget);
    const box = widgetBox(widget);
    const lines = field.choices.map((choice) => ({
      glyphs: this.glyphs(choice.label, font, field.name),
      selected: chosen.includes(choice.value),
    }));
    const topIndex = Math.max(0, numberOf(field.object.getInheritable("TI")) ?? 0);
    this.pending.push(() => {
      const size = da.size > 0 ? da.size : autoSizeMax;
      const lineHeight = size * (font.ascent - font.descent);
      let highlight = "";
      let text = "";
      lines.slice(topIndex).forEach((line, index) => {
        const top = box.height - box.padding - index * lineHeight;
        if (top - lineHeight < 0) return;
        if (line.selected) {
          highlight += `0.6 0.75 0.85 rg\n${fixed(box.padding)} ${fixed(top - lineHeight)} ${fixed(box.width - 2 * box.padding)} ${fixed(lineHeight)} re f\n`;
        }
        text += `1 0 0 1 ${fixed(box.padding * 2)} ${fixed(top - font.ascent * size)} Tm\n${showGlyphs(line.glyphs, size)}`;
      });
      const content = `/Tx BMC\nq\n${box.frame}${box.clip}${highlight}BT\n${da.color}\n${text}ET\nQ\nEMC\n`;
      this.writeAppearance(widget, box, content, font);
    });
  }

  /** The field's /DA and its font; a font that cannot be used gives way to Helvetica, a size of its own kept. */
  private fontOf(field: Field, widget: FieldWidget): { da: DefaultAppearance; font: FieldFont } {
    const daObject = widget.object.get("DA").isString()
      ? widget.object.get("DA")
      : field.object.getInheritable("DA").isString()
        ? field.object.getInheritable("DA")
        : objectAt(this.doc.getTrailer(), "Root", "AcroForm", "DA");
    const da = parseDefaultAppearance(daObject.isString() ? daObject.asString() : "/Helv 0 Tf 0 g");
    const dictionary = fontDictionary(this.doc, widget.object, da.fontName);
    const font =
      (dictionary === undefined ? undefined : fieldFont(this.mupdf, dictionary, this.metrics)) ??
      this.helveticaFont();
    return { da, font };
  }

  /** Standard Helvetica (not embedded, as every viewer has it), added to the document once. */
  private helveticaFont(): FieldFont {
    if (this.helvetica === undefined) {
      const dict = this.doc.newDictionary();
      dict.put("Type", this.doc.newName("Font"));
      dict.put("Subtype", this.doc.newName("Type1"));
      dict.put("BaseFont", this.doc.newName("Helvetica"));
      dict.put("Encoding", this.doc.newName("WinAnsiEncoding"));
      this.helvetica = this.doc.addObject(dict);
    }
    const font = fieldFont(this.mupdf, this.helvetica, this.metrics);
    if (font === undefined) throw new Error("the standard Helvetica font dictionary was refused");
    return font;
  }

  /** The text as glyphs: the field's font where it has the character, a fallback font where not. */
  private glyphs(text: string, font: FieldFont, fieldName: string): Glyph[] {
    const glyphs: Glyph[] = [];
    let foreign = "";
    const flush = (): void => {
      if (foreign === "") return;
      glyphs.push(...this.fallbackGlyphs(foreign, fieldName));
      foreign = "";
    };
    for (const char of text.normalize("NFC")) {
      const code = font.code(char);
      if (code === undefined) {
        foreign += char;
        continue;
      }
      flush();
      glyphs.push({
        font: "field",
        hex: code.toString(16).padStart(2, "0"),
        width: font.width(code),
        space: char === " ",
      });
    }
    flush();
    return glyphs;
  }

  private fallbackGlyphs(text: string, fieldName: string): Glyph[] {
    let shaped: ShapedText;
    try {
      [shaped] = this.fallback.shape([text]) as [ShapedText];
    } catch (error) {
      if (error instanceof JobFailure)
        throw new JobFailure("invalid_options", `values["${fieldName}"]: ${error.message}`);
      throw error;
    }
    this.fallbackTexts.push(shaped);
    return shaped.runs.flatMap((run) =>
      run.glyphs.map((glyph) => ({
        font: run.font,
        hex: glyph.toString(16).padStart(4, "0"),
        width: this.fallback.font(run.font).advanceGlyph(glyph) * 1000,
        space: false,
      })),
    );
  }

  private writeAppearance(widget: FieldWidget, box: WidgetBox, content: string, font: FieldFont): void {
    const doc = this.doc;
    const fonts = doc.newDictionary();
    fonts.put(fieldFontName, font.object);
    for (const [index, object] of this.fallbackObjects) fonts.put(fallbackName(index), object);
    const resources = doc.newDictionary();
    resources.put("Font", fonts);
    const dict = doc.newDictionary();
    dict.put("Type", doc.newName("XObject"));
    dict.put("Subtype", doc.newName("Form"));
    dict.put("BBox", [0, 0, box.width, box.height]);
    if (box.rotation !== 0) dict.put("Matrix", rotationMatrix(box.rotation));
    dict.put("Resources", resources);
    const stream = doc.addStream(content, dict);
    const appearance = doc.newDictionary();
    appearance.put("N", stream);
    widget.object.put("AP", appearance);
  }
}

/** The widget's drawing box in the appearance's own space (rotated by /MK /R), its padding, frame and clip. */
interface WidgetBox {
  width: number;
  height: number;
  rotation: 0 | 90 | 180 | 270;
  padding: number;
  /** Background and border operators from /MK, or "". */
  frame: string;
  /** The clip to the inside of the border. */
  clip: string;
}

function widgetBox(widget: FieldWidget): WidgetBox {
  const [x0, y0, x1, y1] = widget.rect;
  const raw = numberOf(objectAt(widget.object, "MK", "R")) ?? 0;
  const rotation = ((((Math.round(raw / 90) * 90) % 360) + 360) % 360) as WidgetBox["rotation"];
  const sideways = rotation === 90 || rotation === 270;
  const width = sideways ? y1 - y0 : x1 - x0;
  const height = sideways ? x1 - x0 : y1 - y0;
  const borderColor = colourOperator(objectAt(widget.object, "MK", "BC"), "RG");
  const background = colourOperator(objectAt(widget.object, "MK", "BG"), "rg");
  const borderWidth = borderColor === undefined ? 0 : borderWidthOf(widget.object);
  let frame = "";
  if (background !== undefined) frame += `${background}\n0 0 ${fixed(width)} ${fixed(height)} re f\n`;
  if (borderColor !== undefined && borderWidth > 0) {
    const half = borderWidth / 2;
    frame += `${borderColor}\n${fixed(borderWidth)} w\n${fixed(half)} ${fixed(half)} ${fixed(width - borderWidth)} ${fixed(height - borderWidth)} re S\n`;
  }
  const padding = Math.max(1, borderWidth) * 2;
  const inner = Math.max(0, borderWidth);
  const clip = `${fixed(inner)} ${fixed(inner)} ${fixed(Math.max(0, width - 2 * inner))} ${fixed(Math.max(0, height - 2 * inner))} re W n\n`;
  return { width, height, rotation, padding, frame, clip };
}

function borderWidthOf(widget: Mupdf.PDFObject): number {
  const fromStyle = numberOf(objectAt(widget, "BS", "W"));
  if (fromStyle !== undefined) return Math.max(0, fromStyle);
  const border = widget.get("Border");
  const fromBorder = border.isArray() && border.length >= 3 ? numberOf(border.get(2)) : undefined;
  return fromBorder ?? 1;
}

function colourOperator(colour: Mupdf.PDFObject, stroking: "RG" | "rg"): string | undefined {
  if (!colour.isArray()) return undefined;
  const values = arrayItems(colour).map((item) => numberOf(item) ?? 0);
  const gray = stroking === "RG" ? "G" : "g";
  const cmyk = stroking === "RG" ? "K" : "k";
  if (values.length === 1) return `${fixed(values[0] ?? 0)} ${gray}`;
  if (values.length === 3) return `${values.map(fixed).join(" ")} ${stroking}`;
  if (values.length === 4) return `${values.map(fixed).join(" ")} ${cmyk}`;
  return undefined;
}

function quaddingOf(field: Field): 0 | 1 | 2 {
  const own = numberOf(field.object.getInheritable("Q"));
  return own === 1 || own === 2 ? own : 0;
}

function advance(glyphs: Glyph[], size: number): number {
  return glyphs.reduce((sum, glyph) => sum + glyph.width, 0) * (size / 1000);
}

/** The glyphs as show operators, switching font where the run changes. */
function showGlyphs(glyphs: Glyph[], size: number): string {
  let out = "";
  let current: Glyph["font"] | undefined;
  let hex = "";
  const flush = (): void => {
    if (hex !== "") out += `<${hex}> Tj\n`;
    hex = "";
  };
  for (const glyph of glyphs) {
    if (glyph.font !== current) {
      flush();
      current = glyph.font;
      out += `/${glyph.font === "field" ? fieldFontName : fallbackName(glyph.font)} ${fixed(size)} Tf\n`;
    }
    hex += glyph.hex;
  }
  flush();
  return out;
}

function singleLineText(
  glyphs: Glyph[],
  box: WidgetBox,
  da: DefaultAppearance,
  font: FieldFont,
  alignment: 0 | 1 | 2,
): string {
  const available = box.width - 2 * box.padding;
  const lineHeight = font.ascent - font.descent;
  let size = da.size;
  if (size === 0) {
    size = Math.min(autoSizeMax, (box.height - 2) / lineHeight);
    const width = advance(glyphs, size);
    if (width > available && width > 0) size = Math.max(autoSizeMin, (size * available) / width);
  }
  const x = lineStart(box, advance(glyphs, size), alignment);
  const y = (box.height - lineHeight * size) / 2 - font.descent * size;
  return `1 0 0 1 ${fixed(x)} ${fixed(y)} Tm\n${showGlyphs(glyphs, size)}`;
}

/** Where a line of `width` starts for the field's alignment (/Q: 0 left, 1 centred, 2 right). */
function lineStart(box: WidgetBox, width: number, alignment: 0 | 1 | 2): number {
  if (alignment === 1) return (box.width - width) / 2;
  if (alignment === 2) return box.width - box.padding - width;
  return box.padding;
}

function combText(
  glyphs: Glyph[],
  box: WidgetBox,
  da: DefaultAppearance,
  font: FieldFont,
  cells: number,
): string {
  const cell = box.width / cells;
  const lineHeight = font.ascent - font.descent;
  const size = da.size > 0 ? da.size : Math.min(autoSizeMax, (box.height - 2) / lineHeight, cell / 0.6);
  const y = (box.height - lineHeight * size) / 2 - font.descent * size;
  return glyphs
    .slice(0, cells)
    .map((glyph, index) => {
      const x = index * cell + (cell - (glyph.width * size) / 1000) / 2;
      return `1 0 0 1 ${fixed(x)} ${fixed(y)} Tm\n${showGlyphs([glyph], size)}`;
    })
    .join("");
}

function multilineText(
  paragraphs: Glyph[][],
  box: WidgetBox,
  da: DefaultAppearance,
  font: FieldFont,
  alignment: 0 | 1 | 2,
): string {
  const available = box.width - 2 * box.padding;
  const leading = Math.max(1.15, font.ascent - font.descent);
  const wrapped = (size: number): Glyph[][] =>
    paragraphs.flatMap((paragraph) => wrap(paragraph, available, size));
  const fits = (lines: Glyph[][], size: number): boolean =>
    lines.length * leading * size <= box.height - 2 * box.padding;
  let size = da.size > 0 ? da.size : autoSizeMax;
  let lines = wrapped(size);
  // Auto size: the largest size, in half points down from 12, whose lines fit the box.
  while (da.size === 0 && size > autoSizeMin && !fits(lines, size)) {
    size -= 0.5;
    lines = wrapped(size);
  }
  const top = box.height - box.padding - font.ascent * size;
  return lines
    .map((line, index) => {
      const x = lineStart(box, advance(line, size), alignment);
      return `1 0 0 1 ${fixed(x)} ${fixed(top - index * leading * size)} Tm\n${showGlyphs(line, size)}`;
    })
    .join("");
}

/** Breaks a paragraph at spaces to fit `available`; a word wider than a line is broken between characters. */
function wrap(glyphs: Glyph[], available: number, size: number): Glyph[][] {
  if (glyphs.length === 0) return [[]];
  const lines: Glyph[][] = [];
  let line: Glyph[] = [];
  let lineWidth = 0;
  let index = 0;
  while (index < glyphs.length) {
    // The next word and the spaces after it.
    let end = index;
    while (end < glyphs.length && !glyphs[end]?.space) end += 1;
    while (end < glyphs.length && glyphs[end]?.space) end += 1;
    const word = glyphs.slice(index, end);
    const ink = word.filter((glyph) => !glyph.space);
    if (lineWidth + advance(ink, size) <= available || line.length === 0) {
      if (line.length === 0 && advance(ink, size) > available) {
        // Too wide for any line: as many characters as fit, the rest on the next lines.
        for (const glyph of word) {
          const width = advance([glyph], size);
          if (lineWidth + width > available && line.length > 0 && !glyph.space) {
            lines.push(line);
            line = [];
            lineWidth = 0;
          }
          line.push(glyph);
          lineWidth += width;
        }
      } else {
        line.push(...word);
        lineWidth += advance(word, size);
      }
    } else {
      lines.push(line);
      line = [...word];
      lineWidth = advance(word, size);
    }
    index = end;
  }
  lines.push(line);
  return lines.map((items) => {
    let end = items.length;
    while (end > 0 && items[end - 1]?.space) end -= 1;
    return items.slice(0, end);
  });
}

function rotationMatrix(rotation: 90 | 180 | 270): number[] {
  if (rotation === 90) return [0, 1, -1, 0, 0, 0];
  if (rotation === 180) return [-1, 0, 0, -1, 0, 0];
  return [0, -1, 1, 0, 0, 0];
}

function fixed(value: number): string {
  return Number(value.toFixed(3)).toString();
}

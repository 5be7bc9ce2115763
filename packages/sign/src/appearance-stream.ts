import { embedFonts, hexGlyphs, type ShapedText, StampFonts } from "@octavo/edit/stamp-text";
import { JobFailure, type PdfDocument } from "@octavo/engines";
import type { Mupdf, MupdfModule } from "@octavo/mupdf";
import type { WidgetGeometry } from "./appearance.js";

/*
 * A visible signature's drawing. A module of its own because the stamp fonts it shapes with take about a
 * tenth of a second to load: an invisible signature, and verification, never load them.
 */

const padding = 4;
const maxFontSize = 10;
const lineSpacing = 1.25;

/**
 * The signature's normal appearance: the lines of text (the signer, the date, the reason), set as large as
 * fits up to 10 pt, with the signer's image, when there is one, in the left part of the box. The fonts
 * are embedded subsets with ToUnicode maps, so the text can be selected.
 */
export function appearanceStream(
  mupdf: MupdfModule,
  doc: PdfDocument,
  geometry: WidgetGeometry,
  lines: string[],
  image: Uint8Array | undefined,
): Mupdf.PDFObject {
  const fonts = new StampFonts(mupdf);
  try {
    const shaped = fonts.shape(lines);
    const fontObjects = embedFonts(mupdf, doc, fonts, shaped);
    const resources = doc.newDictionary();
    const fontDict = doc.newDictionary();
    for (const [index, font] of fontObjects) fontDict.put(`F${index}`, font);
    resources.put("Font", fontDict);
    const parts: string[] = [];
    let textLeft = padding;
    if (image !== undefined) {
      const drawn = drawImage(mupdf, doc, image, geometry);
      const xobjects = doc.newDictionary();
      xobjects.put("Im0", drawn.object);
      resources.put("XObject", xobjects);
      parts.push(drawn.content);
      textLeft = drawn.width + 2 * padding;
    }
    parts.push(textContent(shaped, textLeft, geometry));
    const dict = doc.newDictionary();
    dict.put("Type", doc.newName("XObject"));
    dict.put("Subtype", doc.newName("Form"));
    const bbox = doc.newArray();
    for (const value of [0, 0, geometry.width, geometry.height]) bbox.push(doc.newReal(value));
    dict.put("BBox", bbox);
    const matrix = doc.newArray();
    for (const value of geometry.matrix) matrix.push(doc.newReal(value));
    dict.put("Matrix", matrix);
    dict.put("Resources", resources);
    return doc.addStream(parts.join("\n"), dict);
  } finally {
    fonts.destroy();
  }
}

function textContent(shaped: ShapedText[], left: number, geometry: WidgetGeometry): string {
  const width = geometry.width - left - padding;
  const widest = Math.max(...shaped.map((line) => line.box.advance), 0.001);
  const size = Math.min(
    maxFontSize,
    width / widest,
    (geometry.height - 2 * padding) / (shaped.length * lineSpacing),
  );
  if (size < 3) {
    throw new JobFailure(
      "invalid_input",
      "The signature's text does not fit in options.appearance.rect; give a larger rectangle or a shorter reason.",
    );
  }
  const top = geometry.height - padding;
  const out = ["BT", "0 g"];
  shaped.forEach((line, index) => {
    const baseline = top - size * (index * lineSpacing + 1);
    out.push(`1 0 0 1 ${left.toFixed(2)} ${baseline.toFixed(2)} Tm`);
    // Each run goes on where the one before it ended: Tj advances by the embedded font's widths.
    for (const run of line.runs) out.push(`/F${run.font} ${size.toFixed(2)} Tf ${hexGlyphs(run.glyphs)} Tj`);
  });
  out.push("ET");
  return out.join("\n");
}

function drawImage(
  mupdf: MupdfModule,
  doc: PdfDocument,
  bytes: Uint8Array,
  geometry: WidgetGeometry,
): { object: Mupdf.PDFObject; content: string; width: number } {
  let image: Mupdf.Image;
  try {
    image = new mupdf.Image(bytes);
  } catch (error) {
    throw new JobFailure(
      "invalid_input",
      "The signature image could not be read; send a PNG or JPEG image.",
      {
        detail: error instanceof Error ? error.message : String(error),
      },
    );
  }
  try {
    const room = { width: geometry.width * 0.4 - padding, height: geometry.height - 2 * padding };
    const scale = Math.min(room.width / image.getWidth(), room.height / image.getHeight());
    const width = image.getWidth() * scale;
    const height = image.getHeight() * scale;
    const y = (geometry.height - height) / 2;
    const content = `q ${width.toFixed(2)} 0 0 ${height.toFixed(2)} ${padding} ${y.toFixed(2)} cm /Im0 Do Q`;
    return { object: doc.addImage(image), content, width };
  } finally {
    image.destroy();
  }
}

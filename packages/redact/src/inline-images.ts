import type { Mupdf, MupdfModule } from "@octavo/mupdf";
import { asLatin1, fromLatin1, type Operator, operators, pageStreams } from "./content-stream.js";

/** The abbreviations an inline image may use (ISO 32000-1, tables 93 and 94), as the names they stand for. */
const keys: Record<string, string> = {
  BPC: "BitsPerComponent",
  CS: "ColorSpace",
  D: "Decode",
  DP: "DecodeParms",
  F: "Filter",
  H: "Height",
  IM: "ImageMask",
  I: "Interpolate",
  W: "Width",
};
const valueNames: Record<string, string> = {
  G: "DeviceGray",
  RGB: "DeviceRGB",
  CMYK: "DeviceCMYK",
  I: "Indexed",
  AHx: "ASCIIHexDecode",
  A85: "ASCII85Decode",
  LZW: "LZWDecode",
  Fl: "FlateDecode",
  RL: "RunLengthDecode",
  CCF: "CCITTFaxDecode",
  DCT: "DCTDecode",
};
const deviceSpaces = new Set(["DeviceGray", "DeviceRGB", "DeviceCMYK", "Indexed", "Pattern"]);

/**
 * Turns the page's inline images (BI … ID data EI) into image XObjects drawn in their place, data and filters
 * as they were. MuPDF's redaction clears an inline image's pixels under a box to white and leaves it inline,
 * out of reach of the fill (image-fill.ts paints XObjects); as an XObject it is painted like any other image.
 * Stencil masks stay inline: they have no colour of their own to paint.
 */
export function inlineImagesAsXObjects(
  mupdf: MupdfModule,
  doc: Mupdf.PDFDocument,
  page: Mupdf.PDFPage,
): void {
  for (const { stream, resources } of pageStreams(page)) {
    const source = asLatin1(stream.readStream().asUint8Array());
    if (!/\bBI\b/.test(source) || !resources.isDictionary()) continue;
    const parts: string[] = [];
    let copied = 0;
    for (const operator of operators(source)) {
      if (operator.name !== "BI" || operator.image === undefined) continue;
      const image = imageObject(mupdf, doc, source, operator, resources);
      if (image === undefined) continue;
      const name = freeName(resources);
      xobjectsOf(doc, resources).put(name, image);
      parts.push(source.slice(copied, operator.start), ` /${name} Do `);
      copied = operator.end;
    }
    if (parts.length === 0) continue;
    parts.push(source.slice(copied));
    stream.writeStream(fromLatin1(parts.join("")));
  }
}

/**
 * The inline image as an image XObject of `doc`, or undefined for a stencil mask or entries that cannot be
 * read. The entries are written out as a dictionary in a scratch file, which MuPDF's own parser reads, and
 * the object is grafted from there.
 */
function imageObject(
  mupdf: MupdfModule,
  doc: Mupdf.PDFDocument,
  source: string,
  operator: Operator,
  resources: Mupdf.PDFObject,
): Mupdf.PDFObject | undefined {
  const { entries, data } = operator.image as NonNullable<Operator["image"]>;
  // A name that ends the entries makes the tokenizer hand back every token as an operand.
  const text = `${source.slice(entries.start, entries.end)} end`;
  const [end] = [...operators(text)];
  if (end === undefined || end.operands.length % 2 !== 0) return undefined;
  const pairs: string[] = [];
  let colourSpace: string | undefined;
  for (let index = 0; index < end.operands.length; index += 2) {
    const [key, value] = [end.operands[index], end.operands[index + 1]].map((span) =>
      text.slice(span?.start ?? 0, span?.end ?? 0),
    ) as [string, string];
    const name = keys[key.slice(1)] ?? key.slice(1);
    if (name === "ImageMask" && value === "true") return undefined;
    const expanded =
      name === "ColorSpace" || name === "Filter"
        ? value.replace(/\/(\w+)(?=[\s/[\]<>()]|$)/g, (all, short: string) =>
            valueNames[short] === undefined ? all : `/${valueNames[short]}`,
          )
        : value;
    if (name === "ColorSpace" && /^\/\w/.test(expanded)) colourSpace = expanded.slice(1);
    pairs.push(`/${name} ${expanded}`);
  }
  const bytes = source.slice(data.start, data.end);
  const object = `<< /Type /XObject /Subtype /Image ${pairs.join(" ")} /Length ${bytes.length} >>\nstream\n`;
  const head = "%PDF-1.7\n";
  const body = `1 0 obj\n${object}${bytes}\nendstream\nendobj\n`;
  const xref = `xref\n0 2\n0000000000 65535 f \n${String(head.length).padStart(10, "0")} 00000 n \n`;
  const file = `${head}${body}${xref}trailer\n<< /Size 2 >>\nstartxref\n${head.length + body.length}\n%%EOF\n`;
  let scratch: Mupdf.PDFDocument;
  try {
    scratch = new mupdf.PDFDocument(fromLatin1(file));
  } catch {
    return undefined;
  }
  try {
    const image = doc.graftObject(scratch.newIndirect(1));
    // A colour space named in the page's resources is put in itself: the XObject's names are its own.
    if (colourSpace !== undefined && !deviceSpaces.has(colourSpace)) {
      const named = resources.get("ColorSpace");
      const space = named.isDictionary() ? named.get(colourSpace) : undefined;
      if (space === undefined || space.isNull()) return undefined;
      image.put("ColorSpace", space);
    }
    return image;
  } finally {
    scratch.destroy();
  }
}

function xobjectsOf(doc: Mupdf.PDFDocument, resources: Mupdf.PDFObject): Mupdf.PDFObject {
  const existing = resources.get("XObject");
  if (existing.isDictionary()) return existing;
  const made = doc.newDictionary();
  resources.put("XObject", made);
  return made;
}

function freeName(resources: Mupdf.PDFObject): string {
  const xobjects = resources.get("XObject");
  for (let index = 0; ; index += 1) {
    const name = `OctavoInline${index}`;
    if (!xobjects.isDictionary() || xobjects.get(name).isNull()) return name;
  }
}

import type { Mupdf } from "@octavo/mupdf";

type PdfObject = Mupdf.PDFObject;

/** Resource names of the stamp on one page, chosen so that none replaces a name the page already uses. */
export interface StampNames {
  fonts: Map<number, string>;
  extGState: string | undefined;
}

/**
 * Draws over a page: its existing content is wrapped in q … Q (so a graphics state it leaves behind cannot
 * move or colour the stamp) and `content` is appended as a new stream. The page gets its own copy of its
 * resources (which may be inherited from the page tree or shared with other pages) before the stamp's
 * fonts and graphics state are added under fresh names; the originals are left as they were.
 */
export function stampPage(
  doc: Mupdf.PDFDocument,
  page: PdfObject,
  additions: { fonts: Map<number, PdfObject>; extGState: PdfObject | undefined; saveStream: PdfObject },
  content: (names: StampNames) => string,
): void {
  const resources = copyOf(doc, page.getInheritable("Resources"));
  page.put("Resources", resources);

  const fontDict = copyOf(doc, resources.get("Font"));
  resources.put("Font", fontDict);
  const fonts = new Map<number, string>();
  for (const [index, font] of additions.fonts) {
    const name = freeName(fontDict, "OctavoF");
    fontDict.put(name, font);
    fonts.set(index, name);
  }

  let extGState: string | undefined;
  if (additions.extGState !== undefined) {
    const states = copyOf(doc, resources.get("ExtGState"));
    resources.put("ExtGState", states);
    extGState = freeName(states, "OctavoGS");
    states.put(extGState, additions.extGState);
  }

  const stamp = doc.addStream(`\nQ\n${content({ fonts, extGState })}`, doc.newDictionary());
  const contents = doc.newArray();
  contents.push(additions.saveStream);
  for (const stream of contentStreams(page)) contents.push(stream);
  contents.push(stamp);
  page.put("Contents", contents);
}

/** The page's content streams (references), in order; none when it has no content. */
function contentStreams(page: PdfObject): PdfObject[] {
  const contents = page.get("Contents");
  if (contents.isStream()) return [contents];
  if (!contents.isArray()) return [];
  const streams: PdfObject[] = [];
  for (let index = 0; index < contents.length; index += 1) {
    const item = contents.get(index);
    if (item.isStream()) streams.push(item);
  }
  return streams;
}

/** A new direct dictionary with the entries of `dict` (none when it is not a dictionary). */
function copyOf(doc: Mupdf.PDFDocument, dict: PdfObject): PdfObject {
  const copy = doc.newDictionary();
  if (dict.isDictionary()) {
    dict.forEach((value, key) => {
      copy.put(key, value);
    });
  }
  return copy;
}

function freeName(dict: PdfObject, stem: string): string {
  let index = 0;
  while (!dict.get(`${stem}${index}`).isNull()) index += 1;
  return `${stem}${index}`;
}

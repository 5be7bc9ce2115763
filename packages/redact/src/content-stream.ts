import type { Mupdf } from "@octavo/mupdf";

/**
 * Reading content streams for the rewrites made before MuPDF redacts a page (quote-operators.ts,
 * inline-images.ts): each edits a few operators in place and keeps every other byte as it was.
 */

export interface Span {
  start: number;
  end: number;
}

export interface Operator extends Span {
  /** The operator's own token: from `start` to `end`, or for BI to the end of its EI. */
  name: string;
  operands: Span[];
  /** For BI: the key-value pairs before ID, and the image data between ID's white space and EI's. */
  image?: { entries: Span; data: Span };
}

/** A content stream of a page, with the resources its names refer to. */
export interface PageStream {
  stream: Mupdf.PDFObject;
  resources: Mupdf.PDFObject;
}

const whitespace = new Set(["\0", "\t", "\n", "\f", "\r", " "]);
const delimiters = new Set(["(", ")", "<", ">", "[", "]", "{", "}", "/", "%"]);
const keywordOperands = new Set(["true", "false", "null"]);
const number = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/** A content stream's bytes as a string of one character per byte, and back. */
export const asLatin1 = (content: Uint8Array): string =>
  Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString("latin1");
export const fromLatin1 = (text: string): Uint8Array => Buffer.from(text, "latin1");

/**
 * The operators of a content stream, each with the spans of its operands (an array or a dictionary is one),
 * per ISO 32000-1, 7.2 and 8.9.7: comments skipped, strings read with their escapes and nested parentheses,
 * and an inline image (BI … ID data EI) read whole as one operator.
 */
export function* operators(source: string): Generator<Operator> {
  let operands: Span[] = [];
  let depth = 0;
  let composite = 0;
  let at = 0;
  const length = source.length;
  const wordEnd = (from: number): number => {
    let end = from;
    while (end < length && !whitespace.has(source[end] as string) && !delimiters.has(source[end] as string)) {
      end += 1;
    }
    return end;
  };
  while (at < length) {
    const char = source[at] as string;
    if (whitespace.has(char)) {
      at += 1;
      continue;
    }
    const start = at;
    if (char === "%") {
      while (at < length && source[at] !== "\n" && source[at] !== "\r") at += 1;
      continue;
    }
    if (char === "(") {
      at = afterLiteralString(source, at);
    } else if (char === "<" && source[at + 1] !== "<") {
      const close = source.indexOf(">", at);
      at = close < 0 ? length : close + 1;
    } else if ((char === "<" && source[at + 1] === "<") || char === "[" || char === "{") {
      if (depth === 0) composite = start;
      depth += 1;
      at += char === "<" ? 2 : 1;
      continue;
    } else if ((char === ">" && source[at + 1] === ">") || char === "]" || char === "}") {
      at += char === ">" ? 2 : 1;
      depth = Math.max(0, depth - 1);
      if (depth === 0) operands.push({ start: composite, end: at });
      continue;
    } else if (char === "/") {
      at = wordEnd(at + 1);
    } else if (char === ")" || char === ">") {
      // Unbalanced: passed over, as a reader would.
      at += 1;
      continue;
    } else {
      at = wordEnd(at);
      const word = source.slice(start, at);
      if (depth === 0 && !number.test(word) && !keywordOperands.has(word)) {
        if (word === "BI") {
          const image = inlineImage(source, at);
          yield { name: word, start, end: image.end, operands: [], image };
          at = image.end;
        } else {
          yield { name: word, start, end: at, operands };
        }
        operands = [];
        continue;
      }
    }
    if (depth === 0) operands.push({ start, end: at });
  }
}

/** Past the ) that closes the string opened at `open`. */
function afterLiteralString(source: string, open: number): number {
  let nesting = 0;
  for (let at = open; at < source.length; at += 1) {
    const char = source[at];
    if (char === "\\") at += 1;
    else if (char === "(") nesting += 1;
    else if (char === ")") {
      nesting -= 1;
      if (nesting === 0) return at + 1;
    }
  }
  return source.length;
}

/**
 * The parts of the inline image whose BI ends at `from`: its entries up to ID, and its data, which starts
 * after ID and one white-space character and is binary. Unfiltered data has a length its entries give;
 * filtered data ends at the first EI with white space (or the end) on both sides, as readers take it.
 */
function inlineImage(source: string, from: number): { entries: Span; data: Span; end: number } {
  const id = /(^|[\0\t\n\f\r ])ID[\0\t\n\f\r ]/g;
  id.lastIndex = from;
  const found = id.exec(source);
  if (found === null) {
    const end = source.length;
    return { entries: { start: from, end }, data: { start: end, end }, end };
  }
  const entries = { start: from, end: found.index + (found[1] ?? "").length };
  const dataStart = found.index + found[0].length;
  const exact = unfilteredLength(source.slice(entries.start, entries.end));
  const eiAt = /[\0\t\n\f\r ]EI(?=[\0\t\n\f\r ]|$)/g;
  eiAt.lastIndex = exact === undefined ? dataStart : Math.min(source.length, dataStart + exact);
  const ei = eiAt.exec(source);
  if (ei === null) return { entries, data: { start: dataStart, end: source.length }, end: source.length };
  const dataEnd = exact === undefined ? ei.index : Math.min(ei.index, dataStart + exact);
  return { entries, data: { start: dataStart, end: dataEnd }, end: ei.index + ei[0].length };
}

/** Bytes of an inline image with no filter: rows of width × components × bits, each rounded up to a byte. */
function unfilteredLength(entries: string): number | undefined {
  if (/\/(F|Filter)\b/.test(entries)) return undefined;
  const value = (keys: string): string | undefined =>
    new RegExp(`/(?:${keys})\\s*(/?[\\w.+-]+)`).exec(entries)?.[1];
  const width = Number(value("W|Width"));
  const height = Number(value("H|Height"));
  const mask = value("IM|ImageMask") === "true";
  const bits = mask ? 1 : Number(value("BPC|BitsPerComponent"));
  const space = value("CS|ColorSpace");
  const components = mask
    ? 1
    : ((
        { "/G": 1, "/DeviceGray": 1, "/RGB": 3, "/DeviceRGB": 3, "/CMYK": 4, "/DeviceCMYK": 4 } as Record<
          string,
          number
        >
      )[space ?? ""] ?? (/\[\s*\/(I|Indexed)\b/.test(entries) ? 1 : undefined));
  if (!(width > 0 && height > 0 && bits > 0) || components === undefined) return undefined;
  return height * Math.ceil((width * components * bits) / 8);
}

/**
 * The content streams a page draws: its own, then the Form XObjects its resources hold and theirs (each
 * once), each with the resources its names refer to.
 */
export function pageStreams(page: Mupdf.PDFPage): PageStream[] {
  const object = page.getObject();
  const resources = object.getInheritable("Resources");
  const contents = object.get("Contents");
  const streams: PageStream[] = [];
  if (contents.isArray()) {
    for (let index = 0; index < contents.length; index += 1) {
      streams.push({ stream: contents.get(index), resources });
    }
  } else {
    streams.push({ stream: contents, resources });
  }
  for (const entry of xobjectEntries(resources)) {
    if (entry.subtype === "Form") streams.push({ stream: entry.object, resources: entry.resources });
  }
  return streams.filter(({ stream }) => stream.isStream());
}

/** An XObject named in a resource dictionary, with the resources its content (a form's) refers to. */
export interface XObjectEntry {
  owner: Mupdf.PDFObject;
  name: string;
  object: Mupdf.PDFObject;
  subtype: string;
  resources: Mupdf.PDFObject;
}

/**
 * The XObjects of `resources`, and those of the forms among them, to a depth of 4; a form drawn from two
 * places is entered once. A form without resources of its own uses those of what draws it.
 */
export function* xobjectEntries(
  resources: Mupdf.PDFObject,
  seen = new Set<number>(),
  depth = 0,
): Generator<XObjectEntry> {
  const xobjects = resources.isDictionary() ? resources.get("XObject") : undefined;
  if (xobjects === undefined || !xobjects.isDictionary() || depth > 4) return;
  const named: [string, Mupdf.PDFObject][] = [];
  xobjects.forEach((value, key) => {
    named.push([String(key), value]);
  });
  for (const [name, object] of named) {
    const subtype = object.get("Subtype");
    if (!subtype.isName()) continue;
    const own = object.get("Resources");
    const entry = { owner: xobjects, name, object, subtype: subtype.asName(), resources: own };
    if (entry.subtype !== "Form") {
      yield entry;
      continue;
    }
    if (object.isIndirect()) {
      if (seen.has(object.asIndirect())) continue;
      seen.add(object.asIndirect());
    }
    yield { ...entry, resources: own.isDictionary() ? own : resources };
    yield* xobjectEntries(own, seen, depth + 1);
  }
}

import { inflateSync } from "node:zlib";
import type { PdfDocument } from "./document.js";

/** What a file's structure says it holds, read without decoding any stream in full. */
export interface DeclaredSize {
  /** Entries in the cross-reference table: the objects the file says it has. */
  objects: number;
  /** The page tree's /Count (it may lie: `/Count 9999999999` over one page); undefined if unreadable. */
  pages: number | undefined;
  /** The image that takes the most memory decoded, by its dictionary; undefined when there is none. */
  largestImage: DeclaredImage | undefined;
  /** The first stream (not an image: those declare their size) that inflates beyond the limit. */
  inflatesBeyond: { object: number; limitBytes: number } | undefined;
}

export interface ScanLimits {
  /** Objects beyond this are not scanned: the pass costs about 2.5 µs an object. */
  maxObjects: number;
  /** A Flate stream that inflates beyond this many bytes is reported in `inflatesBeyond`. */
  maxInflatedBytes: number;
}

export interface DeclaredImage {
  width: number;
  height: number;
  /** Width × height × bits per sample ÷ 8: what decoding it whole takes. */
  bytes: number;
}

// Deflate packs at most 1,032 bytes into one: a stream smaller than its limit ÷ 1,032 cannot exceed it.
const maxDeflateRatio = 1032;

/**
 * Reads the declared size from the cross-reference table, the page tree's root and each image's
 * dictionary. Of the other streams, only a Flate stream large enough to inflate beyond the limit is
 * inflated, and no further than the limit: a decompression bomb costs at most that, an ordinary file
 * nothing.
 */
export function readDeclaredSize(doc: PdfDocument, scan: ScanLimits): DeclaredSize {
  const objects = doc.countObjects();
  const declared: DeclaredSize = {
    objects,
    pages: declaredPages(doc),
    largestImage: undefined,
    inflatesBeyond: undefined,
  };
  if (objects > scan.maxObjects) return declared;
  for (let number = 1; number < objects; number += 1) {
    const stream = streamAt(doc, number);
    if (stream === undefined) continue;
    const image = imageSize(stream);
    if (image !== undefined) {
      if (image.bytes > (declared.largestImage?.bytes ?? -1)) declared.largestImage = image;
    } else if (declared.inflatesBeyond === undefined && inflatesBeyond(stream, scan.maxInflatedBytes)) {
      declared.inflatesBeyond = { object: number, limitBytes: scan.maxInflatedBytes };
    }
  }
  return declared;
}

function declaredPages(doc: PdfDocument): number | undefined {
  try {
    return doc.countPages();
  } catch {
    // MuPDF refuses count bombs ("Invalid number of pages"): damage for repair to judge, not a size.
    return undefined;
  }
}

type PdfObject = ReturnType<PdfDocument["newIndirect"]>;

/** The stream object `number` (its reference), or undefined for anything else or a damaged object. */
function streamAt(doc: PdfDocument, number: number): PdfObject | undefined {
  try {
    const reference = doc.newIndirect(number);
    return reference.isStream() ? reference : undefined;
  } catch {
    return undefined; // a damaged object is for the engines to judge, not a size
  }
}

function imageSize(stream: PdfObject): DeclaredImage | undefined {
  try {
    const dictionary = stream.resolve();
    if (dictionary.get("Subtype").asName() !== "Image") return undefined;
    const width = dictionary.get("Width").asNumber();
    const height = dictionary.get("Height").asNumber();
    return { width, height, bytes: (width * height * bitsPerSample(dictionary)) / 8 };
  } catch {
    return undefined;
  }
}

function inflatesBeyond(stream: PdfObject, limit: number): boolean {
  try {
    const dictionary = stream.resolve();
    const filter = dictionary.get("Filter");
    const first = filter.isArray() ? filter.get(0) : filter;
    if (!first.isName() || !["FlateDecode", "Fl"].includes(first.asName())) return false;
    // The raw bytes, not /Length, which a hostile file can make small.
    const raw = stream.readRawStream().asUint8Array();
    if (raw.length * maxDeflateRatio <= limit) return false;
    inflateSync(raw, { maxOutputLength: limit });
    return false;
  } catch (error) {
    // Only the limit counts here; a stream that does not inflate is damage for the engines to judge.
    return (error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE";
  }
}

/** Bits a pixel takes: bits per component × the colour space's components (a mask is one bit). */
function bitsPerSample(image: PdfObject): number {
  if (image.get("ImageMask").asBoolean?.() === true) return 1;
  const declaredBits = image.get("BitsPerComponent");
  // JPEG 2000 images may leave both out; take what such a file usually holds.
  const bits = declaredBits.isNumber() ? declaredBits.asNumber() : 8;
  return bits * components(image.get("ColorSpace").resolve());
}

function components(space: PdfObject): number {
  const family = space.isArray() ? space.get(0) : space;
  const name = family.isName() ? family.asName() : "";
  if (["DeviceGray", "CalGray", "Indexed", "Separation", "G"].includes(name)) return 1;
  if (["DeviceCMYK", "CMYK"].includes(name)) return 4;
  if (name === "ICCBased") return Math.max(1, space.get(1).get("N").asNumber() || 3);
  if (name === "DeviceN") return Math.max(1, space.get(1).length || 1);
  return 3;
}

import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { forgetBorrowed } from "@octavo/engines";
import type { Mupdf } from "@octavo/mupdf";
import { loadMupdf } from "@octavo/mupdf";
import sharp from "sharp";
import type { PdfDocument } from "./mupdf.js";
import type { ImageSetting } from "./settings.js";

/** What the image pass did, for logs and tests. */
export interface ImagePassStats {
  images: number;
  replaced: number;
  downsampled: number;
  toGray: number;
  bytesBefore: number;
  bytesAfter: number;
  /** Why images were left as they were, by reason. */
  kept: Record<string, number>;
}

/** Images larger than this stay as they are: decoding one takes its pixels × 3 bytes, twice. */
const maxPixels = 120_000_000;
/** Images re-encoded at once, and the decoded pixels they may hold together (about 150 MB as RGB). */
const maxImagesInFlight = 2;
const pixelsInFlightBudget = 50_000_000;
/** A re-encoded image must save at least this share of its bytes, or the original stays. */
const minSaving = 0.1;
/** Channels that differ by at most this much everywhere are gray (scans stored as RGB). */
const grayTolerance = 2;

/**
 * Re-encoded images of one job, by what determines them: the image as stored (raw stream bytes and every
 * entry that says how to decode them) or its decoded samples, with its new size and the JPEG quality.
 * Compress runs the image pass on the input and again on Ghostscript's rewrite of it, which passes JPEG
 * images through and re-compresses the others losslessly: the second pass finds them here instead of
 * resampling and encoding them again. Each pass still decides whether the JPEG saves enough of its bytes.
 */
export class ImageCache {
  /** By the hash of the stored image, or of its decoded samples. */
  private readonly encoded = new Map<string, Promise<Encoded | undefined>>();

  /** Lookups answered from the cache. */
  hits = 0;

  /** The cached result for `key`, or the one `make` gives (undefined: the image cannot be re-encoded). */
  get(key: string, make: () => Promise<Encoded | undefined>): Promise<Encoded | undefined> {
    let result = this.encoded.get(key);
    if (result !== undefined) this.hits += 1;
    else {
      result = make();
      this.encoded.set(key, result);
      // A failure is not kept: the next pass tries again (and fails the same way, on its own).
      result.catch(() => this.encoded.delete(key));
    }
    return result;
  }
}

/** An image re-encoded as JPEG; `madeGray` when its colour samples were all gray and it became gray. */
interface Encoded {
  jpeg: Buffer;
  madeGray: boolean;
}

interface ImageUse {
  ref: Mupdf.PDFObject;
  image: Mupdf.Image;
  /** The lowest pixels per inch at which the image is drawn, along its width and its height. */
  dpiX: number;
  dpiY: number;
  drawn: boolean;
}

/**
 * Resamples and re-encodes the images of a PDF in place, so that everything else (text, fonts, links,
 * bookmarks, forms, structure) stays exactly as it was. The resolution of an image is the one at which it
 * is drawn (MuPDF runs every page and reports each image with its transform); an image drawn at more than
 * `dpi × threshold` is resampled (Lanczos) to `dpi`. Colour images whose pixels are all gray become gray.
 * The new JPEG (mozjpeg through sharp) replaces the original only if it is at least 10 % smaller.
 *
 * CMYK images become RGB.
 *
 * Left alone: bilevel images and masks (CCITT/JBIG2/Flate 1-bit are already small, and JPEG blurs text),
 * images with a colour-key mask, Lab, Separation and DeviceN images, images with an alpha channel, and
 * images too large to decode safely.
 */
export async function recompressImages(
  input: string,
  output: string,
  setting: ImageSetting,
  signal: AbortSignal | undefined,
  cache: ImageCache = new ImageCache(),
): Promise<ImagePassStats> {
  const mupdf = await loadMupdf();
  const doc = new mupdf.PDFDocument(await readFile(input));
  const stats: ImagePassStats = {
    images: 0,
    replaced: 0,
    downsampled: 0,
    toGray: 0,
    bytesBefore: 0,
    bytesAfter: 0,
    kept: {},
  };
  try {
    const uses = findImages(mupdf, doc, signal);
    stats.images = uses.size;
    // Two images at a time: MuPDF decodes one on this thread while sharp resamples and encodes the other
    // on its own threads, within a budget of decoded pixels.
    const inFlight = new Set<Promise<void>>();
    let pixelsInFlight = 0;
    try {
      for (const use of uses.values()) {
        signal?.throwIfAborted();
        const pixels = use.image.getWidth() * use.image.getHeight();
        while (
          inFlight.size >= maxImagesInFlight ||
          (inFlight.size > 0 && pixelsInFlight + pixels > pixelsInFlightBudget)
        ) {
          await Promise.race(inFlight);
        }
        pixelsInFlight += pixels;
        const task: Promise<void> = recompressOne(mupdf, doc, use, setting, stats, cache)
          .then((why) => {
            if (why !== undefined) stats.kept[why] = (stats.kept[why] ?? 0) + 1;
          })
          .finally(() => {
            pixelsInFlight -= pixels;
            inFlight.delete(task);
          });
        task.catch(() => undefined); // reported by the race or the wait below
        inFlight.add(task);
      }
      await Promise.all(inFlight);
    } finally {
      // Nothing may touch the document after it is destroyed.
      await Promise.allSettled(inFlight);
    }
    for (const use of uses.values()) use.image.destroy();
    // No garbage collection here: after images were edited, MuPDF 1.28's garbage collection wrote some
    // image streams as plain dictionaries (poppler: "XObject is wrong type"). The lossless pass reopens
    // the file and collects garbage on the fresh document, where it is safe.
    const saved = doc.saveToBuffer("compress");
    try {
      await writeFile(output, Buffer.from(saved.asUint8Array()));
    } finally {
      saved.destroy();
    }
    return stats;
  } finally {
    doc.destroy();
  }
}

/** Every image XObject the pages use, with the resolution at which each is drawn. */
function findImages(
  mupdf: typeof Mupdf,
  doc: PdfDocument,
  signal: AbortSignal | undefined,
): Map<number, ImageUse> {
  const uses = new Map<number, ImageUse>();
  const byPointer = new Map<number, ImageUse>();
  const seenResources = new Set<number>();
  const addImage = (ref: Mupdf.PDFObject): void => {
    const num = ref.asIndirect();
    if (uses.has(num)) return;
    let image: Mupdf.Image;
    try {
      image = doc.loadImage(ref);
    } catch {
      return;
    }
    const use: ImageUse = {
      ref,
      image,
      dpiX: Number.POSITIVE_INFINITY,
      dpiY: Number.POSITIVE_INFINITY,
      drawn: false,
    };
    uses.set(num, use);
    byPointer.set(image.pointer, use);
  };
  const visitResources = (resources: Mupdf.PDFObject, depth: number): void => {
    if (!resources.isDictionary() || depth > 12) return;
    if (resources.isIndirect()) {
      const num = resources.asIndirect();
      if (seenResources.has(num)) return;
      seenResources.add(num);
    }
    field(resources, "XObject").forEach((xobject) => {
      if (!xobject.isIndirect() || !xobject.isStream()) return;
      const subtype = nameOf(field(xobject, "Subtype"));
      if (subtype === "Image") addImage(xobject);
      else if (subtype === "Form") visitResources(field(xobject, "Resources"), depth + 1);
    });
    field(resources, "Pattern").forEach((pattern) => {
      visitResources(field(pattern, "Resources"), depth + 1);
    });
    field(resources, "Font").forEach((font) => {
      visitResources(field(font, "Resources"), depth + 1);
    });
  };
  const pages = doc.countPages();
  for (let index = 0; index < pages; index += 1) {
    signal?.throwIfAborted();
    const pageObject = doc.findPage(index);
    visitResources(pageObject.getInheritable("Resources"), 0);
    field(pageObject, "Annots").forEach((annotation) => {
      const normal = field(field(annotation, "AP"), "N");
      if (normal.isStream()) visitResources(field(normal, "Resources"), 1);
      else
        normal.forEach((state) => {
          visitResources(field(state, "Resources"), 1);
        });
    });
  }
  if (uses.size === 0) return uses;
  // MuPDF caches an image per object, so the image a page draws is the very one loadImage returned.
  const device = new mupdf.Device({
    fillImage(image, ctm) {
      const use = byPointer.get(image.pointer);
      if (use !== undefined) {
        use.drawn = true;
        const width = Math.hypot(ctm[0], ctm[1]) / 72;
        const height = Math.hypot(ctm[2], ctm[3]) / 72;
        if (width > 0) use.dpiX = Math.min(use.dpiX, image.getWidth() / width);
        if (height > 0) use.dpiY = Math.min(use.dpiY, image.getHeight() / height);
      }
      forgetBorrowed(image);
    },
  });
  try {
    for (let index = 0; index < pages; index += 1) {
      signal?.throwIfAborted();
      const page = doc.loadPage(index);
      try {
        page.run(device, mupdf.Matrix.identity);
      } catch {
        // A page that does not run fully keeps the resolutions seen so far; unseen images stay as they are.
      } finally {
        page.destroy();
      }
    }
  } finally {
    device.close();
    device.destroy();
  }
  return uses;
}

type ColourKind = "gray" | "rgb" | "cmyk";

async function recompressOne(
  mupdf: typeof Mupdf,
  doc: PdfDocument,
  use: ImageUse,
  setting: ImageSetting,
  stats: ImagePassStats,
  cache: ImageCache,
): Promise<string | undefined> {
  const { ref, image } = use;
  if (!use.drawn) return "not drawn";
  if (image.getImageMask() || image.getBitsPerComponent() === 1) return "bilevel";
  if (ref.get("ImageMask").isBoolean() && ref.get("ImageMask").asBoolean()) return "bilevel";
  if (ref.get("Mask").isArray()) return "colour-key mask";
  const filters = filterNames(ref.get("Filter"));
  if (filters.some((filter) => filter === "JBIG2Decode" || filter === "CCITTFaxDecode")) return "bilevel";
  const space = colourSpace(ref.get("ColorSpace"));
  if (space === undefined) return "colour space";
  if (space.indexed && !ref.get("Decode").isNull()) return "decode array";
  const width = image.getWidth();
  const height = image.getHeight();
  if (width * height > maxPixels) return "too large";
  const scaleX = use.dpiX > setting.dpi * setting.threshold ? setting.dpi / use.dpiX : 1;
  const scaleY = use.dpiY > setting.dpi * setting.threshold ? setting.dpi / use.dpiY : 1;
  const newWidth = Math.max(1, Math.round(width * scaleX));
  const newHeight = Math.max(1, Math.round(height * scaleY));

  const raw = ref.readRawStream();
  const oldBytes = raw.getLength();
  const key = createHash("sha256")
    .update(raw.asUint8Array())
    .update(
      JSON.stringify([
        ...decodingEntries.map((entry) => fingerprint(ref.get(entry))),
        width,
        height,
        newWidth,
        newHeight,
        setting.quality,
      ]),
    )
    .digest("hex");
  raw.destroy();
  // The same stored image (a JPEG Ghostscript passed through) is found by its bytes; the same pixels
  // stored otherwise (an image Ghostscript re-compressed) by its decoded samples.
  const encoded = await cache.get(key, async () => {
    const decoded = decodePixels(mupdf, image);
    if (decoded === undefined) return undefined;
    const samples = createHash("sha256")
      .update(decoded.pixels)
      .update(JSON.stringify([decoded.channels, width, height, newWidth, newHeight, setting.quality]))
      .digest("hex");
    return cache.get(samples, () => encode(decoded, { width, height, newWidth, newHeight }, setting));
  });
  if (encoded === undefined) return "alpha or unusual pixels";
  const { jpeg, madeGray } = encoded;
  if (jpeg.length > oldBytes * (1 - minSaving)) return "no gain";

  ref.writeRawStream(jpeg);
  ref.put("Filter", doc.newName("DCTDecode"));
  ref.delete("DecodeParms");
  ref.delete("Decode");
  ref.put("Width", newWidth);
  ref.put("Height", newHeight);
  ref.put("BitsPerComponent", 8);
  if (madeGray && space.kind !== "gray") ref.put("ColorSpace", doc.newName("DeviceGray"));
  else if (space.kind === "cmyk") ref.put("ColorSpace", doc.newName("DeviceRGB"));
  else if (space.indexed) ref.put("ColorSpace", space.base);
  stats.replaced += 1;
  if (newWidth !== width || newHeight !== height) stats.downsampled += 1;
  if (madeGray) stats.toGray += 1;
  stats.bytesBefore += oldBytes;
  stats.bytesAfter += jpeg.length;
  return undefined;
}

/** The samples as JPEG at the new size (gray when the colour samples are all gray). */
async function encode(
  decoded: { pixels: Buffer; channels: 1 | 3 },
  size: { width: number; height: number; newWidth: number; newHeight: number },
  setting: ImageSetting,
): Promise<Encoded> {
  let { pixels, channels } = decoded;
  const madeGray = channels === 3 && isGray(pixels);
  if (madeGray) {
    pixels = greenChannel(pixels);
    channels = 1;
  }
  const { width, height, newWidth, newHeight } = size;
  let pipeline = sharp(pixels, { raw: { width, height, channels }, limitInputPixels: maxPixels });
  if (newWidth !== width || newHeight !== height) {
    pipeline = pipeline.resize(newWidth, newHeight, { fit: "fill", kernel: "lanczos3" });
  }
  if (channels === 1) pipeline = pipeline.toColourspace("b-w");
  const jpeg = await pipeline
    .jpeg({ quality: setting.quality, mozjpeg: true, chromaSubsampling: "4:2:0" })
    .toBuffer();
  return { jpeg, madeGray };
}

/** The entries of an image dictionary that, with its stream, say what its samples are. */
const decodingEntries = ["Filter", "DecodeParms", "ColorSpace", "Decode", "BitsPerComponent"];

/**
 * What an object says, with indirect objects resolved and streams by the hash of their bytes: the same
 * text for equal objects in two files (object numbers differ between a file and its rewrite).
 */
function fingerprint(object: Mupdf.PDFObject, depth = 0): string {
  if (depth > 8) return "…"; // deeper than any colour space or decode parameters nest
  const value = object.isIndirect() ? object.resolve() : object;
  if (value.isArray()) {
    const items: string[] = [];
    value.forEach((item) => {
      items.push(fingerprint(item, depth + 1));
    });
    return `[${items.join(" ")}]`;
  }
  if (value.isDictionary()) {
    const entries: string[] = [];
    value.forEach((item, key) => {
      entries.push(`/${key} ${fingerprint(item, depth + 1)}`);
    });
    const dictionary = `<<${entries.sort().join(" ")}>>`;
    if (!value.isStream()) return dictionary;
    const raw = value.readRawStream();
    try {
      return `${dictionary}stream:${createHash("sha256").update(raw.asUint8Array()).digest("hex")}`;
    } finally {
      raw.destroy();
    }
  }
  return value.toString();
}

/**
 * The image's samples as 8-bit gray or RGB without alpha, or undefined for anything else. CMYK becomes RGB
 * (MuPDF's conversion, as a viewer shows it; Ghostscript's /ebook converts to sRGB too).
 */
function decodePixels(
  mupdf: typeof Mupdf,
  image: Mupdf.Image,
): { pixels: Buffer; channels: 1 | 3 } | undefined {
  let pixmap = image.toPixmap();
  try {
    if (pixmap.getColorSpace()?.isCMYK() && pixmap.getAlpha() === 0) {
      const rgb = pixmap.convertToColorSpace(mupdf.ColorSpace.DeviceRGB, false);
      pixmap.destroy();
      pixmap = rgb;
    }
    const channels = pixmap.getNumberOfComponents();
    if (pixmap.getColorSpace()?.isIndexed()) return undefined;
    if (pixmap.getAlpha() !== 0 || (channels !== 1 && channels !== 3)) return undefined;
    const width = pixmap.getWidth();
    const height = pixmap.getHeight();
    if (width !== image.getWidth() || height !== image.getHeight()) return undefined;
    const stride = pixmap.getStride();
    const row = width * channels;
    // getPixels() is a view into the WASM heap: copy it out before MuPDF allocates again.
    const view = pixmap.getPixels();
    const pixels = Buffer.allocUnsafe(row * height);
    for (let y = 0; y < height; y += 1) pixels.set(view.subarray(y * stride, y * stride + row), y * row);
    return { pixels, channels };
  } finally {
    pixmap.destroy();
  }
}

function isGray(rgb: Buffer): boolean {
  for (let index = 0; index < rgb.length; index += 3) {
    const red = rgb[index] ?? 0;
    const green = rgb[index + 1] ?? 0;
    const blue = rgb[index + 2] ?? 0;
    if (Math.abs(red - green) > grayTolerance || Math.abs(green - blue) > grayTolerance) return false;
  }
  return true;
}

function greenChannel(rgb: Buffer): Buffer {
  const gray = Buffer.allocUnsafe(rgb.length / 3);
  for (let index = 0; index < gray.length; index += 1) gray[index] = rgb[index * 3 + 1] ?? 0;
  return gray;
}

/** A dictionary entry, or MuPDF.js's null for anything else (its shared null object throws on get()). */
function field(object: Mupdf.PDFObject, key: string): Mupdf.PDFObject {
  return object.isDictionary() ? object.get(key) : (object.constructor as typeof Mupdf.PDFObject).Null;
}

function nameOf(object: Mupdf.PDFObject): string | undefined {
  return object.isName() ? object.asName() : undefined;
}

function filterNames(filter: Mupdf.PDFObject): string[] {
  if (filter.isName()) return [filter.asName()];
  const names: string[] = [];
  if (filter.isArray()) {
    for (let index = 0; index < filter.length; index += 1) {
      const name = nameOf(filter.get(index));
      if (name !== undefined) names.push(name);
    }
  }
  return names;
}

/** Gray and RGB spaces (device, calibrated, ICC with 1 or 3 components), or an Indexed space over one. */
function colourSpace(
  space: Mupdf.PDFObject,
):
  | { kind: ColourKind; indexed: false }
  | { kind: ColourKind; indexed: true; base: Mupdf.PDFObject }
  | undefined {
  const kind = plainKind(space);
  if (kind !== undefined) return { kind, indexed: false };
  if (space.isArray()) {
    const family = nameOf(space.get(0));
    if (family === "Indexed" || family === "I") {
      const base = space.get(1);
      const baseKind = plainKind(base);
      return baseKind === undefined ? undefined : { kind: baseKind, indexed: true, base };
    }
  }
  return undefined;
}

function plainKind(space: Mupdf.PDFObject): ColourKind | undefined {
  const name = nameOf(space);
  if (name === "DeviceGray" || name === "G" || name === "CalGray") return "gray";
  if (name === "DeviceRGB" || name === "RGB" || name === "CalRGB") return "rgb";
  if (name === "DeviceCMYK" || name === "CMYK") return "cmyk";
  if (!space.isArray()) return undefined;
  const family = nameOf(space.get(0));
  if (family === "CalGray") return "gray";
  if (family === "CalRGB") return "rgb";
  if (family === "ICCBased") {
    const components = field(space.get(1), "N");
    const count = components.isNumber() ? components.asNumber() : 0;
    return count === 1 ? "gray" : count === 3 ? "rgb" : count === 4 ? "cmyk" : undefined;
  }
  return undefined;
}

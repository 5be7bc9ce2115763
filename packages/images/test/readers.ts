import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { withPdf } from "@octavo/engines";
import type { Mupdf } from "@octavo/mupdf";
import { runTool } from "@octavo/testing";
import sharp, { type Sharp } from "sharp";
import { ssim } from "ssim.js";
import { scratch } from "./helpers.js";

// Reads what the operations wrote with programs other than the writers: poppler and qpdf for PDFs,
// sharp (libvips) for images, and MuPDF for the PDFs pdf-lib writes.

const execFileAsync = promisify(execFile);
const maxBuffer = 256 * 1024 * 1024;

/** A checking tool's output; its failing fails the test. */
async function toolOutput(program: string, args: string[]): Promise<string> {
  const result = await runTool(program, args);
  if (result.code !== 0) throw new Error(`${program} failed (exit ${result.code}): ${result.stderr}`);
  return result.stdout;
}

/** qpdf --check's exit code: 0 clean, 3 warnings, 2 errors. */
export async function qpdfCheck(path: string): Promise<number> {
  return (await runTool("qpdf", ["--check", path])).code;
}

/** A stream's data as qpdf decodes it (Flate and PNG predictors undone): samples as the PDF holds them. */
export async function decodedStream(pdf: string, object: number): Promise<Buffer> {
  const args = [`--show-object=${object}`, "--filtered-stream-data", pdf];
  const { stdout } = await execFileAsync("qpdf", args, { encoding: "buffer", maxBuffer });
  return stdout;
}

export interface PopplerPage {
  page: number;
  /** Rotation applied: the size the page shows, in points. */
  visibleWidth: number;
  visibleHeight: number;
  rotation: number;
  cropBox: number[];
  mediaBox: number[];
}

/** Each page's boxes and rotation as poppler's pdfinfo reads them. */
export async function popplerPages(path: string): Promise<PopplerPage[]> {
  const text = await toolOutput("pdfinfo", ["-box", "-f", "1", "-l", "100000", path]);
  const pages = new Map<number, Partial<PopplerPage>>();
  const entry = (page: number) => pages.get(page) ?? pages.set(page, { page }).get(page) ?? {};
  for (const match of text.matchAll(/^Page\s+(\d+)\s+(rot|MediaBox|CropBox):\s+(.+)$/gm)) {
    const [, page = "", field, value = ""] = match;
    const target = entry(Number(page));
    if (field === "rot") target.rotation = Number(value);
    else if (field === "MediaBox") target.mediaBox = value.trim().split(/\s+/).map(Number);
    else target.cropBox = value.trim().split(/\s+/).map(Number);
  }
  return [...pages.values()].map((page) => {
    const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = page.cropBox ?? [];
    const turned = (page.rotation ?? 0) % 180 !== 0;
    const width = Math.abs(x1 - x0);
    const height = Math.abs(y1 - y0);
    return {
      page: page.page ?? 0,
      rotation: page.rotation ?? 0,
      cropBox: page.cropBox ?? [],
      mediaBox: page.mediaBox ?? [],
      visibleWidth: turned ? height : width,
      visibleHeight: turned ? width : height,
    };
  });
}

export interface ListedImage {
  page: number;
  type: string;
  width: number;
  height: number;
  color: string;
  components: number;
  bitsPerComponent: number;
  encoding: string;
  xPpi: number;
  yPpi: number;
}

/** pdfimages -list: every image and soft mask drawn, page by page. */
export async function listImages(path: string): Promise<ListedImage[]> {
  const text = await toolOutput("pdfimages", ["-list", path]);
  return text
    .split("\n")
    .slice(2)
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const f = line.trim().split(/\s+/);
      return {
        page: Number(f[0]),
        type: f[2] ?? "",
        width: Number(f[3]),
        height: Number(f[4]),
        color: f[5] ?? "",
        components: Number(f[6]),
        bitsPerComponent: Number(f[7]),
        encoding: f[8] ?? "",
        xPpi: Number(f[12]),
        yPpi: Number(f[13]),
      };
    });
}

/** The images pdfimages extracts with `options` (e.g. -all, -png, -tiff), in drawing order. */
export async function extractImages(pdf: string, options: string[]): Promise<string[]> {
  const dir = await scratch();
  await toolOutput("pdfimages", [...options, pdf, join(dir, "img")]);
  return (await readdir(dir)).sort().map((file) => join(dir, file));
}

/** Visits each page's image XObjects in MuPDF (a second, independent reader of what pdf-lib wrote). */
export function withImageObjects<T>(
  pdf: string,
  visit: (images: Mupdf.PDFObject[], page: number) => T,
): Promise<T[]> {
  return withPdf(pdf, (doc) =>
    Array.from({ length: doc.countPages() }, (_, index) => {
      const images: Mupdf.PDFObject[] = [];
      doc
        .findPage(index)
        .get("Resources")
        .get("XObject")
        .forEach((value) => {
          if (value.get("Subtype").asName() === "Image") images.push(value);
        });
      return visit(images, index + 1);
    }),
  );
}

/**
 * Poppler's rendering of one page, its visible box (-cropbox) at `dpi`, as uncompressed TIFF: the same
 * pixels as its PNG, without poppler's slow PNG encoder.
 */
export async function popplerRender(pdf: string, page: number, dpi: number): Promise<string> {
  const prefix = join(await scratch(), "page");
  const pages = ["-f", String(page), "-l", String(page)];
  await toolOutput("pdftoppm", [
    "-r",
    String(dpi),
    "-tiff",
    "-cropbox",
    "-singlefile",
    ...pages,
    pdf,
    prefix,
  ]);
  return `${prefix}.tif`;
}

export interface ImageInfo {
  format: string | undefined;
  width: number | undefined;
  height: number | undefined;
  density: number | undefined;
  channels: number | undefined;
}

/** An image file's format, size, resolution and channels, from its header. */
export async function imageInfo(path: string): Promise<ImageInfo> {
  const { format, width, height, density, channels } = await sharp(path).metadata();
  return { format, width, height, density, channels };
}

/** The RGB of the pixel at (x, y). */
export async function pixelAt(path: string, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(path).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const offset = (y * info.width + x) * info.channels;
  return [...data.subarray(offset, offset + 3)];
}

export interface StoredPixels {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

/**
 * Samples as stored, decoded by sharp: profiles not applied, grey kept grey, CMYK kept CMYK, 16-bit kept
 * 16-bit; `select` picks the colour channels or the alpha channel.
 */
export async function storedPixels(
  path: string,
  options: { page?: number | undefined; select?: "colour" | "alpha" } = {},
): Promise<StoredPixels> {
  const meta = await sharp(path, { page: options.page ?? 0 }).metadata();
  const sixteen = meta.depth === "ushort";
  let image = sharp(path, { ignoreIcc: true, page: options.page ?? 0 });
  if (meta.space === "cmyk") image = image.pipelineColourspace("cmyk").toColourspace("cmyk");
  else if (meta.space === "b-w" || meta.space === "grey16")
    image = image.toColourspace(sixteen ? "grey16" : "b-w");
  else image = image.toColourspace(sixteen ? "rgb16" : "srgb");
  if (options.select === "alpha") image = image.extractChannel("alpha");
  else if (options.select === "colour") image = image.removeAlpha();
  const { data, info } = await image
    .raw({ depth: sixteen ? "ushort" : "uchar" })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** sRGB pixels with alpha, as ssim.js takes them. */
export interface Rgba {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

export async function rgbaOf(image: Sharp): Promise<Rgba> {
  const { data, info } = await image
    .toColourspace("srgb")
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
    width: info.width,
    height: info.height,
  };
}

/** One page as poppler's pdftoppm draws it at `dpi`. */
export async function renderPage(pdf: string, page: number, dpi: number): Promise<Rgba> {
  return rgbaOf(sharp(await popplerRender(pdf, page, dpi)));
}

/**
 * The image as viewers show it (sharp: EXIF orientation applied, CMYK and profiles converted to sRGB,
 * transparency over white), stretched to `width` × `height` to meet a render pixel for pixel.
 */
export async function shownImage(
  path: string,
  width: number,
  height: number,
  transform: (image: Sharp) => Sharp = (image) => image,
): Promise<Rgba> {
  const image = transform(sharp(path).rotate())
    .flatten({ background: "#ffffff" })
    .resize(width, height, { fit: "fill" });
  return rgbaOf(image);
}

/**
 * Mean SSIM of two images of the same size, by ssim.js on luma: by default downsampled to about 256
 * pixels on the short side (as Wang et al. recommend); `fullResolution` compares every pixel, where
 * antialiasing differences between renderers weigh most.
 */
export function similarity(a: Rgba, b: Rgba, options: { fullResolution?: boolean } = {}): number {
  if (a.width !== b.width || a.height !== b.height) {
    throw new Error(`sizes differ: ${a.width}x${a.height} and ${b.width}x${b.height}`);
  }
  return ssim(a, b, options.fullResolution ? { downsample: false } : {}).mssim;
}

export interface Similarity {
  /** `similarity` with ssim.js's defaults. */
  standard: number;
  /** The same at full resolution (only against a reference drawn at our dpi: it doubles the cost). */
  fullResolution: number | undefined;
}

/**
 * How alike our rendering is to a reference rendering of the same page. A reference of about the same
 * size (rounding: a pixel at most each way) is resized to ours; `supersampled` lets a reference drawn
 * at a multiple of our dpi be reduced to our size, which averages its own antialiasing away.
 */
export async function similarityToReference(
  ours: string,
  reference: string,
  options: { supersampled?: boolean } = {},
): Promise<Similarity> {
  const a = await rgbaOf(sharp(ours));
  const { width = 0, height = 0 } = await sharp(reference).metadata();
  if (!options.supersampled && (Math.abs(width - a.width) > 1 || Math.abs(height - a.height) > 1)) {
    throw new Error(`sizes differ beyond rounding: ${a.width}×${a.height} and ${width}×${height}`);
  }
  const b = await rgbaOf(sharp(reference).resize(a.width, a.height, { fit: "fill" }));
  const fullResolution = options.supersampled ? undefined : similarity(a, b, { fullResolution: true });
  return { standard: similarity(a, b), fullResolution };
}

/** Mean absolute difference of the colour channels, 0–255. */
export function meanDifference(a: Rgba, b: Rgba): number {
  let sum = 0;
  let count = 0;
  for (let index = 0; index < a.data.length; index += 4) {
    for (let channel = 0; channel < 3; channel += 1) {
      sum += Math.abs((a.data[index + channel] ?? 0) - (b.data[index + channel] ?? 0));
      count += 1;
    }
  }
  return sum / count;
}

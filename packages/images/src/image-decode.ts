import { drainMupdfLog, loadMupdf, type Mupdf } from "@octavo/mupdf";
import sharp, { type Metadata, type SharpOptions } from "sharp";
import { imageCaps } from "./image-limits.js";
import { componentsOf, type DeviceSpace, deviceSpaceFor } from "./image-xobject.js";

/** Decoded pixels, as the PDF image will hold them. */
export interface DecodedPixels {
  width: number;
  height: number;
  bitsPerComponent: 8 | 16;
  device: DeviceSpace;
  /** Interleaved samples, the colour ones then alpha when `alpha`; 16-bit ones big-endian, as PDF reads them. */
  samples: Buffer;
  alpha: boolean;
  /** The file stores one bit a sample (a fax-style scan): every sample is 0 or the maximum. */
  bilevel: boolean;
}

/**
 * How sharp reads every input: decoding stops at the first error (a cut-short or corrupt file fails
 * instead of coming out grey), the pixel cap holds, and embedded profiles are not applied, so samples
 * stay as stored and the profile goes into the PDF with them.
 */
export function sharpOptions(page: number): SharpOptions {
  return {
    failOn: "error",
    limitInputPixels: imageCaps.maxPixels,
    ignoreIcc: true,
    sequentialRead: true,
    page,
  };
}

/** For reading headers: sharp's pixel cap would refuse before our own check can name the size. */
export function headerOptions(page: number): SharpOptions {
  return { ...sharpOptions(page), limitInputPixels: false };
}

/**
 * One page (frame) of a PNG, TIFF, WebP or GIF as stored: CMYK stays CMYK, grey stays grey, 16-bit stays
 * 16-bit. Deeper samples (32-bit or float TIFF) come out as 16-bit.
 */
export async function decodeWithSharp(
  bytes: Uint8Array,
  page: number,
  meta: Metadata,
): Promise<DecodedPixels> {
  const sixteen = meta.depth !== "uchar" && meta.depth !== "char";
  let image = sharp(bytes, sharpOptions(page));
  let device: DeviceSpace;
  if (meta.space === "cmyk") {
    // Kept CMYK end to end; without this sharp turns CMYK into sRGB through a profile.
    image = image.pipelineColourspace("cmyk").toColourspace("cmyk");
    device = "DeviceCMYK";
  } else if (meta.space === "b-w" || meta.space === "grey16") {
    image = image.toColourspace(sixteen ? "grey16" : "b-w");
    device = "DeviceGray";
  } else {
    image = image.toColourspace(sixteen ? "rgb16" : "srgb");
    device = "DeviceRGB";
  }
  const { data, info } = await image
    .raw({ depth: sixteen ? "ushort" : "uchar" })
    .toBuffer({ resolveWithObject: true });
  if (sixteen) bigEndian16(data);
  return {
    width: info.width,
    height: info.height,
    bitsPerComponent: sixteen ? 16 : 8,
    device,
    samples: data,
    alpha: info.channels > componentsOf[device],
    bilevel: meta.bitsPerSample === 1,
  };
}

export interface MupdfDecoded {
  pixels: DecodedPixels;
  /** Pixels per inch from the file; undefined when it gives none. */
  dpi: number | undefined;
}

/**
 * A BMP, which sharp's libvips does not read, decoded by MuPDF. MuPDF carries on past damage with a
 * warning (a cut-short bitmap comes out partly black), so any warning during the decode fails it.
 */
export async function decodeWithMupdf(
  bytes: Uint8Array,
  checkSize: (width: number, height: number, samples: number) => void,
): Promise<MupdfDecoded> {
  const mupdf = await loadMupdf();
  drainMupdfLog();
  const image = new mupdf.Image(bytes);
  try {
    checkSize(image.getWidth(), image.getHeight(), image.getNumberOfComponents() + 1);
    const pixmap = image.toPixmap();
    try {
      const problems = drainMupdfLog();
      if (problems.length > 0) throw new Error(problems.join("; "));
      const device = deviceSpaceFor(pixmap.getNumberOfComponents() - pixmap.getAlpha());
      if (device === undefined) throw new Error(`unexpected ${pixmap.getNumberOfComponents()} components`);
      const xres = image.getXResolution();
      return { pixels: pixmapSamples(pixmap, device), dpi: xres > 0 ? xres : undefined };
    } finally {
      pixmap.destroy();
    }
  } finally {
    image.destroy();
  }
}

/** A pixmap's rows packed tightly (its stride may pad them). */
function pixmapSamples(pixmap: Mupdf.Pixmap, device: DeviceSpace): DecodedPixels {
  const width = pixmap.getWidth();
  const height = pixmap.getHeight();
  const stride = pixmap.getStride();
  const channels = pixmap.getNumberOfComponents();
  const source = pixmap.getPixels();
  const row = width * channels;
  const samples = Buffer.alloc(row * height);
  for (let y = 0; y < height; y += 1) {
    samples.set(source.subarray(y * stride, y * stride + row), y * row);
  }
  return {
    width,
    height,
    bitsPerComponent: 8,
    device,
    samples,
    alpha: pixmap.getAlpha() > 0,
    bilevel: false,
  };
}

/** sharp gives 16-bit samples in the machine's order (little-endian here); PDF reads them big-endian. */
function bigEndian16(data: Buffer): void {
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] === 1) data.swap16();
}

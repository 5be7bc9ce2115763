import type { Mupdf } from "@octavo/mupdf";
import sharp from "sharp";
import type { DimensionLimit } from "./render-plan.js";

export const imageFormats = ["png", "jpeg", "webp"] as const;

export type ImageFormat = (typeof imageFormats)[number];

export interface ImageEncoding {
  format: ImageFormat;
  /** 1–100, for jpeg and webp. */
  quality: number;
  /** Written into the file as its resolution, so the image prints at the page's size. */
  dpi: number;
}

interface FormatFacts {
  extension: string;
  contentType: string;
  /** The result's `engine`: MuPDF draws every page; sharp encodes JPEG and WebP. */
  engine: string;
  dimensionLimit: DimensionLimit | undefined;
}

const formats: Record<ImageFormat, FormatFacts> = {
  png: { extension: "png", contentType: "image/png", engine: "mupdf", dimensionLimit: undefined },
  jpeg: {
    extension: "jpg",
    contentType: "image/jpeg",
    engine: "mupdf + sharp",
    dimensionLimit: { format: "JPEG", maxSide: 65_535 },
  },
  webp: {
    extension: "webp",
    contentType: "image/webp",
    engine: "mupdf + sharp",
    dimensionLimit: { format: "WebP", maxSide: 16_383 },
  },
};

export function formatFacts(format: ImageFormat): FormatFacts {
  return formats[format];
}

/**
 * Encodes an RGB pixmap without alpha, with the dpi as its resolution: PNG with MuPDF's own encoder,
 * JPEG and WebP with sharp. The pixmap is only read before this returns, so the caller may free it at
 * once, before sharp's encoding finishes: the pixels sharp needs are copied out of MuPDF's memory (a
 * view of it could be moved by MuPDF's next allocation).
 */
export function encodePixmap(pixmap: Mupdf.Pixmap, encoding: ImageEncoding): Promise<Uint8Array> {
  pixmap.setResolution(encoding.dpi, encoding.dpi);
  switch (encoding.format) {
    case "png":
      return Promise.resolve(pixmap.asPNG());
    case "jpeg":
    case "webp":
      return encodeWithSharp(packedPixels(pixmap), pixmap.getWidth(), pixmap.getHeight(), encoding);
  }
}

/**
 * A copy of the RGB samples for sharp's raw input, which takes rows packed and no alpha: a pixmap laid out
 * otherwise (MuPDF's rows are packed today) fails here instead of coming out skewed.
 */
function packedPixels(pixmap: Mupdf.Pixmap): Buffer {
  // MuPDF's n counts the alpha channel too.
  const channels = pixmap.getNumberOfComponents();
  if (channels !== 3 || pixmap.getAlpha() !== 0 || pixmap.getStride() !== pixmap.getWidth() * channels) {
    throw new Error(`unexpected pixmap layout: ${channels} channels, stride ${pixmap.getStride()}`);
  }
  return Buffer.from(pixmap.getPixels());
}

/**
 * JPEG and WebP through sharp (libjpeg-turbo, libwebp). MuPDF has no WebP encoder, and its JPEG
 * encoder (progressive, no chroma subsampling) took 75 ms a megapixel where sharp takes 14: with it a
 * JPEG page cost 2.6 times pdftoppm's (bench/images/pdf-to-image.mjs).
 */
function encodeWithSharp(
  pixels: Buffer,
  width: number,
  height: number,
  encoding: ImageEncoding,
): Promise<Uint8Array> {
  const image = sharp(pixels, { raw: { width, height, channels: 3 } });
  const encoded =
    encoding.format === "jpeg"
      ? image.jpeg({ quality: encoding.quality })
      : image.webp({ quality: encoding.quality });
  return encoded.withDensity(encoding.dpi).toBuffer();
}

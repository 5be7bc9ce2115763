import { JobFailure } from "@octavo/engines";
import sharp, { type Metadata } from "sharp";
import { count } from "./count.js";
import { decodeWithMupdf, decodeWithSharp, headerOptions } from "./image-decode.js";
import type { ImageGeometry } from "./image-layout.js";
import { checkDecodedSize, imageCaps } from "./image-limits.js";
import { pixelsAsImage } from "./image-planes.js";
import { pngAsIs } from "./image-png.js";
import { type ImageKind, kindLabels, sniffImage } from "./image-sniff.js";
import { componentsOf, type DeviceSpace, deviceSpaceFor, type ImageObject } from "./image-xobject.js";
import { embeddableAsIs, type JpegHeader, readJpeg } from "./jpeg-markers.js";

/** One page's image and how it is to be shown. */
export interface ImagePage {
  image: ImageObject;
  geometry: ImageGeometry;
}

export interface FileImages {
  pages: ImagePage[];
  warnings: string[];
}

/**
 * Every page one image file gives: each frame of a TIFF, the first of an animated GIF, WebP or PNG.
 * `pagesLeft` is what the whole PDF may still take. A file that is not what its name says, or that does
 * not decode, fails with invalid_input naming it.
 */
export async function readImageFile(bytes: Buffer, name: string, pagesLeft: number): Promise<FileImages> {
  const sniffed = await sniffImage(bytes, name);
  const warnings: string[] = [];
  const reading = new FileReading(bytes, name, sniffed.kind, warnings);
  if (sniffed.animatedPng) warnings.push(firstFrameOnly(name));
  const pages = await reading.pages(pagesLeft);
  return { pages, warnings };
}

class FileReading {
  constructor(
    readonly bytes: Buffer,
    readonly name: string,
    readonly kind: ImageKind,
    readonly warnings: string[],
  ) {}

  async pages(pagesLeft: number): Promise<ImagePage[]> {
    if (this.kind === "bmp") return [await this.bmp()];
    const first = await this.decoding(() => sharp(this.bytes, headerOptions(0)).metadata());
    if (this.kind === "jpeg") return [await this.jpeg(first)];
    const frames = first.pages ?? 1;
    if (this.kind !== "tiff") {
      if (frames > 1) this.warnings.push(firstFrameOnly(this.name));
      return [await this.frame(0, first)];
    }
    if (frames > pagesLeft) throw tooManyPages(this.name, frames);
    const pages: ImagePage[] = [];
    for (let page = 0; page < frames; page += 1) {
      const meta =
        page === 0 ? first : await this.decoding(() => sharp(this.bytes, headerOptions(page)).metadata());
      pages.push(await this.frame(page, meta));
    }
    return pages;
  }

  /** The JPEG's own bytes as the image, drawn turned by its EXIF orientation; walked through to check it. */
  async jpeg(meta: Metadata): Promise<ImagePage> {
    const { header, damage } = readJpeg(this.bytes);
    if (header === undefined) throw this.unreadable(new Error(damage));
    checkDecodedSize(this.name, header.width, header.height, header.components, 1);
    const device = deviceSpaceFor(header.components);
    if (!embeddableAsIs(header) || device === undefined) {
      this.warnings.push(
        `${this.name} uses a JPEG coding that PDF readers do not all support (${codingOf(header)}); ` +
          "its pixels were embedded losslessly instead of as JPEG data.",
      );
      return this.frame(0, meta);
    }
    return {
      image: {
        width: header.width,
        height: header.height,
        bitsPerComponent: 8,
        colour: { device, icc: this.profileFor(meta, device) },
        data: {
          filter: "DCTDecode",
          bytes: this.bytes,
          inverted: header.components === 4 && header.adobeTransform !== undefined,
        },
      },
      geometry: this.geometry(header.width, header.height, meta),
    };
  }

  /** One frame decoded and embedded losslessly; a PNG that needs no decoding keeps its compressed data. */
  async frame(page: number, meta: Metadata): Promise<ImagePage> {
    const bytesPerSample = meta.depth === "uchar" || meta.depth === "char" ? 1 : 2;
    checkDecodedSize(this.name, meta.width, meta.height, meta.channels, bytesPerSample);
    if (!["uchar", "char", "ushort"].includes(meta.depth)) {
      this.warnings.push(
        `${this.name} has samples deeper than 16 bits; they were reduced to 16 bits, the most a PDF image holds.`,
      );
    }
    if (this.kind === "png") {
      const asIs = await this.decoding(() => pngAsIs(this.bytes, (device) => this.profileFor(meta, device)));
      if (asIs !== undefined) return { image: asIs, geometry: this.geometry(asIs.width, asIs.height, meta) };
    }
    const pixels = await this.decoding(() => decodeWithSharp(this.bytes, page, meta));
    const image = await pixelsAsImage(pixels, this.profileFor(meta, pixels.device));
    return { image, geometry: this.geometry(pixels.width, pixels.height, meta) };
  }

  async bmp(): Promise<ImagePage> {
    const { pixels, dpi } = await this.decoding(() =>
      decodeWithMupdf(this.bytes, (width, height, samples) =>
        checkDecodedSize(this.name, width, height, samples, 1),
      ),
    );
    return {
      image: await pixelsAsImage(pixels, undefined),
      geometry: { width: pixels.width, height: pixels.height, orientation: 1, dpi: dpi ?? 72 },
    };
  }

  /** The EXIF orientation and resolution the header gives, where they make sense; else upright, 72 dpi. */
  geometry(width: number, height: number, meta: Metadata): ImageGeometry {
    const { orientation, density } = meta;
    const exifOrientation = orientation !== undefined && orientation >= 1 && orientation <= 8;
    const ownDpi = density !== undefined && Number.isFinite(density) && density > 0;
    return {
      width,
      height,
      orientation: exifOrientation ? orientation : 1,
      dpi: ownDpi ? density : 72,
    };
  }

  /** The embedded ICC profile when it describes the image's colours; a mismatched one is left out. */
  profileFor(meta: Metadata, device: DeviceSpace): Uint8Array | undefined {
    const icc = meta.icc;
    if (icc === undefined || icc.length < 132) return undefined;
    const profileSpace = profileSpaces[icc.subarray(16, 20).toString("latin1")];
    if (profileSpace === device) return icc;
    this.warnings.push(
      `${this.name}'s colour profile does not describe its ${componentsOf[device]}-channel colours; ` +
        "the profile was left out.",
    );
    return undefined;
  }

  /** Runs a decoder; its failure becomes invalid_input naming the file. */
  async decoding<T>(decode: () => Promise<T>): Promise<T> {
    try {
      return await decode();
    } catch (error) {
      if (error instanceof JobFailure) throw error;
      throw this.unreadable(error);
    }
  }

  unreadable(error: unknown): JobFailure {
    const detail = error instanceof Error ? error.message : String(error);
    return new JobFailure(
      "invalid_input",
      `${this.name} could not be read as a ${kindLabels[this.kind]} image: it is damaged or cut short. ` +
        "Open it in an image editor, save it again and send the new file.",
      { detail, cause: error },
    );
  }
}

const profileSpaces: Record<string, DeviceSpace> = {
  GRAY: "DeviceGray",
  "RGB ": "DeviceRGB",
  CMYK: "DeviceCMYK",
};

function firstFrameOnly(name: string): string {
  return `${name} is animated; only its first frame was converted.`;
}

function tooManyPages(name: string, frames: number): JobFailure {
  return new JobFailure(
    "invalid_input",
    `${name} has ${count(frames)} pages, which would take the PDF past ${count(imageCaps.maxPages)} pages; ` +
      "send fewer or smaller files.",
  );
}

function codingOf(header: JpegHeader): string {
  if (header.precision !== 8) return `${header.precision}-bit samples`;
  if (header.frameType === 3 || header.frameType === 7 || header.frameType === 11 || header.frameType === 15)
    return "lossless coding";
  if (header.frameType >= 9) return "arithmetic coding";
  return `${header.components} components`;
}

import { createInflate } from "node:zlib";
import type { DeviceSpace, ImageObject } from "./image-xobject.js";

/** A PNG's chunks as far as the PDF needs them. */
interface PngLayout {
  width: number;
  height: number;
  bitDepth: number;
  colourType: number;
  interlaced: boolean;
  palette: Uint8Array | undefined;
  transparency: boolean;
  idat: Uint8Array[];
}

const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const greyscale = 0;
const truecolour = 2;
const indexed = 3;

/**
 * The PNG's compressed pixel data as an image XObject, without decoding it: IDAT holds a zlib stream of
 * rows with PNG filters, which is what PDF's FlateDecode with /Predictor 15 reads. Undefined when the
 * PNG needs decoding first: alpha or tRNS transparency (PDF keeps opacity in a separate image) or
 * interlacing (its rows are in seven passes). `profileFor` gives the ICC profile for its colours.
 * Throws when the data does not inflate to every row (a cut-short or corrupt file).
 */
export async function pngAsIs(
  bytes: Uint8Array,
  profileFor: (device: DeviceSpace) => Uint8Array | undefined,
): Promise<ImageObject | undefined> {
  const png = readPng(bytes);
  if (png === undefined || png.interlaced || png.transparency || png.idat.length === 0) return undefined;
  const { width, height, bitDepth } = png;
  const layout = sampleLayout(png);
  if (layout === undefined) return undefined;
  const data = Buffer.concat(png.idat);
  await checkRows(data, height, 1 + Math.ceil((width * layout.colors * bitDepth) / 8));
  return {
    width,
    height,
    bitsPerComponent: bitDepth,
    colour: { device: layout.device, icc: profileFor(layout.device), palette: layout.palette },
    data: {
      filter: "FlateDecode",
      bytes: data,
      predictor: { colors: layout.colors, bitsPerComponent: bitDepth, columns: width },
    },
  };
}

interface SampleLayout {
  device: DeviceSpace;
  /** Samples a pixel: the predictor's /Colors. */
  colors: number;
  palette: Uint8Array | undefined;
}

/** How PDF reads the PNG's samples, for the colour types and depths PNG allows; undefined otherwise. */
function sampleLayout(png: PngLayout): SampleLayout | undefined {
  const { colourType, bitDepth, palette } = png;
  if (colourType === greyscale && [1, 2, 4, 8, 16].includes(bitDepth)) {
    return { device: "DeviceGray", colors: 1, palette: undefined };
  }
  if (colourType === truecolour && [8, 16].includes(bitDepth)) {
    return { device: "DeviceRGB", colors: 3, palette: undefined };
  }
  if (colourType === indexed && validPalette(palette) && [1, 2, 4, 8].includes(bitDepth)) {
    return { device: "DeviceRGB", colors: 1, palette };
  }
  return undefined;
}

/**
 * Inflates the data as it streams (never holding the image) and checks it is exactly `height` rows of
 * `rowBytes`, each starting with a PNG filter type (0–4); zlib's checksum catches changed bytes.
 */
async function checkRows(data: Buffer, height: number, rowBytes: number): Promise<void> {
  // Large output chunks: far fewer turns of the loop than zlib's 16 KB default, and still little memory.
  const inflate = createInflate({ chunkSize: 1024 * 1024 });
  inflate.end(data);
  const expected = height * rowBytes;
  let position = 0;
  let nextRow = 0;
  for await (const chunk of inflate as AsyncIterable<Buffer>) {
    if (position + chunk.length > expected)
      throw new Error("the image data holds more rows than the header says");
    for (; nextRow < position + chunk.length; nextRow += rowBytes) {
      if ((chunk[nextRow - position] ?? 0) > 4)
        throw new Error(`row ${nextRow / rowBytes + 1} has no PNG filter type`);
    }
    position += chunk.length;
  }
  if (position !== expected) {
    throw new Error(`the image data ends after ${Math.floor(position / rowBytes)} of ${height} rows`);
  }
}

/** 1 to 256 RGB entries. */
function validPalette(palette: Uint8Array | undefined): palette is Uint8Array {
  return palette !== undefined && palette.length >= 3 && palette.length <= 768 && palette.length % 3 === 0;
}

function readPng(bytes: Uint8Array): PngLayout | undefined {
  if (!signature.every((byte, index) => bytes[index] === byte)) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let layout: PngLayout | undefined;
  let at = signature.length;
  while (at + 12 <= bytes.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (body.length !== length) return undefined;
    if (type === "IHDR" && length >= 13) {
      layout = {
        width: view.getUint32(at + 8),
        height: view.getUint32(at + 12),
        bitDepth: body[8] ?? 0,
        colourType: body[9] ?? 0,
        interlaced: body[12] !== 0,
        palette: undefined,
        transparency: false,
        idat: [],
      };
    } else if (layout === undefined) {
      return undefined; // IHDR must come first
    } else if (type === "PLTE") {
      layout.palette = body;
    } else if (type === "tRNS") {
      layout.transparency = true;
    } else if (type === "IDAT") {
      layout.idat.push(body);
    } else if (type === "IEND") {
      return layout;
    }
    at += 12 + length;
  }
  return undefined; // no IEND: cut short
}

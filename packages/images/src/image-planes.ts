import { promisify } from "node:util";
import { deflate } from "node:zlib";
import type { DecodedPixels } from "./image-decode.js";
import { componentsOf, type ImageObject } from "./image-xobject.js";

const deflateAsync = promisify(deflate);

/**
 * Decoded pixels as a lossless image XObject: the colour samples Flate-compressed, alpha split off as a
 * soft mask (left out when every pixel is opaque: it would change nothing), and a one-bit-a-sample
 * source packed back to one bit.
 */
export async function pixelsAsImage(
  pixels: DecodedPixels,
  icc: Uint8Array | undefined,
): Promise<ImageObject> {
  const { width, height, bitsPerComponent, device } = pixels;
  const { colour, alpha } = pixels.alpha ? splitAlpha(pixels) : { colour: pixels.samples, alpha: undefined };
  const packed = pixels.bilevel && device === "DeviceGray" ? packBilevel(colour, width, height) : undefined;
  const [colourData, alphaData] = await Promise.all([
    deflateAsync(packed ?? colour),
    alpha === undefined || opaque(alpha) ? undefined : deflateAsync(alpha),
  ]);
  return {
    width,
    height,
    bitsPerComponent: packed === undefined ? bitsPerComponent : 1,
    colour: { device, icc },
    data: { filter: "FlateDecode", bytes: colourData },
    alpha:
      alphaData === undefined
        ? undefined
        : { bitsPerComponent, data: { filter: "FlateDecode", bytes: alphaData } },
  };
}

/** The interleaved samples as a colour plane and an alpha plane. */
function splitAlpha(pixels: DecodedPixels): { colour: Buffer; alpha: Buffer } {
  const sampleBytes = pixels.bitsPerComponent / 8;
  const colourBytes = componentsOf[pixels.device] * sampleBytes;
  const count = pixels.width * pixels.height;
  const colour = Buffer.allocUnsafe(count * colourBytes);
  const alpha = Buffer.allocUnsafe(count * sampleBytes);
  const source = pixels.samples;
  for (let pixel = 0, from = 0, to = 0, toAlpha = 0; pixel < count; pixel += 1) {
    for (let byte = 0; byte < colourBytes; byte += 1) colour[to++] = source[from++] ?? 0;
    for (let byte = 0; byte < sampleBytes; byte += 1) alpha[toAlpha++] = source[from++] ?? 0;
  }
  return { colour, alpha };
}

function opaque(alpha: Buffer): boolean {
  for (const byte of alpha) if (byte !== 0xff) return false;
  return true;
}

/** Eight-bit samples that are all 0 or 255 as one bit each, rows padded to whole bytes; else undefined. */
function packBilevel(samples: Buffer, width: number, height: number): Buffer | undefined {
  const rowBytes = Math.ceil(width / 8);
  const packed = Buffer.alloc(rowBytes * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const value = samples[y * width + x];
      const at = y * rowBytes + (x >> 3);
      if (value === 0xff) packed[at] = (packed[at] ?? 0) | (0x80 >> (x & 7));
      else if (value !== 0) return undefined;
    }
  }
  return packed;
}

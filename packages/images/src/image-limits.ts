import { imageInputLimits } from "@octavo/contracts/limits";
import { JobFailure, limits } from "@octavo/engines";
import { count } from "./count.js";

/**
 * Caps on what one image may decode to, checked on its header before any pixel is decoded (and sharp
 * enforces the pixel cap again while decoding): a small file that claims or inflates to gigabytes of
 * pixels (a decompression bomb) fails with invalid_input instead of exhausting the sandbox's memory.
 */
export const imageCaps = {
  /** Pixels an image: sharp's own default (16,383²), as the API description states. */
  maxPixels: imageInputLimits.maxPixels,
  /** Bytes an image decodes to (width × height × samples × bytes a sample): 1 GiB, as for PDF images. */
  maxDecodedBytes: limits.maxImageBytes,
  /** Pages in the whole PDF (a multi-page TIFF adds one a frame), as for any PDF input. */
  maxPages: limits.maxPages,
} as const;

/** Throws invalid_input when an image's header claims more than the caps allow. */
export function checkDecodedSize(
  name: string,
  width: number,
  height: number,
  samplesPerPixel: number,
  bytesPerSample: number,
): void {
  const pixels = width * height;
  if (!(width > 0 && height > 0)) {
    throw new JobFailure("invalid_input", `${name} has no pixels (its header says ${width} × ${height}).`);
  }
  if (pixels > imageCaps.maxPixels) {
    throw new JobFailure(
      "invalid_input",
      `${name} is ${count(width)} × ${count(height)} pixels (${count(pixels)}); at most ` +
        `${count(imageCaps.maxPixels)} pixels an image are accepted. Scale it down and send it again.`,
    );
  }
  const bytes = pixels * samplesPerPixel * bytesPerSample;
  if (bytes > imageCaps.maxDecodedBytes) {
    throw new JobFailure(
      "invalid_input",
      `${name} would take ${count(Math.ceil(bytes / 1024 ** 2))} MB once decoded; at most ` +
        `${count(imageCaps.maxDecodedBytes / 1024 ** 2)} MB an image are accepted. Scale it down or ` +
        "save it with 8 bits a sample, and send it again.",
    );
  }
}

import { extname } from "node:path";
import { JobFailure } from "@octavo/engines";
import { fileTypeFromBuffer } from "file-type";

export type ImageKind = "jpeg" | "png" | "tiff" | "webp" | "gif" | "bmp";

export interface SniffedImage {
  kind: ImageKind;
  /** An animated PNG: only its still image is converted. */
  animatedPng: boolean;
}

export const kindLabels: Record<ImageKind, string> = {
  jpeg: "JPEG",
  png: "PNG",
  tiff: "TIFF",
  webp: "WebP",
  gif: "GIF",
  bmp: "BMP",
};

const kindByExtension: Record<string, ImageKind> = {
  ".jpg": "jpeg",
  ".jpeg": "jpeg",
  ".png": "png",
  ".tif": "tiff",
  ".tiff": "tiff",
  ".webp": "webp",
  ".gif": "gif",
  ".bmp": "bmp",
};

const kindByMime: Record<string, ImageKind> = {
  "image/jpeg": "jpeg",
  "image/png": "png",
  "image/apng": "png",
  "image/tiff": "tiff",
  "image/webp": "webp",
  "image/gif": "gif",
  "image/bmp": "bmp",
};

const supported = "JPEG, PNG, TIFF, WebP, GIF or BMP";

/**
 * What the file's content is, by its signature (file-type), checked against its extension: a file that
 * is not the image its name says fails, naming what it really is, so nothing is guessed.
 */
export async function sniffImage(bytes: Uint8Array, name: string): Promise<SniffedImage> {
  const expected = kindByExtension[extname(name).toLowerCase()];
  const label = expected === undefined ? "an image" : `a ${kindLabels[expected]} image`;
  if (bytes.length === 0) {
    throw new JobFailure("invalid_input", `${name} is empty; send the ${label} itself.`);
  }
  const found = await fileTypeFromBuffer(bytes);
  const kind = found === undefined ? undefined : kindByMime[found.mime];
  if (kind !== undefined && (expected === undefined || kind === expected)) {
    return { kind, animatedPng: found?.mime === "image/apng" };
  }
  const actually =
    kind !== undefined
      ? `a ${kindLabels[kind]} image`
      : found !== undefined
        ? `${describeMime(found.mime)} (.${found.ext})`
        : "not a recognisable image";
  const advice =
    kind !== undefined
      ? `rename it to .${found?.ext ?? kind} and send it again.`
      : `send a ${supported} image.`;
  throw new JobFailure("invalid_input", `${name} is not ${label}: its content is ${actually}; ${advice}`);
}

function describeMime(mime: string): string {
  if (mime === "application/pdf") return "a PDF document";
  if (mime.startsWith("image/")) return `an image format that is not supported (${mime})`;
  return `a file of type ${mime}`;
}

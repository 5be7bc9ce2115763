import { JobFailure } from "@octavo/engines/errors";
import { imageSize } from "image-size";
import type PizZip from "pizzip";
import { relationshipsOf } from "./package-parts.js";

/*
 * Pictures in Word templates: {%logo} takes a data URL, an http(s) URL (fetched through the outbound
 * policy), or { src, width, height } with the size in points. Rendering is synchronous, so the placeholder
 * leaves a marker; the pictures are fetched after, and each marker's run becomes an inline drawing.
 */

export interface ImageRequest {
  src: string;
  /** Points; either one alone keeps the picture's proportions. */
  width?: number;
  height?: number;
  tag: string;
}

/** Fetches an http(s) picture under the outbound policy. */
export type FetchImage = (url: string) => Promise<Buffer>;

const maxImages = 1000;
export const maxImageBytes = 10 * 1024 * 1024;
/** A picture without a size is shown at 96 dpi, no wider than a portrait page's text (6.5 in). */
const maxDefaultWidthPt = 468;
const emuPerPoint = 12_700;
const markerPattern = /\u2063img(\d+)\u2063/g;

function refused(tag: string, why: string): JobFailure {
  return new JobFailure("invalid_options", `The picture of {${tag}} cannot be used: ${why}.`);
}

/** The requests of one rendered document, by the number its marker carries. */
export class ImageRequests {
  readonly requests: ImageRequest[] = [];

  /** The parser's imageMarker: checks the value and returns the marker text. */
  marker = (value: unknown, tag: string): string => {
    if (value === undefined || value === null || value === "") return "";
    const request = toRequest(value, tag);
    if (this.requests.length >= maxImages)
      throw refused(tag, `a document takes at most ${maxImages} pictures`);
    this.requests.push(request);
    return `\u2063img${this.requests.length - 1}\u2063`;
  };
}

function toRequest(value: unknown, tag: string): ImageRequest {
  if (typeof value === "string") return { src: value, tag };
  if (typeof value === "object" && value !== null && typeof (value as { src?: unknown }).src === "string") {
    const { src, width, height } = value as { src: string; width?: unknown; height?: unknown };
    for (const [name, size] of Object.entries({ width, height })) {
      if (size !== undefined && (typeof size !== "number" || !(size > 0) || size > 5000)) {
        throw refused(tag, `${name} is a size in points, from above 0 to 5000`);
      }
    }
    return {
      src,
      tag,
      ...(width === undefined ? {} : { width: width as number }),
      ...(height === undefined ? {} : { height: height as number }),
    };
  }
  throw refused(tag, "its value is a data URL, an http(s) URL, or { src, width, height }");
}

interface LoadedImage {
  bytes: Buffer;
  extension: "png" | "jpeg" | "gif";
  widthPx: number;
  heightPx: number;
}

async function load(request: ImageRequest, fetchImage: FetchImage): Promise<LoadedImage> {
  const bytes = await bytesOf(request, fetchImage);
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(bytes);
  } catch {
    throw refused(request.tag, "it is not a PNG, JPEG or GIF picture");
  }
  const extension = size.type === "jpg" ? "jpeg" : size.type;
  if (extension !== "png" && extension !== "jpeg" && extension !== "gif") {
    throw refused(request.tag, `it is a ${size.type} picture; send PNG, JPEG or GIF`);
  }
  return { bytes, extension, widthPx: size.width, heightPx: size.height };
}

async function bytesOf(request: ImageRequest, fetchImage: FetchImage): Promise<Buffer> {
  const data = /^data:image\/[a-z+.-]+;base64,/i.exec(request.src);
  if (data) {
    const bytes = Buffer.from(request.src.slice(data[0].length), "base64");
    if (bytes.length > maxImageBytes) throw refused(request.tag, "it is over 10 MB");
    return bytes;
  }
  if (/^https?:\/\//i.test(request.src)) {
    try {
      return await fetchImage(request.src);
    } catch (error) {
      throw refused(request.tag, error instanceof Error ? error.message : String(error));
    }
  }
  throw refused(request.tag, "its src is neither a base64 data URL of a picture nor an http(s) URL");
}

function sizeInPoints(request: ImageRequest, image: LoadedImage): { width: number; height: number } {
  const ratio = image.heightPx / image.widthPx;
  if (request.width !== undefined && request.height !== undefined)
    return { width: request.width, height: request.height };
  if (request.width !== undefined) return { width: request.width, height: request.width * ratio };
  if (request.height !== undefined) return { width: request.height / ratio, height: request.height };
  const width = Math.min(image.widthPx * 0.75, maxDefaultWidthPt);
  return { width, height: width * ratio };
}

const picture = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image";

function drawing(relationId: string, id: number, width: number, height: number): string {
  const cx = Math.round(width * emuPerPoint);
  const cy = Math.round(height * emuPerPoint);
  return (
    `<w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" distT="0" distB="0" distL="0" distR="0">` +
    `<wp:extent cx="${cx}" cy="${cy}"/><wp:docPr id="${id}" name="Picture ${id}"/>` +
    `<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">` +
    `<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="${id}" name="image${id}"/><pic:cNvPicPr/></pic:nvPicPr>` +
    `<pic:blipFill><a:blip xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:embed="${relationId}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic>` +
    "</a:graphicData></a:graphic></wp:inline></w:drawing>"
  );
}

function addRelationship(zip: PizZip, part: string, target: string): string {
  const path = relationshipsOf(part);
  const xml =
    zip.file(path)?.asText() ??
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
  const used = new Set([...xml.matchAll(/Id="([^"]+)"/g)].map((match) => match[1]));
  let n = used.size + 1;
  while (used.has(`rIdOctavo${n}`)) n += 1;
  const id = `rIdOctavo${n}`;
  zip.file(
    path,
    xml.replace(
      "</Relationships>",
      `<Relationship Id="${id}" Type="${picture}" Target="${target}"/></Relationships>`,
    ),
  );
  return id;
}

function addDefaultType(zip: PizZip, extension: string): void {
  const xml = zip.file("[Content_Types].xml")?.asText() ?? "";
  if (new RegExp(`Extension="${extension}"`, "i").test(xml)) return;
  zip.file(
    "[Content_Types].xml",
    xml.replace("</Types>", `<Default Extension="${extension}" ContentType="image/${extension}"/></Types>`),
  );
}

/**
 * Replaces each marker in the rendered Word parts with its picture: the run holding it is split around an
 * inline drawing, keeping the run's properties on the text each side.
 */
export async function placeImages(
  zip: PizZip,
  requests: ImageRequests,
  fetchImage: FetchImage,
): Promise<void> {
  if (requests.requests.length === 0) return;
  const images = await Promise.all(requests.requests.map((request) => load(request, fetchImage)));
  const parts = Object.keys(zip.files).filter((name) =>
    /^word\/(document|header\d*|footer\d*)\.xml$/.test(name),
  );
  let next = 1;
  for (const part of parts) {
    const xml = zip.file(part)?.asText() ?? "";
    if (!markerPattern.test(xml)) continue;
    markerPattern.lastIndex = 0;
    const runPattern = /<w:r(?:\s[^>]*)?>((?:(?!<\/w:r>).)*?)<\/w:r>/gs;
    const replaced = xml.replace(runPattern, (run: string, inner: string) => {
      if (!/\u2063img\d+\u2063/.test(inner)) return run;
      const properties = /^\s*(<w:rPr>.*?<\/w:rPr>)/s.exec(inner)?.[1] ?? "";
      const text = [...inner.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((match) => match[1]).join("");
      return text
        .split(/(\u2063img\d+\u2063)/)
        .map((piece) => {
          const marker = /^\u2063img(\d+)\u2063$/.exec(piece);
          if (!marker)
            return piece === "" ? "" : `<w:r>${properties}<w:t xml:space="preserve">${piece}</w:t></w:r>`;
          const index = Number(marker[1]);
          const image = images[index];
          const request = requests.requests[index];
          if (image === undefined || request === undefined) return "";
          const target = `media/octavo-image-${part.replace(/\W/g, "-")}-${next}.${image.extension}`;
          zip.file(`word/${target}`, image.bytes);
          addDefaultType(zip, image.extension);
          const { width, height } = sizeInPoints(request, image);
          return `<w:r>${properties}${drawing(addRelationship(zip, part, target), 10_000 + next++, width, height)}</w:r>`;
        })
        .join("");
    });
    zip.file(part, replaced);
  }
}

import type { Box, ImageBlock } from "@octavo/layout";
import { AlignmentType, ImageRun, Paragraph } from "docx";
import { twips } from "./paragraph.js";

/** docx sizes pictures in CSS pixels (96 per inch); the layout measures in points (72 per inch). */
const pixelsPerPoint = 96 / 72;

/**
 * The picture inline at its place in the flow, at its size on the page (shrunk to the text width when the
 * margins Word gets are narrower than the picture), centred when it is centred on the page.
 */
export function imageParagraph(
  image: ImageBlock,
  place: { column: Box; textWidth: number; first: boolean; pageBreakBefore?: boolean },
): Paragraph {
  const width = Math.max(1, image.box.x1 - image.box.x0);
  const height = Math.max(1, image.box.y1 - image.box.y0);
  const scale = Math.min(1, place.textWidth / width);
  const columnCentre = (place.column.x0 + place.column.x1) / 2;
  const imageCentre = (image.box.x0 + image.box.x1) / 2;
  const centred = Math.abs(columnCentre - imageCentre) < 0.05 * (place.column.x1 - place.column.x0);
  const offset = centred
    ? 0
    : Math.max(0, Math.min(image.box.x0 - place.column.x0, place.textWidth - width * scale));
  return new Paragraph({
    children: [
      new ImageRun({
        type: image.mime === "image/png" ? "png" : "jpg",
        data: image.data,
        transformation: {
          width: Math.round(width * scale * pixelsPerPoint),
          height: Math.round(height * scale * pixelsPerPoint),
        },
      }),
    ],
    alignment: centred ? AlignmentType.CENTER : AlignmentType.LEFT,
    indent: { left: twips(offset) },
    spacing: { before: place.first ? 0 : twips(6), after: 0 },
    ...(place.pageBreakBefore === true ? { pageBreakBefore: true } : {}),
  });
}

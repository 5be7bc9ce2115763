import { JobFailure } from "@octavo/engines";

export interface ImageToPdfOptions {
  /** fit: each page is its image's size at the image's own resolution; A4 or Letter: scaled to fit, centred. */
  pageSize: "fit" | "A4" | "Letter";
  /** For A4 and Letter; auto turns the page to landscape for an image wider than tall. */
  orientation: "auto" | "portrait" | "landscape";
  /** White space around each image: none 0, small 18 pt (¼ in), normal 36 pt (½ in). */
  margin: "none" | "small" | "normal";
}

/** An image as stored, and how it is to be shown. */
export interface ImageGeometry {
  /** Pixels as stored in the file, before any EXIF orientation. */
  width: number;
  height: number;
  /** EXIF orientation 1–8 (1: as stored). */
  orientation: number;
  /** Pixels per inch; 72 when the file gives none. */
  dpi: number;
}

/** A page and where its image goes: `matrix` maps the image's unit square onto the page (PDF `cm`). */
export interface Placement {
  pageWidth: number;
  pageHeight: number;
  matrix: [number, number, number, number, number, number];
  /** True when a `fit` page was scaled into the PDF's page-size limits. */
  rescaled: boolean;
}

export const marginPoints = { none: 0, small: 18, normal: 36 } as const;
export const paperSizes = { A4: [595.28, 841.89], Letter: [612, 792] } as const;
// PDF 1.7 Annex C: a page side is 3 to 14,400 user units (200 inches).
export const minPageSide = 3;
export const maxPageSide = 14_400;

const asStored: Placement["matrix"] = [1, 0, 0, 1, 0, 0];

/**
 * The eight EXIF orientations as maps of the unit square onto itself, [a b c d e f] in PDF order
 * (x' = a·u + c·v + e, y' = b·u + d·v + f, v upwards): they take the stored image to the shown one.
 */
const orientationMaps: Record<number, Placement["matrix"]> = {
  1: asStored,
  2: [-1, 0, 0, 1, 1, 0], // mirrored left–right
  3: [-1, 0, 0, -1, 1, 1], // turned 180°
  4: [1, 0, 0, -1, 0, 1], // mirrored top–bottom
  5: [0, -1, -1, 0, 1, 1], // transposed
  6: [0, -1, 1, 0, 0, 1], // to be turned 90° clockwise
  7: [0, 1, 1, 0, 0, 0], // transversed
  8: [0, 1, -1, 0, 1, 0], // to be turned 90° anticlockwise
};

/** Throws invalid_input for an option value outside the API's enums (the API validates; direct callers may not). */
export function checkOptions(options: ImageToPdfOptions): void {
  requireOneOf("pageSize", options.pageSize, ["fit", "A4", "Letter"]);
  requireOneOf("orientation", options.orientation, ["auto", "portrait", "landscape"]);
  requireOneOf("margin", options.margin, ["none", "small", "normal"]);
}

function requireOneOf<T extends string>(option: string, value: T, allowed: readonly T[]): void {
  if (allowed.includes(value)) return;
  throw new JobFailure(
    "invalid_input",
    `The option ${option} must be one of ${allowed.join(", ")}; it was ${JSON.stringify(value)}.`,
  );
}

/** The shown size in pixels: width and height swap for the orientations that turn the image a quarter. */
export function orientedSize(image: ImageGeometry): { width: number; height: number } {
  const quarterTurn = image.orientation >= 5 && image.orientation <= 8;
  return quarterTurn
    ? { width: image.height, height: image.width }
    : { width: image.width, height: image.height };
}

/** The page for one image and the matrix that draws it there, upright, with its aspect ratio kept. */
export function placeImage(image: ImageGeometry, options: ImageToPdfOptions): Placement {
  const shown = orientedSize(image);
  const margin = marginPoints[options.margin];
  if (options.pageSize === "fit") {
    const natural = { width: (shown.width * 72) / image.dpi, height: (shown.height * 72) / image.dpi };
    const scale = pageScale(natural.width + 2 * margin, natural.height + 2 * margin, margin);
    const width = natural.width * scale;
    const height = natural.height * scale;
    return {
      pageWidth: width + 2 * margin,
      pageHeight: height + 2 * margin,
      matrix: drawMatrix(image.orientation, margin, margin, width, height),
      rescaled: scale !== 1,
    };
  }
  const [short, long] = paperSizes[options.pageSize];
  const landscape =
    options.orientation === "landscape" || (options.orientation === "auto" && shown.width > shown.height);
  const pageWidth = landscape ? long : short;
  const pageHeight = landscape ? short : long;
  const scale = Math.min((pageWidth - 2 * margin) / shown.width, (pageHeight - 2 * margin) / shown.height);
  const width = shown.width * scale;
  const height = shown.height * scale;
  return {
    pageWidth,
    pageHeight,
    matrix: drawMatrix(image.orientation, (pageWidth - width) / 2, (pageHeight - height) / 2, width, height),
    rescaled: false,
  };
}

/**
 * The factor that brings a fit page inside the PDF's page-size limits: down when a side is over the
 * maximum, up when the image (not the margin) would be under the minimum. 1 for nearly every image.
 */
function pageScale(width: number, height: number, margin: number): number {
  const longest = Math.max(width, height);
  if (longest > maxPageSide) return (maxPageSide - 2 * margin) / (longest - 2 * margin);
  const shortest = Math.min(width, height) - 2 * margin;
  if (shortest < minPageSide) {
    const up = minPageSide / shortest;
    return Math.min(up, (maxPageSide - 2 * margin) / (longest - 2 * margin));
  }
  return 1;
}

/** The stored image's unit square → turned by its orientation → the box (x, y, width, height) on the page. */
function drawMatrix(
  orientation: number,
  x: number,
  y: number,
  width: number,
  height: number,
): Placement["matrix"] {
  const [a, b, c, d, e, f] = orientationMaps[orientation] ?? asStored;
  return [a * width, b * height, c * width, d * height, x + e * width, y + f * height];
}

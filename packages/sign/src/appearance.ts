import { JobFailure, type PdfDocument } from "@octavo/engines";
import type { Mupdf, MupdfModule } from "@octavo/mupdf";

type Rect = [number, number, number, number];

export type AppearancePosition = "top-left" | "top-right" | "bottom-left" | "bottom-right" | "center";

/** Where a visible signature goes, as the reader sees the page (points, from its top-left corner). */
export interface AppearancePlacement {
  /** 1-based. */
  page: number;
  /** [x, y, width, height]; else `position` with the default size. */
  rect?: [number, number, number, number];
  position?: AppearancePosition;
}

const defaultSize = { width: 200, height: 60 };
const margin = 24;

/**
 * The widget rectangle in the page's own space (what /Rect holds) and the matrix that turns the
 * appearance upright for the reader on a rotated page: the appearance is drawn as the reader sees it
 * (y up, `width` × `height`), and /Matrix maps that into page space.
 */
export interface WidgetGeometry {
  pageIndex: number;
  rect: Rect;
  width: number;
  height: number;
  matrix: Mupdf.Matrix;
}

export function widgetGeometry(
  mupdf: MupdfModule,
  doc: PdfDocument,
  placement: AppearancePlacement,
): WidgetGeometry {
  const pages = doc.countPages();
  if (!Number.isInteger(placement.page) || placement.page < 1 || placement.page > pages) {
    throw new JobFailure(
      "invalid_input",
      `options.appearance.page is ${placement.page}, but the document has ${pages} page${pages === 1 ? "" : "s"}.`,
    );
  }
  const page = doc.loadPage(placement.page - 1);
  try {
    const [x0, y0, x1, y1] = page.getBounds();
    const shown = displayedRect(placement, x1 - x0, y1 - y0);
    const display: Rect = [x0 + shown[0], y0 + shown[1], x0 + shown[0] + shown[2], y0 + shown[1] + shown[3]];
    const toPage = mupdf.Matrix.invert(page.getTransform());
    const rect = mupdf.Rect.transform(display, toPage) as Rect;
    // Drawn y up as the reader sees it, then into page space: flip, then the page's inverse transform.
    const linear: Mupdf.Matrix = [toPage[0], toPage[1], toPage[2], toPage[3], 0, 0];
    const matrix = mupdf.Matrix.concat([1, 0, 0, -1, 0, 0], linear);
    return { pageIndex: placement.page - 1, rect, width: shown[2], height: shown[3], matrix };
  } finally {
    page.destroy();
  }
}

function displayedRect(placement: AppearancePlacement, pageWidth: number, pageHeight: number): Rect {
  if (placement.rect !== undefined) {
    const [x, y, width, height] = placement.rect;
    if (x < 0 || y < 0 || x + width > pageWidth + 0.5 || y + height > pageHeight + 0.5) {
      throw new JobFailure(
        "invalid_input",
        `options.appearance.rect [${placement.rect.join(", ")}] reaches outside page ${placement.page} (${Math.round(pageWidth)} × ${Math.round(pageHeight)} points as displayed); give a rectangle inside it.`,
      );
    }
    return [x, y, width, height];
  }
  const width = Math.min(defaultSize.width, pageWidth - 2 * margin);
  const height = Math.min(defaultSize.height, pageHeight - 2 * margin);
  const position = placement.position ?? "bottom-right";
  const left = position.endsWith("left")
    ? margin
    : position.endsWith("right")
      ? pageWidth - margin - width
      : (pageWidth - width) / 2;
  const top = position.startsWith("top")
    ? margin
    : position.startsWith("bottom")
      ? pageHeight - margin - height
      : (pageHeight - height) / 2;
  return [left, top, width, height];
}

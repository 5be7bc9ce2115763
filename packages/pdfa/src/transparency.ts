import { forgetBorrowed } from "@octavo/engines";
import type { Mupdf } from "@octavo/mupdf";
import {
  deleteAnnotation,
  forEachDictionary,
  type MupdfModule,
  nameOf,
  numberOf,
  type PdfDocument,
  type PdfObject,
} from "./mupdf.js";

/** Pages with transparency are drawn at this resolution for PDF/A-1. */
export const flattenDpi = 300;
/** ...unless the picture would exceed this many pixels (a 2 m poster), then at a lower one. */
const maxPixels = 40_000_000;

/**
 * A device that notes whether anything drawn through it is transparent: constant alpha below 1, a blend
 * mode other than Normal, a soft mask, or an image with a soft mask (an SMask; stencil masks are opaque).
 * This is what MuPDF actually draws, so resources a page declares but never uses do not count.
 */
function transparencyProbe(mupdf: MupdfModule): { device: Mupdf.Device; found: () => boolean } {
  let found = false;
  const alpha = (value: number): void => {
    if (value < 1) found = true;
  };
  const device = new mupdf.Device({
    fillPath: (_path, _evenOdd, _ctm, _space, _color, value) => alpha(value),
    strokePath: (_path, _stroke, _ctm, _space, _color, value) => alpha(value),
    fillText: (_text, _ctm, _space, _color, value) => alpha(value),
    strokeText: (_text, _stroke, _ctm, _space, _color, value) => alpha(value),
    fillShade: (shade, _ctm, value) => {
      alpha(value);
      forgetBorrowed(shade);
    },
    fillImage: (image, _ctm, value) => {
      alpha(value);
      const mask = image.getMask();
      if (mask !== null && !mask.getImageMask()) found = true;
      mask?.destroy();
      forgetBorrowed(image);
    },
    fillImageMask: (image, _ctm, _space, _color, value) => {
      alpha(value);
      forgetBorrowed(image);
    },
    beginMask: () => {
      found = true;
    },
    beginGroup: (_area, _space, _isolated, _knockout, blend, value) => {
      if (blend !== "Normal") found = true;
      alpha(value);
    },
  });
  return { device, found: () => found };
}

function drawsTransparency(mupdf: MupdfModule, draw: (device: Mupdf.Device) => void): boolean {
  const probe = transparencyProbe(mupdf);
  try {
    draw(probe.device);
    probe.device.close();
  } catch {
    // A page MuPDF cannot fully draw is left to Ghostscript; the text check catches what it loses.
  } finally {
    probe.device.destroy();
  }
  return probe.found();
}

/**
 * PDF/A-1 forbids transparency, and Ghostscript's answer is to rasterise the whole page, text included
 * (at 720 dpi, minutes per page). Here a page that really draws something transparent is drawn by MuPDF
 * as one opaque picture (up to 300 dpi) laid over its original content: the text stays in the file,
 * extractable and searchable under the picture, the way an OCR'd scan carries its text. Transparent
 * annotations are drawn into the picture and removed; the others stay on top. Returns the 1-based
 * numbers of the pages so drawn.
 */
export function flattenTransparency(doc: PdfDocument, mupdf: MupdfModule): number[] {
  const flattened: number[] = [];
  for (let index = 0; index < doc.countPages(); index += 1) {
    const page = doc.loadPage(index);
    const contents = drawsTransparency(mupdf, (device) =>
      page.runPageContents(device, mupdf.Matrix.identity),
    );
    const annotations = [...page.getAnnotations(), ...page.getWidgets()].filter((annotation) =>
      drawsTransparency(mupdf, (device) => annotation.run(device, mupdf.Matrix.identity)),
    );
    if (contents || annotations.length > 0) {
      coverWithPicture(doc, mupdf, page, index, annotations);
      for (const annotation of annotations) deleteAnnotation(page, annotation);
      flattened.push(index + 1);
    }
    page.destroy();
  }
  return flattened;
}

function coverWithPicture(
  doc: PdfDocument,
  mupdf: MupdfModule,
  page: Mupdf.PDFPage,
  index: number,
  annotations: Mupdf.PDFAnnotation[],
): void {
  const bounds = page.getBounds();
  const [x0, y0, x1, y1] = bounds;
  const area = ((x1 - x0) * (y1 - y0) * flattenDpi * flattenDpi) / (72 * 72);
  const scale = (flattenDpi / 72) * Math.min(1, Math.sqrt(maxPixels / Math.max(area, 1)));
  const ctm = mupdf.Matrix.scale(scale, scale);
  const box = mupdf.Rect.transform(bounds, ctm);
  const pixelBox: Mupdf.Rect = [
    Math.floor(box[0]),
    Math.floor(box[1]),
    Math.max(Math.ceil(box[2]), Math.floor(box[0]) + 1),
    Math.max(Math.ceil(box[3]), Math.floor(box[1]) + 1),
  ];
  const pixmap = new mupdf.Pixmap(mupdf.ColorSpace.DeviceRGB, pixelBox, false);
  let image: Mupdf.Image | undefined;
  try {
    pixmap.clear(255);
    const device = new mupdf.DrawDevice(mupdf.Matrix.identity, pixmap);
    try {
      page.runPageContents(device, ctm);
      for (const annotation of annotations) annotation.run(device, ctm);
      device.close();
    } finally {
      device.destroy();
    }
    image = new mupdf.Image(pixmap);
    const imageRef = doc.addImage(image);
    const resourceName = `OctavoPdfA${index + 1}`;
    addXObject(doc, page.getObject(), resourceName, imageRef);
    // The picture's corners in MuPDF's page space (y down, rotation applied), back to PDF user space.
    const [px0, py0, px1, py1] = pixmap.getBounds().map((value) => value / scale) as Mupdf.Rect;
    const placement = mupdf.Matrix.concat(
      [px1 - px0, 0, 0, -(py1 - py0), px0, py1],
      mupdf.Matrix.invert(page.getTransform()),
    );
    appendContents(
      doc,
      page.getObject(),
      `q ${placement.map(formatNumber).join(" ")} cm /${resourceName} Do Q`,
    );
  } finally {
    image?.destroy();
    pixmap.destroy();
  }
}

/** Brackets the page's content in q/Q (it may leave the graphics state changed) and draws after it. */
function appendContents(doc: PdfDocument, pageObj: PdfObject, operators: string): void {
  const contents = doc.newArray();
  contents.push(doc.addStream("q\n", doc.newDictionary()));
  const existing = pageObj.get("Contents");
  if (existing.isArray()) {
    for (let index = 0; index < existing.length; index += 1) contents.push(existing.get(index));
  } else if (!existing.isNull()) {
    contents.push(existing);
  }
  contents.push(doc.addStream(`\nQ\n${operators}\n`, doc.newDictionary()));
  pageObj.put("Contents", contents);
}

function addXObject(doc: PdfDocument, pageObj: PdfObject, name: string, ref: PdfObject): void {
  let resources = pageObj.getInheritable("Resources");
  if (!resources.isDictionary()) {
    resources = doc.newDictionary();
    pageObj.put("Resources", resources);
  } else if (pageObj.get("Resources").isNull()) {
    // Inherited from the page tree: give this page its own copy rather than touch its siblings'.
    resources = doc.newDictionary();
    const inherited = pageObj.getInheritable("Resources");
    inherited.forEach((value, key) => {
      resources.put(key, value);
    });
    pageObj.put("Resources", resources);
  }
  let xobjects = resources.get("XObject");
  if (!xobjects.isDictionary()) {
    xobjects = doc.newDictionary();
    resources.put("XObject", xobjects);
  }
  xobjects.put(name, ref);
}

function formatNumber(value: number): string {
  const fixed = value.toFixed(4);
  return fixed.includes(".") ? fixed.replace(/\.?0+$/, "") : fixed;
}

/**
 * After the transparent pages are pictures, every transparency construct left in the file is one
 * nothing visible depends on (a page group around opaque content, an alpha of 1, a soft mask under a
 * picture). They are neutralised so Ghostscript finds no transparency and rasterises nothing.
 */
export function neutraliseTransparency(doc: PdfDocument): void {
  const edits: (() => void)[] = [];
  const none = doc.newName("None");
  const normal = doc.newName("Normal");
  forEachDictionary(doc, (dict) => {
    const group = dict.get("Group");
    if (group.isDictionary() && nameOf(group.get("S")) === "Transparency")
      edits.push(() => dict.delete("Group"));
    if (dict.isStream() || nameOf(dict.get("Type")) === "XObject") {
      // Ghostscript's pdfi counts any SMask key on an image, even /None, as transparency, and then
      // rasterises every page sharing the resources at 720 dpi (pdfjs_pdkids.pdf: 4 minutes, no text).
      if (nameOf(dict.get("Subtype")) === "Image") {
        if (!dict.get("SMask").isNull()) edits.push(() => dict.delete("SMask"));
        if (!dict.get("SMaskInData").isNull()) edits.push(() => dict.delete("SMaskInData"));
      }
      return;
    }
    for (const key of ["CA", "ca"]) {
      const alpha = numberOf(dict.get(key));
      if (alpha !== undefined && alpha !== 1) edits.push(() => dict.put(key, 1));
    }
    const isAnnotation = dict.get("Rect").isArray() && !dict.get("Subtype").isNull();
    if (isAnnotation) return;
    const mask = dict.get("SMask");
    if (!mask.isNull() && nameOf(mask) !== "None") edits.push(() => dict.put("SMask", none));
    const blend = dict.get("BM");
    const blends = blend.isArray() ? Array.from({ length: blend.length }, (_, i) => blend.get(i)) : [blend];
    const opaque = blends.every(
      (mode) => mode.isNull() || ["Normal", "Compatible"].includes(nameOf(mode) ?? ""),
    );
    if (!opaque) edits.push(() => dict.put("BM", normal));
  });
  for (const edit of edits) edit();
}

import { mainPart, partsOfType, XmlPart } from "./opc.js";
import { testModeStamp } from "./stamp.js";
import { childElements, elementsNamed, fragment, insertBefore } from "./xml.js";
import type { ZipPackage } from "./zip.js";

const slideContentType = "application/vnd.openxmlformats-officedocument.presentationml.slide+xml";
const drawingNs = {
  "http://schemas.openxmlformats.org/presentationml/2006/main":
    "http://schemas.openxmlformats.org/drawingml/2006/main",
  "http://purl.oclc.org/ooxml/presentationml/main": "http://purl.oclc.org/ooxml/drawingml/main",
} as Record<string, string>;
/** PowerPoint's default slide, 10 × 7.5 inches in EMU, when the presentation does not give its size. */
const defaultSlide = { cx: 9_144_000, cy: 6_858_000 };
/** The text box's height: one line of 14 pt text with the box's insets. */
const boxHeight = 369_332;

/**
 * Slides have no header (PowerPoint's header is for notes and handouts), so each slide gets a text box
 * across its top, over everything else on it, saying so.
 */
export function markPptx(pkg: ZipPackage): void {
  const slides = partsOfType(pkg, slideContentType);
  if (slides.length === 0) throw new Error("the presentation has no slide");
  const size = slideSize(pkg);
  for (const name of slides) {
    const slide = XmlPart.read(pkg, name);
    const presentationNs = slide.root.namespaceURI ?? "";
    const tree = elementsNamed(slide.document, presentationNs, "spTree")[0];
    if (tree === undefined) throw new Error(`${name} has no shape tree`);
    const ids = elementsNamed(slide.document, presentationNs, "cNvPr").map((element) =>
      Number(element.getAttribute("id")),
    );
    const id = Math.max(0, ...ids.filter(Number.isFinite)) + 1;
    const box = fragment(slide.document, textBox(presentationNs, id, size));
    // Last in the tree is drawn on top; an extension list, if any, stays last.
    insertBefore(tree, box, ["extLst"]);
    slide.save(pkg);
  }
}

function slideSize(pkg: ZipPackage): { cx: number; cy: number } {
  const presentation = XmlPart.read(pkg, mainPart(pkg).part);
  const size = childElements(presentation.root).find((element) => element.localName === "sldSz");
  const cx = Number(size?.getAttribute("cx"));
  const cy = Number(size?.getAttribute("cy"));
  return cx > 0 && cy > 0 ? { cx, cy } : defaultSlide;
}

function textBox(presentationNs: string, id: number, slide: { cx: number; cy: number }): string {
  const a =
    drawingNs[presentationNs] ?? drawingNs["http://schemas.openxmlformats.org/presentationml/2006/main"];
  const x = Math.round(slide.cx * 0.05);
  const y = Math.round(slide.cy * 0.01);
  const width = Math.round(slide.cx * 0.9);
  return (
    `<p:sp xmlns:p="${presentationNs}" xmlns:a="${a}">` +
    `<p:nvSpPr><p:cNvPr id="${id}" name="${testModeStamp}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr>` +
    `<p:spPr><a:xfrm><a:off x="${x}" y="${y}"/><a:ext cx="${width}" cy="${boxHeight}"/></a:xfrm>` +
    `<a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr>` +
    `<p:txBody><a:bodyPr wrap="none" rtlCol="0"><a:spAutoFit/></a:bodyPr><a:lstStyle/>` +
    `<a:p><a:pPr algn="ctr"/><a:r><a:rPr lang="en-US" sz="1400" b="1" dirty="0">` +
    `<a:solidFill><a:srgbClr val="C00000"/></a:solidFill></a:rPr><a:t>${testModeStamp}</a:t></a:r></a:p>` +
    `</p:txBody></p:sp>`
  );
}
